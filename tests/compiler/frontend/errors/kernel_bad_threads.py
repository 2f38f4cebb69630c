import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        # expected-error@+1:26: T.Kernel threads must be 1 or 2, not 3
        with T.Kernel(2, threads=3, is_npu=True) as (cid):
            a = T.alloc_ub((M, N), dtype)
            T.copy(A, a)
    return main
