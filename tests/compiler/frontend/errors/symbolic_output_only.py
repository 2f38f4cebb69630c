import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(N=64, dtype="float"):
    # expected-error@+1:9: T.symbolic('M') is the extent of no input tensor
    M = T.symbolic("M")
    @T.prim_func
    def main(A: T.Tensor((64, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((64, N), dtype)
            T.copy(A, a)
            T.copy(a, B[0, 0])
    return main
