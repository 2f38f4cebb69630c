import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            x = T.alloc_ub((8,), dtype)
            # expected-error@+1:13: T.reduce_sum shape mismatch: reducing [64, 64] along dim -1 cannot produce [8]
            T.reduce_sum(a, x, dim=-1)
    return main
