# A vector kernel over a rank-3 tensor whose batch and row dims are both symbolic: the batch
# stride (M * N elements) is a runtime value, and each block's rows are clipped at M.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale_batched(N, block_M, dtype="float32"):
    Bt = T.symbolic("Bt")
    M = T.symbolic("M")
    m_num = T.ceildiv(M, block_M)

    @T.prim_func
    def main(A: T.Tensor((Bt, M, N), dtype), B: T.Tensor((Bt, M, N), dtype)):
        with T.Kernel(Bt * m_num, is_npu=True) as (cid, _):
            bi = cid // m_num
            row = (cid % m_num) * block_M
            a = T.alloc_ub((block_M, N), dtype)
            with T.Scope("V"):
                T.copy(A[bi, row:row + block_M, :], a)
                T.barrier_all()
                T.tile.mul(a, a, 3.0)
                T.barrier_all()
                T.copy(a, B[bi, row:row + block_M, :])

    return main
