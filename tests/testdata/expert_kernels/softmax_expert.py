# Expert-mode row softmax: explicit UB tiles, T.Scope("V") and barrier_all between
# dependent steps (the author orders every pipe). M need not be a multiple of
# block_M: the last block's rows past M are clipped on load and store.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1])
def softmax_expert(M, N, block_M, dtype="float"):
    sub_M = block_M // 2

    @T.prim_func
    def main(
            X: T.Tensor((M, N), dtype),
            Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(M, block_M), is_npu=True) as (cid, vid):
            x_ub = T.alloc_ub((sub_M, N), dtype)
            max_ub = T.alloc_ub((sub_M,), dtype)
            sum_ub = T.alloc_ub((sub_M,), dtype)

            with T.Scope("V"):
                row0 = cid * block_M + vid * sub_M
                T.copy(X[row0, 0], x_ub)
                T.barrier_all()
                T.reduce_max(x_ub, max_ub, dim=-1)
                T.barrier_all()
                T.tile.sub(x_ub, x_ub, max_ub)
                T.barrier_all()
                T.tile.exp(x_ub, x_ub)
                T.barrier_all()
                T.reduce_sum(x_ub, sum_ub, dim=-1)
                T.barrier_all()
                T.tile.div(x_ub, x_ub, sum_ub)
                T.barrier_all()
                T.copy(x_ub, Y[row0, 0])

    return main
