# Expert-mode GEMM in the seed's style (no T.Scope, barrier_all around gemm_v0) with
# transpose flags and shapes that are not tile multiples: M, N and K tails are clipped on
# load (the on-chip remainder zero-filled) and on store.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul_t(M, N, K, block_M, block_N, block_K, trans_A, trans_B, dtype="float16",
             accum_dtype="float"):
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_L1_shape = (block_K, block_M) if trans_A else (block_M, block_K)
    B_L1_shape = (block_N, block_K) if trans_B else (block_K, block_N)
    n_num = T.ceildiv(N, block_N)

    @T.prim_func
    def main(
            A: T.Tensor(A_shape, dtype),
            B: T.Tensor(B_shape, dtype),
            C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel(T.ceildiv(M, block_M) * n_num, is_npu=True) as (cid, _):
            bx = cid // n_num
            by = cid % n_num
            A_L1 = T.alloc_L1(A_L1_shape, dtype)
            B_L1 = T.alloc_L1(B_L1_shape, dtype)
            C_L0 = T.alloc_L0C((block_M, block_N), accum_dtype)

            for k in T.serial(T.ceildiv(K, block_K)):
                if trans_A:
                    T.copy(A[k * block_K, bx * block_M], A_L1)
                else:
                    T.copy(A[bx * block_M, k * block_K], A_L1)
                if trans_B:
                    T.copy(B[by * block_N, k * block_K], B_L1)
                else:
                    T.copy(B[k * block_K, by * block_N], B_L1)
                T.barrier_all()
                T.gemm_v0(A_L1, B_L1, C_L0, transpose_A=trans_A, transpose_B=trans_B,
                          init=(k == 0))
                T.barrier_all()

            T.copy(C_L0, C[bx * block_M, by * block_N])

    return main
