import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(N=64, dtype="float"):
    M = T.symbolic("M")
    @T.prim_func
    # expected-error@+1:26: a dim computed from symbols is not supported yet
    def main(A: T.Tensor((M * 2, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((64, N), dtype)
            T.copy(A[0, 0], a)
    return main
