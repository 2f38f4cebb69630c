# Expert-mode mixed kernel: the cube computes A @ B into a declared GM workspace and
# raises a cross-core flag behind the FIX pipe; each vector core waits for it, reads its
# half of the tile back, adds D and stores C. No CV_COMBINE: the author splits the work
# with T.Scope and orders the hand-off with set_cross_flag / wait_cross_flag.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1], workspace_idx=[3])
def matmul_add_ws(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float"):
    n_num = N // block_N
    sub_M = block_M // 2

    @T.prim_func
    def main(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            D: T.Tensor((M, N), accum_dtype),
            W: T.Tensor((M, N), accum_dtype),
            C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel((M // block_M) * n_num, is_npu=True) as (cid, vid):
            bx = cid // n_num
            by = cid % n_num
            A_L1 = T.alloc_L1((block_M, block_K), dtype)
            B_L1 = T.alloc_L1((block_K, block_N), dtype)
            C_L0 = T.alloc_L0C((block_M, block_N), accum_dtype)
            c_ub = T.alloc_ub((sub_M, block_N), accum_dtype)
            d_ub = T.alloc_ub((sub_M, block_N), accum_dtype)

            with T.Scope("C"):
                for k in T.serial(K // block_K):
                    T.copy(A[bx * block_M, k * block_K], A_L1)
                    T.copy(B[k * block_K, by * block_N], B_L1)
                    T.barrier_all()
                    T.gemm_v0(A_L1, B_L1, C_L0, init=(k == 0))
                    T.barrier_all()
                T.copy(C_L0, W[bx * block_M, by * block_N])
                T.set_cross_flag("FIX", 0)

            with T.Scope("V"):
                row = bx * block_M + vid * sub_M
                T.copy(D[row, by * block_N], d_ub)
                T.wait_cross_flag(0)
                T.copy(W[row, by * block_N], c_ub)
                T.barrier_all()
                T.tile.add(c_ub, c_ub, d_ub)
                T.barrier_all()
                T.copy(c_ub, C[row, by * block_N])

    return main
