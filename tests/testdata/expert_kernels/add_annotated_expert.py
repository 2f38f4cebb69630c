# Expert-mode vector add whose UB tiles sit at author-chosen addresses
# (T.annotate_address), in reverse order with gaps; placement must honour them.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def add_annotated(M, N, block_M, block_N, dtype="float"):
    n_num = N // block_N
    sub_M = block_M // 2

    @T.prim_func
    def main(
            A: T.Tensor((M, N), dtype),
            B: T.Tensor((M, N), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel((M // block_M) * n_num, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((sub_M, block_N), dtype)
            b_ub = T.alloc_ub((sub_M, block_N), dtype)
            c_ub = T.alloc_ub((sub_M, block_N), dtype)
            T.annotate_address({a_ub: 131072, b_ub: 65536, c_ub: 0})

            with T.Scope("V"):
                row = (cid // n_num) * block_M + vid * sub_M
                col = (cid % n_num) * block_N
                T.copy(A[row, col], a_ub)
                T.copy(B[row, col], b_ub)
                T.barrier_all()
                T.tile.add(c_ub, a_ub, b_ub)
                T.barrier_all()
                T.copy(c_ub, C[row, col])

    return main
