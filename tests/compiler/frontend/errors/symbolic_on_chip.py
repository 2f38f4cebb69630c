import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(N=64, dtype="float"):
    M = T.symbolic("M")
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            # expected-error@+1:28: T.symbolic('M') is known only at launch
            a = T.alloc_ub((M, N), dtype)
            T.copy(A, a)
    return main
