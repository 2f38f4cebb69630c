import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            x = T.alloc_ub((8, 64), dtype)
            # expected-error@+1:13: T.tile.exp shape mismatch: destination is [8, 64] but source is [64, 64]
            T.tile.exp(x, a)
    return main
