import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        # expected-error@+1:14: T.Kernel needs is_npu=True
        with T.Kernel(2) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            T.copy(A, a)
    return main
