import tilelang
import tilelang.language as T


@tilelang.jit
def kernel():
    @T.prim_func
    # expected-error@+1:5: prim_func 'main' has no 'with T.Kernel(...)' launch
    def main(A: T.Tensor((4,), "float")):
        pass
    return main
