import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            p = T.alloc_L1((64, 32), "float16")
            q = T.alloc_L1((16, 32), "float16")
            c = T.alloc_L0C((64, 32), "float")
            # expected-error@+1:13: gemm_v0 shape mismatch: A is [64, 32] giving M=64, K=32; B is [16, 32] giving K=16
            T.gemm_v0(p, q, c)
    return main
