# SPDX-License-Identifier: Apache-2.0
# Element-wise T.tile operations and reductions, one kernel per operation: each vector core
# takes half the rows (test_tile_ops_e2e.py). The operations are passed to the prim_func as
# values, as upstream's operator tests do.
import tilejit as tilelang
import tilejit.language as T

UNARY = {
    "exp": T.tile.exp, "ln": T.tile.ln, "sqrt": T.tile.sqrt, "rsqrt": T.tile.rsqrt,
    "reciprocal": T.tile.reciprocal, "abs": T.tile.abs, "relu": T.tile.relu,
    "sigmoid": T.tile.sigmoid, "silu": T.tile.silu, "sin": T.tile.sin, "cos": T.tile.cos,
    "bitwise_not": T.tile.bitwise_not,
}
BINARY = {
    "add": T.tile.add, "sub": T.tile.sub, "mul": T.tile.mul, "div": T.tile.div,
    "max": T.tile.max, "min": T.tile.min, "pow": T.tile.pow, "leaky_relu": T.tile.leaky_relu,
    "bitwise_and": T.tile.bitwise_and, "bitwise_or": T.tile.bitwise_or,
    "bitwise_xor": T.tile.bitwise_xor, "bitwise_lshift": T.tile.bitwise_lshift,
    "bitwise_rshift": T.tile.bitwise_rshift,
}
REDUCE = {"sum": T.reduce_sum, "max": T.reduce_max, "min": T.reduce_min}


