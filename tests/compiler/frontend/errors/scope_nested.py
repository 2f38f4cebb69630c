import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            with T.Scope("V"):
                # expected-error@+1:17: T.Scope cannot be nested in another T.Scope
                with T.Scope("V"):
                    T.copy(A, a)
    return main
