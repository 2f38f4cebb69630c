import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    # expected-error@+1:9: T.symbolic is not supported yet (dynamic shapes)
    M = T.symbolic("M")
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            T.copy(A, a)
    return main
