import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    @T.prim_func
    # expected-error@+1:14: prim_func parameter 'A' needs an annotation
    def main(A, B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            T.copy(A, a)
    return main
