# Expert-mode layer norm over the last dim: explicit UB tiles, barrier_all between
# dependent steps, the statistics with tile ops and the scale/shift as a T.Parallel
# element-wise loop (per-row rstd, per-column gamma and beta).
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def layer_norm_expert(M, N, block_M, dtype="float"):
    sub_M = block_M // 2
    inv_n = 1.0 / N
    eps = 1e-5

    @T.prim_func
    def main(
            X: T.Tensor((M, N), dtype),
            gamma: T.Tensor((N,), dtype),
            beta: T.Tensor((N,), dtype),
            Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            x_ub = T.alloc_ub((sub_M, N), dtype)
            sq_ub = T.alloc_ub((sub_M, N), dtype)
            g_ub = T.alloc_ub((N,), dtype)
            b_ub = T.alloc_ub((N,), dtype)
            mean_ub = T.alloc_ub((sub_M,), dtype)
            rstd_ub = T.alloc_ub((sub_M,), dtype)

            with T.Scope("V"):
                row0 = cid * block_M + vid * sub_M
                T.copy(X[row0, 0], x_ub)
                T.copy(gamma, g_ub)
                T.copy(beta, b_ub)
                T.barrier_all()
                T.reduce_sum(x_ub, mean_ub, dim=-1)
                T.barrier_all()
                T.tile.mul(mean_ub, mean_ub, inv_n)
                T.barrier_all()
                T.tile.sub(x_ub, x_ub, mean_ub)
                T.barrier_all()
                T.tile.mul(sq_ub, x_ub, x_ub)
                T.barrier_all()
                T.reduce_sum(sq_ub, rstd_ub, dim=-1)
                T.barrier_all()
                T.tile.mul(rstd_ub, rstd_ub, inv_n)
                T.barrier_all()
                T.tile.add(rstd_ub, rstd_ub, eps)
                T.barrier_all()
                T.tile.rsqrt(rstd_ub, rstd_ub)
                T.barrier_all()
                for i, j in T.Parallel(sub_M, N):
                    x_ub[i, j] = x_ub[i, j] * rstd_ub[i] * g_ub[j] + b_ub[j]
                T.barrier_all()
                T.copy(x_ub, Y[row0, 0])

    return main
