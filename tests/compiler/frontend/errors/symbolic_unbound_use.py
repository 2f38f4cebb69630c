import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(N=64, dtype="float"):
    # expected-error@+1:9: T.symbolic('S') is used in the kernel but is no dimension
    S = T.symbolic("S")
    @T.prim_func
    def main(A: T.Tensor((64, N), dtype), B: T.Tensor((64, N), dtype)):
        with T.Kernel(T.ceildiv(S, 64), is_npu=True) as (cid, vid):
            a = T.alloc_ub((64, N), dtype)
            T.copy(A, a)
            T.copy(a, B)
    return main
