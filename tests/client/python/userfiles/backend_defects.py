# SPDX-License-Identifier: Apache-2.0
"""Kernels that reproduce back-end defects found by running TileLang-Ascend's examples
(test_backend_defects_e2e.py): each is the smallest kernel with the shape of the failing
example."""
import tilejit as tilelang
import tilejit.language as T


@tilelang.jit(out_idx=[-1])
def attention_scores_then_values(M=32, N=64, D=512):
    """O = fp16(Q K^T) V in one block, Expert mode, as upstream's flash attention with head dim
    512 (examples/pipeline/flash_attn_bshd_pipeline.py): Q K^T's B operand fills L0B alone
    (512 x 64 float16 = 64 KiB), and so does P V's (64 x 512), one gemm after the other."""

    @T.prim_func
    def main(Q: T.Tensor((M, D), "float16"), K: T.Tensor((N, D), "float16"),
             V: T.Tensor((N, D), "float16"), O: T.Tensor((M, D), "float")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            q = T.alloc_L1((M, D), "float16")
            k = T.alloc_L1((N, D), "float16")
            v = T.alloc_L1((N, D), "float16")
            p = T.alloc_L1((M, N), "float16")
            s = T.alloc_L0C((M, N), "float")
            o = T.alloc_L0C((M, D), "float")
            with T.Scope("C"):
                T.copy(Q, q)
                T.copy(K, k)
                T.copy(V, v)
                T.barrier_all()
                T.gemm_v0(q, k, s, transpose_B=True, init=True)
                T.barrier_all()
                T.copy(s, p)
                T.barrier_all()
                T.gemm_v0(p, v, o, init=True)
                T.barrier_all()
                T.copy(o, O)

    return main


@tilelang.jit(out_idx=[3], workspace_idx=[4], pass_configs={
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
})
def gemm_plus_through_a_declared_workspace(M=64, N=64, K=64, steps=3):
    """Developer mode, as upstream's pipelined flash attention: each step the cube writes
    A_k @ B into the kernel's own workspace W and the vector cores read it back, adding D:
    TL_ASCEND_AUTO_CV_SYNC must order W's writes before its reads."""

    @T.prim_func
    def main(A: T.Tensor((steps * M, K), "float16"), B: T.Tensor((K, N), "float16"),
             D: T.Tensor((steps * M, N), "float16"), C: T.Tensor((steps * M, N), "float16"),
             W: T.Tensor((M, N), "float16")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_shared((M, K), "float16")
            b = T.alloc_shared((K, N), "float16")
            acc = T.alloc_fragment((M, N), "float")
            w = T.alloc_shared((M // 2, N), "float16")
            d = T.alloc_shared((M // 2, N), "float16")
            for s in T.serial(steps):
                T.copy(A[s * M, 0], a)
                T.copy(B, b)
                T.gemm_v0(a, b, acc, init=True)
                T.copy(acc, W)
                T.copy(W[vid * M // 2, 0], w)
                T.copy(D[s * M + vid * M // 2, 0], d)
                T.tile.add(w, w, d)
                T.copy(w, C[s * M + vid * M // 2, 0])

    return main


@tilelang.jit(out_idx=[-1])
def developer_gemm_without_pass_configs(M=64, N=64, K=32):
    """Developer mode (alloc_shared / alloc_fragment), no pass_configs and no syncs."""

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float16")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_shared((M, K), "float16")
            b = T.alloc_shared((K, N), "float16")
            c = T.alloc_fragment((M, N), "float")
            T.copy(A, a)
            T.copy(B, b)
            T.gemm_v0(a, b, c, init=True)
            T.copy(c, C)

    return main


@tilelang.jit(out_idx=[-1])
def developer_vector_without_pass_configs(M=64, N=64):
    """Developer mode vector work, no pass_configs and no syncs."""

    @T.prim_func
    def main(A: T.Tensor((M, N), "float"), C: T.Tensor((M, N), "float")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            u = T.alloc_shared((M, N), "float")
            T.copy(A, u)
            T.tile.exp(u, u)
            T.copy(u, C)

    return main


@tilelang.jit(out_idx=[-1])
def developer_cube_to_vector_without_pass_configs(M=64, N=64, K=32):
    """The same with vector work on the gemm's result: needs the compiler's cube/vector split."""

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_shared((M, K), "float16")
            b = T.alloc_shared((K, N), "float16")
            c = T.alloc_fragment((M, N), "float")
            u = T.alloc_shared((M, N), "float")
            T.copy(A, a)
            T.copy(B, b)
            T.gemm_v0(a, b, c, init=True)
            T.copy(c, u)
            T.tile.exp(u, u)
            T.copy(u, C)

    return main


@tilelang.jit(out_idx=[2, 3], pass_configs={
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
})
def two_loop_tiles_filling_ub(steps=2, M=256, N=128):
    """Two 128 KiB UB tiles of one loop body (192 KiB of UB): each iteration B = A + 1 through
    the first and D = 2 C through the second; they fit only by sharing bytes, as upstream's
    sparse flash attention's two L0C tiles do."""

    @T.prim_func
    def main(A: T.Tensor((steps * M, N), "float32"), C: T.Tensor((steps * M, N), "float32"),
             B: T.Tensor((steps * M, N), "float32"), D: T.Tensor((steps * M, N), "float32")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            x = T.alloc_ub((M, N), "float32")
            y = T.alloc_ub((M, N), "float32")
            with T.Scope("V"):
                if vid == 0:
                    for s in T.serial(steps):
                        T.copy(A[s * M, 0], x)
                        T.tile.add(x, x, 1.0)
                        T.copy(x, B[s * M, 0])
                        T.copy(C[s * M, 0], y)
                        T.tile.mul(y, y, 2.0)
                        T.copy(y, D[s * M, 0])

    return main


@tilelang.jit(out_idx=[-1])
def rows_of_one_head(S=40, H=3, D=64, R=16):
    """O[:, h, :] = Q[:, h, :] + 1 through a UB tile per block of R rows: the GM regions are
    [R, 1, D] (a middle dim indexed), as upstream's xattention and lightning indexer copy
    them; S is not a multiple of R, so the last block's rows are clipped."""

    @T.prim_func
    def main(Q: T.Tensor((S, H, D), "float32"), O: T.Tensor((S, H, D), "float32")):
        with T.Kernel(T.ceildiv(S, R), is_npu=True) as (cid, vid):
            t = T.alloc_ub((R, D), "float32")
            with T.Scope("V"):
                if vid == 0:
                    for h in T.serial(H):
                        T.copy(Q[cid * R:(cid + 1) * R, h, :], t)
                        T.barrier_all()
                        T.tile.add(t, t, 1.0)
                        T.barrier_all()
                        T.copy(t, O[cid * R:(cid + 1) * R, h, :])
                        T.barrier_all()

    return main


_DEVELOPER = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


@tilelang.jit(out_idx=[-1], pass_configs=_DEVELOPER)
def vector_work_without_vid(M=4, N=8):
    """(cid, vid) form whose body never reads vid, as upstream's activation/sigmoidv2.py and
    sort/example_merge_sort.py: both AIVs of the block would write the same GM bytes."""

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            x = T.alloc_ub((M, N), "float32")
            y = T.alloc_ub((M, N), "float32")
            T.copy(X, x)
            T.tile.sigmoid(y, x)
            T.copy(y, Y)

    return main


@tilelang.jit(out_idx=[-1], pass_configs=_DEVELOPER)
def gemm_then_vector_work_without_vid(M=32, N=32, K=32):
    """The same with a cube -> vector hand-off before it: C = exp(A @ B)."""

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_shared((M, K), "float16")
            b = T.alloc_shared((K, N), "float16")
            c = T.alloc_fragment((M, N), "float")
            u = T.alloc_shared((M, N), "float")
            T.copy(A, a)
            T.copy(B, b)
            T.gemm_v0(a, b, c, init=True)
            T.copy(c, u)
            T.tile.exp(u, u)
            T.copy(u, C)

    return main


@tilelang.jit(pass_configs=_DEVELOPER)
def atomic_add_without_vid(blocks=3, N=32):
    """Each AIV of each block adds ones into C: upstream's atomic_add test expects
    blocks * 2 (both AIVs run a body that does not read vid)."""

    @T.prim_func
    def main(C: T.Tensor((N,), "float32")):
        with T.Kernel(blocks, is_npu=True) as (cid, vid):
            ones = T.alloc_ub((N,), "float32")
            T.tile.fill(ones, 1.0)
            T.tile.atomic_add(C[0], ones)

    return main


@tilelang.jit(out_idx=[-1])
def expert_pipelined_gemm(M=128, N=128, K=512, bk=64, stages=3):
    """Expert mode as upstream's pipeline/gemm_v0_pipeline.py: the author's barrier_all opens
    and closes each iteration, the L1 loads run right before gemm_v0 with no sync between
    them (the vendor's gemm_v0 waits for MTE2 itself), and `if k == 0` chooses init. num_stages=0
    is a plain serial loop."""

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float16")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_L1((M, bk), "float16")
            b = T.alloc_L1((bk, N), "float16")
            c = T.alloc_L0C((M, N), "float")
            with T.Scope("C"):
                for k in T.Pipelined(K // bk, num_stages=stages):
                    T.barrier_all()
                    T.copy(A[0, k * bk], a)
                    T.copy(B[k * bk, 0], b)
                    if k == 0:
                        T.gemm_v0(a, b, c, init=True)
                    else:
                        T.gemm_v0(a, b, c)
                    T.barrier_all()
                T.copy(c, C)

    return main


@tilelang.jit(out_idx=[3], workspace_idx=[4], pass_configs=_DEVELOPER)
def gemm_written_once_read_in_quarters(M=64, N=128, K=128, bk=64, quarters=4):
    """As upstream's pipeline/matmul_add_pipeline.py: the cube writes A @ B into the kernel's
    own workspace W once, and each vector core reads its rows of W back a quarter of the
    columns at a time, adding D: one write, four reads."""
    q = N // quarters

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             D: T.Tensor((M, N), "float16"), C: T.Tensor((M, N), "float16"),
             W: T.Tensor((M, N), "float16")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_shared((M, bk), "float16")
            b = T.alloc_shared((bk, N), "float16")
            acc = T.alloc_fragment((M, N), "float")
            w = T.alloc_shared((M // 2, q), "float16")
            d = T.alloc_shared((M // 2, q), "float16")
            e = T.alloc_shared((M // 2, q), "float16")
            for k in T.Pipelined(K // bk, num_stages=2):
                T.copy(A[0, k * bk], a)
                T.copy(B[k * bk, 0], b)
                T.gemm_v0(a, b, acc, init=(k == 0))
            T.copy(acc, W)
            for i in T.Pipelined(quarters, num_stages=2):
                T.copy(W[vid * M // 2, i * q], w)
                T.copy(D[vid * M // 2, i * q], d)
                for r, c in T.Parallel(M // 2, q):
                    e[r, c] = w[r, c] + d[r, c]
                T.copy(e, C[vid * M // 2, i * q])

    return main


@tilelang.jit(out_idx=[2], workspace_idx=[3], pass_configs=_DEVELOPER)
def rows_staged_through_a_workspace(read_first, M=32, K=64, N=64, iters=3):
    """As upstream's sparse flash attentions: per iteration each vector core copies its half of
    X's rows into the kernel's own workspace W one row at a time, and the cube reads all of W
    for a gemm: M / 2 writes per vector core for one read. Upstream writes the cube's read
    first in the loop body (read_first); the n-th read takes the n-th iteration's rows."""
    half = M // 2

    @T.prim_func
    def main(X: T.Tensor((iters, M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((iters, M, N), "float"), W: T.Tensor((M, K), "float16")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            w_l1 = T.alloc_L1((M, K), "float16")
            b_l1 = T.alloc_L1((K, N), "float16")
            acc = T.alloc_L0C((M, N), "float")
            row = T.alloc_ub((K,), "float16")
            T.copy(B, b_l1)
            for it in T.serial(iters):
                if read_first:
                    T.copy(W, w_l1)
                    T.gemm_v0(w_l1, b_l1, acc, init=True)
                    T.copy(acc, C[it, :, :])
                for r in range(half):
                    T.copy(X[it, vid * half + r, :], row)
                    T.copy(row, W[vid * half + r, :])
                if not read_first:
                    T.copy(W, w_l1)
                    T.gemm_v0(w_l1, b_l1, acc, init=True)
                    T.copy(acc, C[it, :, :])

    return main


@tilelang.jit(out_idx=[2], pass_configs=_DEVELOPER)
def gather_rows_through_ub(S=64, D=64, rows=32):
    """As upstream's vid_reduction skip-set test: a threads=2 block gathers rows of KV picked
    by an index tensor into its rows of W through a UB vector no block offset ties to rows;
    the two AIVs each move half of every row."""

    @T.prim_func
    def main(KV: T.Tensor((S, D), "float16"), IDX: T.Tensor((rows,), "int32"),
             W: T.Tensor((2, rows, D), "float16")):
        with T.Kernel(2, threads=2, is_npu=True) as (cid):
            idx = T.alloc_shared((rows,), "int32")
            row = T.alloc_shared((D,), "float16")
            T.copy(IDX, idx)
            for i in range(rows):
                T.copy(KV[idx[i], :], row)
                T.copy(row, W[cid, i, :])

    return main