@tilelang.jit(out_idx=[-1])
def unary(M, N, dtype, name):
    op = UNARY[name]
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.barrier_all()
                op(a, a)
                T.barrier_all()
                T.copy(a, B[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def round_tile(M, N, dtype):
    """T.tile.round(out, buffer, count) over each core's half, count its element count."""
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            b = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.barrier_all()
                T.tile.round(b, a, sub * N)
                T.barrier_all()
                T.copy(b, B[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def binary(M, N, dtype, name, scalar=None):
    op = BINARY[name]
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            b = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.copy(B[vid * sub, 0], b)
                T.barrier_all()
                if scalar is None:
                    op(a, a, b)
                else:
                    op(a, a, scalar)
                T.barrier_all()
                T.copy(a, C[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def reduce_rows(M, N, dtype, name):
    op = REDUCE[name]
    sub = M // 2

    @T.prim_func
    def main(A: T.Buffer((M, N), dtype), B: T.Buffer((M,), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            r = T.alloc_ub((sub,), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.barrier_all()
                op(a, r, dim=-1)
                T.barrier_all()
                T.copy(r, B[vid * sub])

    return main


MATH = {"exp": T.exp, "log": T.log, "sqrt": T.sqrt, "rsqrt": T.rsqrt, "abs": T.abs}


@tilelang.jit(out_idx=[-1])
def parallel_math(M, N, dtype, name):
    f = MATH[name]
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.barrier_all()
                for i, j in T.Parallel(sub, N):
                    a[i, j] = f(a[i, j])
                T.barrier_all()
                T.copy(a, B[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def transpose(M, N, dtype):
    """B = A^T: vector core vid transposes rows [vid * M/2, (vid + 1) * M/2) of A into the
    same columns of B."""
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((N, M), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            t = T.alloc_ub((N, sub), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.barrier_all()
                T.tile.transpose(t, a)
                T.barrier_all()
                T.copy(t, B[0, vid * sub])

    return main


ROW_EXPAND = {"mul": T.tile.row_expand_mul, "sub": T.tile.row_expand_sub_experiment,
              "div": T.tile.row_expand_div}


@tilelang.jit(out_idx=[-1])
def row_expand(M, N, dtype, name):
    """C[i, :] = A[i, :] op S[i]; the scratch argument is passed as upstream passes it."""
    op = ROW_EXPAND[name]
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), S: T.Tensor((M,), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            s = T.alloc_ub((sub,), dtype)
            tmp = T.alloc_ub((sub, 32 // (2 if dtype == "float16" else 4)), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.copy(S[vid * sub], s)
                T.barrier_all()
                op(a, a, s, tmp)
                T.barrier_all()
                T.copy(a, C[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def row_expand_block(M, N, dtype, name):
    """C[i, j] = A[i, j] op S[i, j % B]: S is one 32-byte block per row (B elements, brcb's
    output), passed with no scratch as upstream's xattention passes it."""
    op = ROW_EXPAND[name]
    per_block = 32 // (2 if dtype == "float16" else 4)

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), S: T.Tensor((M, per_block), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            s = T.alloc_ub((M, per_block), dtype)
            with T.Scope("V"):
                if vid == 0:
                    T.copy(A, a)
                    T.copy(S, s)
                    T.barrier_all()
                    op(a, a, s)
                    T.barrier_all()
                    T.copy(a, C)

    return main


@tilelang.jit(out_idx=[-1])
def brcb(M, dtype, column=False):
    """C[i, :] = A[i] over one 32-byte block per element (brcb, block stride 1, repeat 8);
    with column, A is [M, 1] (xattention's m_i_next)."""
    per_block = 32 // (2 if dtype == "float16" else 4)
    a_shape = (M, 1) if column else (M,)

    @T.prim_func
    def main(A: T.Tensor(a_shape, dtype), C: T.Tensor((M, per_block), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub(a_shape, dtype)
            c = T.alloc_ub((M, per_block), dtype)
            with T.Scope("V"):
                if vid == 0:
                    T.copy(A, a)
                    T.barrier_all()
                    T.tile.brcb_experiment(c, a, M // 8, 1, 8)
                    T.barrier_all()
                    T.copy(c, C)

    return main


@tilelang.jit(out_idx=[-1])
def reduce_real_shape(M, N, dtype, name, rows, cols, positional, out=None):
    """B[:rows] = reduce of A[:rows, :cols] along the columns (real_shape), the rest of B's
    `out` elements (default M) zero."""
    op = REDUCE[name]
    out = out or M

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((out,), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            r = T.alloc_ub((out,), dtype)
            with T.Scope("V"):
                if vid == 0:
                    T.copy(A, a)
                    T.tile.fill(r, 0.0)
                    T.barrier_all()
                    if positional:
                        op(a, r, -1, [rows, cols], True)
                    else:
                        op(a, r, dim=-1, real_shape=[rows, cols])
                    T.barrier_all()
                    T.copy(r, B)

    return main


@tilelang.jit(out_idx=[-1])
def compare_select_scalar(M, N, dtype, mode, threshold, other):
    """C = A <mode> threshold ? A : other, through a mask of exactly ceil(N / 8) bytes a row."""
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            m = T.alloc_ub((sub, (N + 7) // 8), "uint8")
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.barrier_all()
                T.tile.compare(m, a, threshold, mode)
                T.barrier_all()
                T.tile.select(a, m, a, other, "VSEL_TENSOR_SCALAR_MODE")
                T.barrier_all()
                T.copy(a, C[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def clamp(M, N, dtype, lo, hi):
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            b = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.barrier_all()
                T.tile.clamp(b, a, lo, hi, sub * N)
                T.barrier_all()
                T.copy(b, B[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def clamp_bound(M, N, dtype, upper, bound):
    """B = A clamped from above (clamp_max) or from below (clamp_min) by `bound`."""
    sub = M // 2
    op = T.tile.clamp_max if upper else T.tile.clamp_min

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            b = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.barrier_all()
                op(b, a, bound, sub * N)
                T.barrier_all()
                T.copy(b, B[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def gather(M, N, dtype, per_row):
    """C = A's elements at the byte offsets in B: over the whole tile, or row by row (B's
    offsets then count from the row's start), as upstream's test_gather / test_gather_slice."""
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), "uint32"),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            b = T.alloc_ub((sub, N), "uint32")
            c = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.copy(B[vid * sub, 0], b)
                T.barrier_all()
                if per_row:
                    for i in range(sub):
                        T.tile.gather(c[i, :], a[i, :], b[i, :], 0)
                else:
                    T.tile.gather(c, a, b, 0)
                T.barrier_all()
                T.copy(c, C[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def createvecindex(M, N, dtype, first):
    """C = first, first + 1, ... in row-major order; core vid writes rows from vid * M/2."""
    sub = M // 2

    @T.prim_func
    def main(C: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            c = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.tile.createvecindex(c, first + vid * sub * N)
                T.barrier_all()
                T.copy(c, C[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def arith_progression(N, dtype, first, diff):
    @T.prim_func
    def main(C: T.Tensor((N,), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            c = T.alloc_ub((N,), dtype)
            with T.Scope("V"):
                if vid == 0:
                    T.tile.arith_progression(c, first, diff, N)
                    T.barrier_all()
                    T.copy(c, C)

    return main


@tilelang.jit
def atomic_add_ub(blocks, M, N, dtype):
    """Every block and both vector cores add a tile of (cid + 1) into C: both AIVs run the
    vector code, as upstream's test_tile_atomic_add counts (blocks * VEC_NUM contributions)."""

    @T.prim_func
    def main(C: T.Tensor((M, N), dtype)):
        with T.Kernel(blocks, is_npu=True) as (cid, vid):
            x = T.alloc_ub((M, N), dtype)
            T.tile.fill(x, cid + 1)
            T.tile.atomic_add(C[0, 0], x)

    return main


@tilelang.jit
def atomic_add_l0c(blocks, M, N, K):
    """C += A @ B once per block, from L0C (the fixpipe's atomic store)."""

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float")):
        with T.Kernel(blocks, is_npu=True) as (cid, vid):
            a = T.alloc_L1((M, K), "float16")
            b = T.alloc_L1((K, N), "float16")
            c = T.alloc_L0C((M, N), "float")
            with T.Scope("C"):
                T.copy(A, a)
                T.copy(B, b)
                T.barrier_all()
                T.gemm_v0(a, b, c, init=True)
                T.barrier_all()
                T.tile.atomic_add(C, c)

    return main


@tilelang.jit(out_idx=[-1])
def atomic_add_to_ub(M, N):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float"), C: T.Tensor((M, N), "float")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            x = T.alloc_ub((M, N), "float")
            y = T.alloc_ub((M, N), "float")
            T.copy(A, x)
            T.tile.atomic_add(y, x)
            T.copy(y, C)

    return main


@tilelang.jit(out_idx=[-1])
def gather_mask(L, dtype, mode):
    """B starts with the elements of A that the built-in pattern `mode` keeps; the rest of B
    is 0."""

    @T.prim_func
    def main(A: T.Tensor((L,), dtype), B: T.Tensor((L,), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((L,), dtype)
            b = T.alloc_ub((L,), dtype)
            with T.Scope("V"):
                if vid == 0:
                    T.copy(A, a)
                    T.tile.fill(b, 0)
                    T.barrier_all()
                    T.tile.gather_mask(b, a, mode)
                    T.barrier_all()
                    T.copy(b, B)

    return main


@tilelang.jit(out_idx=[-1])
def mul_add_dst(M, N, dtype):
    """D = A * B + C through mul_add_dst(c, a, b), each vector core half the rows."""
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype),
             C: T.Tensor((M, N), dtype), D: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            b = T.alloc_ub((sub, N), dtype)
            c = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.copy(B[vid * sub, 0], b)
                T.copy(C[vid * sub, 0], c)
                T.barrier_all()
                T.tile.mul_add_dst(c, a, b)
                T.barrier_all()
                T.copy(c, D[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1], pass_configs={tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True})
def relu_by_branches(N):
    """B = max(A, 0) written with an if/else per element in T.Parallel (a serial fallback)."""

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((N,), "float32")
            c = T.alloc_ub((N,), "float32")
            with T.Scope("V"):
                if vid == 0:
                    T.copy(A, a)
                    for j in T.Parallel(N):
                        if a[j] > 0:
                            c[j] = a[j]
                        else:
                            c[j] = 0.0
                    T.copy(c, B)

    return main


@tilelang.jit(out_idx=[-2, -1])
def deq_cast(M, N, first, second):
    """B = float16(A * first), C = float16(A * second): int32 -> float16 casts after
    T.set_deq_scale(first) and then T.set_deq_scale(second)."""

    @T.prim_func
    def main(A: T.Tensor((M, N), "int32"), B: T.Tensor((M, N), "float16"),
             C: T.Tensor((M, N), "float16")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), "int32")
            b = T.alloc_ub((M, N), "float16")
            c = T.alloc_ub((M, N), "float16")
            with T.Scope("V"):
                if vid == 0:
                    T.copy(A, a)
                    T.barrier_all()
                    T.set_deq_scale(first)
                    T.tile.cast(b, a, "CAST_RINT", M * N)
                    T.set_deq_scale(second)
                    T.copy(a, c)
                    T.barrier_all()
                    T.copy(b, B)
                    T.copy(c, C)

    return main


@tilelang.jit(out_idx=[-1])
def gather_rows(M, N, dtype):
    """C[i, j] = A[idx[i], j] * B[i, j] in a T.Parallel nest, each vector core taking half the
    rows with its own row indices (local to its half)."""
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype),
             IDX: T.Tensor((M,), "int32"), C: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            b = T.alloc_ub((sub, N), dtype)
            idx = T.alloc_ub((sub,), "int32")
            c = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.copy(B[vid * sub, 0], b)
                T.copy(IDX[vid * sub], idx)
                T.barrier_all()
                for i, j in T.Parallel(sub, N):
                    c[i, j] = a[idx[i], j] * b[i, j]
                T.barrier_all()
                T.copy(c, C[vid * sub, 0])

    return main
