# SPDX-License-Identifier: Apache-2.0
"""The element-wise T.tile operations, transpose and the row reductions against NumPy, through
the language (source -> daemon -> simulated NPU), for each dtype the operation takes, on an
aligned shape and on a tail shape whose rows are not a whole number of 32-byte blocks.

Semantics, per AscendC's vector API (Exp, Ln, Sqrt, Rsqrt, Reciprocal, Abs, Relu, Sigmoid,
Silu, Sin, Cos, Add, Sub, Mul, Div, Max, Min, Power, LeakyRelu, And, Or, Not, ShiftLeft,
ShiftRight, Transpose, and the Muls/Adds/Maxs/Mins scalar forms; ReduceSum/Max/Min) and
TileLang-Ascend's tests of T.tile.silu, sin, cos, pow, leaky_relu, bitwise_*, transpose
(testing/python/language/test_tilelang_ascend_language_elementwise.py at 95acbd7f, whose torch
references say what each computes): the NumPy expressions below. Where those sources leave a
detail open (shift counts of the element width or more, negative integer exponents), the
expected values are the choices docs/isa.md states. Inputs stay where each function is defined and well
conditioned (ln, sqrt, rsqrt, reciprocal and div on [0.5, 2]). T.exp, T.log, T.sqrt, T.rsqrt
and T.abs, the scalar intrinsics, are checked inside T.Parallel loops (the compiler makes them
the same vector instructions).
"""
import sys

import numpy as np
import pytest
import tilejit

from conftest import HERE

sys.path.insert(0, HERE + "/userfiles")
import tile_ops  # noqa: E402

pytestmark = pytest.mark.timeout(120)

SHAPES = [(16, 64), (6, 40)]  # (6, 40): 80-byte float16 rows
DTYPES = ["float16", "float32"]
TOL = {"float16": dict(rtol=2e-3, atol=2e-3), "float32": dict(rtol=1e-5, atol=1e-6)}

UNARY = {
    "exp": np.exp, "ln": np.log, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x),
    "reciprocal": lambda x: 1 / x, "abs": np.abs, "relu": lambda x: np.maximum(x, 0),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "silu": lambda x: x / (1 + np.exp(-x)),
    "sin": np.sin, "cos": np.cos,
}
POSITIVE = {"ln", "sqrt", "rsqrt", "reciprocal", "div", "pow"}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
          "max": np.maximum, "min": np.minimum, "pow": np.power}
SCALAR_ONLY = {"leaky_relu": lambda x, s: np.where(x >= 0, x, x * s)}
REDUCE = {"sum": np.sum, "max": np.max, "min": np.min}


def _input(shape, dtype, positive, seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.5, 2.0, shape) if positive else rng.uniform(-2.0, 2.0, shape)
    return x.astype(dtype)


def _check(got, want, dtype):
    np.testing.assert_allclose(np.asarray(got, np.float32), want.astype(np.float32),
                               **TOL[dtype])


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(tilejitd, name, dtype, shape):
    a = _input(shape, dtype, name in POSITIVE, 1)
    want = UNARY[name](a.astype(np.float32))
    _check(tile_ops.unary(*shape, dtype, name)(a), want, dtype)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(tilejitd, name, dtype, shape):
    a = _input(shape, dtype, name in POSITIVE, 2)
    b = _input(shape, dtype, name in POSITIVE, 3)
    want = BINARY[name](a.astype(np.float32), b.astype(np.float32))
    _check(tile_ops.binary(*shape, dtype, name)(a, b), want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(set(BINARY) - {"pow"} | set(SCALAR_ONLY)))
def test_binary_with_a_scalar(tilejitd, name, dtype):
    shape = SHAPES[1]
    a = _input(shape, dtype, name in POSITIVE, 4)
    b = np.zeros(shape, dtype)  # unused by the scalar form
    f = SCALAR_ONLY.get(name) or BINARY[name]
    want = f(a.astype(np.float32), np.float32(1.5))
    _check(tile_ops.binary(*shape, dtype, name, 1.5)(a, b), want, dtype)


INT_DTYPES = ["int16", "uint16", "int32", "uint32"]
BITWISE = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
           "bitwise_xor": np.bitwise_xor}


def _ints(shape, dtype, seed):
    info = np.iinfo(dtype)
    return np.random.default_rng(seed).integers(info.min, info.max, shape, dtype, True)


def _shifted(a, count, left):
    """a << count or a >> count per docs/isa.md (vshls, vshrs), in Python integers."""
    bits = a.dtype.itemsize * 8
    def one(x):
        if left:
            return 0 if count >= 32 else (int(x) << count) & ((1 << bits) - 1)
        return int(x) >> min(count, 63)  # int(x) keeps the sign: arithmetic for signed types
    return np.array([one(x) for x in a.ravel()]).astype(np.int64).astype(a.dtype).reshape(a.shape)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["int16", "uint16"])
@pytest.mark.parametrize("name", sorted(BITWISE))
def test_bitwise(tilejitd, name, dtype, shape):
    a, b = _ints(shape, dtype, 7), _ints(shape, dtype, 8)
    got = tile_ops.binary(*shape, dtype, name)(a, b)
    np.testing.assert_array_equal(got, BITWISE[name](a, b))


@pytest.mark.parametrize("dtype", ["int16", "uint16"])
@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or"])
def test_bitwise_with_a_scalar(tilejitd, name, dtype):
    shape = SHAPES[1]
    a = _ints(shape, dtype, 9)
    got = tile_ops.binary(*shape, dtype, name, 0x5A5)(a, np.zeros(shape, dtype))
    np.testing.assert_array_equal(got, BITWISE[name](a, np.array(0x5A5, dtype)))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["int16", "uint16"])
def test_bitwise_not(tilejitd, dtype, shape):
    a = _ints(shape, dtype, 10)
    np.testing.assert_array_equal(tile_ops.unary(*shape, dtype, "bitwise_not")(a), ~a)


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("name", ["bitwise_lshift", "bitwise_rshift"])
@pytest.mark.parametrize("count", [0, 3, 15, 16, 31, 32, 40])
def test_shift(tilejitd, name, dtype, count):
    shape = SHAPES[1]
    a = _ints(shape, dtype, 11)
    got = tile_ops.binary(*shape, dtype, name, count)(a, np.zeros(shape, dtype))
    np.testing.assert_array_equal(got, _shifted(a, count, name == "bitwise_lshift"))


def test_pow_int32(tilejitd):
    """Exact integer powers, wrapping at 32 bits (7 ** 12 does not fit); a negative exponent
    gives the integer part of the reciprocal (docs/isa.md, vpow)."""
    shape = SHAPES[1]
    rng = np.random.default_rng(12)
    a = rng.integers(-9, 10, shape, np.int32)
    b = rng.integers(0, 13, shape, np.int32)
    b[0, :6], a[0, :6] = [-1, -2, -3, -1, -2, -1], [1, -1, -1, 2, 0, 7]
    want = np.array([pow(int(x), int(y)) if y >= 0 else int(1 / (x ** -y)) if x else 0
                     for x, y in zip(a.ravel(), b.ravel())], np.int64)
    got = tile_ops.binary(*shape, "int32", "pow")(a, b)
    np.testing.assert_array_equal(got, want.astype(np.int32).reshape(shape))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES + INT_DTYPES)
def test_transpose(tilejitd, dtype, shape):
    a = _ints(shape, dtype, 13) if dtype in INT_DTYPES else _input(shape, dtype, False, 13)
    np.testing.assert_array_equal(tile_ops.transpose(*shape, dtype)(a), a.T)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reduce_rows(tilejitd, name, dtype, shape):
    a = _input(shape, dtype, False, 5)
    want = REDUCE[name](a.astype(np.float32), axis=-1)
    tol = dict(rtol=1e-2, atol=2e-2) if dtype == "float16" and name == "sum" else TOL[dtype]
    got = tile_ops.reduce_rows(*shape, dtype, name)(a)
    np.testing.assert_allclose(np.asarray(got, np.float32), want, **tol)


MATH = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x),
        "abs": np.abs}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(MATH))
def test_scalar_math_in_parallel_loops(tilejitd, name, dtype):
    shape = SHAPES[1]
    a = _input(shape, dtype, name in {"log", "sqrt", "rsqrt"}, 6)
    _check(tile_ops.parallel_math(*shape, dtype, name)(a), MATH[name](a.astype(np.float32)),
           dtype)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["mul", "sub", "div"])
def test_row_expand(tilejitd, name, dtype, shape):
    """row_expand_* (and the *_experiment spelling): per-row broadcast of S, per upstream's
    test_row_expand_*_experiment references (a op s.unsqueeze(1))."""
    a = _input(shape, dtype, False, 14)
    s = _input(shape[:1], dtype, True, 15)
    want = BINARY[name](a.astype(np.float32), s.astype(np.float32)[:, None])
    _check(tile_ops.row_expand(*shape, dtype, name)(a, s), want, dtype)


@pytest.mark.parametrize("shape", [(16, 64), (6, 48)])  # (6, 48): 3 float16 blocks per row
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["mul", "sub", "div"])
def test_row_expand_with_a_block_per_row(tilejitd, name, dtype, shape):
    """row_expand_* with src1 one 32-byte block per row and no scratch: upstream's AscendC
    lowering reuses row i's block along row i (repeat stride one block, block stride 0), so
    dst[i, j] = a[i, j] op s[i, j % B]; the block is not uniform here, which pins that."""
    per_block = 32 // np.dtype(dtype).itemsize
    a = _input(shape, dtype, False, 16)
    s = _input((shape[0], per_block), dtype, True, 17)
    want = BINARY[name](a.astype(np.float32), np.tile(s.astype(np.float32), shape[1] // per_block))
    _check(tile_ops.row_expand_block(*shape, dtype, name)(a, s), want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("column", [False, True])
def test_brcb(tilejitd, dtype, column):
    """brcb: element i fills row i, one 32-byte block (upstream's test_brcb_experiment); the
    source may be [R] or [R, 1] (upstream's xattention broadcasts an [R, 1] row maximum)."""
    a = np.arange(1, 65, dtype=dtype)
    got = tile_ops.brcb(64, dtype, column)(a[:, None] if column else a)
    np.testing.assert_array_equal(got, np.repeat(a[:, None], 32 // a.itemsize, axis=1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(REDUCE))
@pytest.mark.parametrize("positional", [False, True])
def test_reduce_real_shape(tilejitd, name, dtype, positional):
    """real_shape=[rows, cols]: only A[:rows, :cols] is reduced and only B[:rows] written
    (upstream's test_reduce_max_tail: the padding of a tail tile never reaches the result)."""
    shape, rows, cols = (16, 64), 11, 40
    a = _input(shape, dtype, False, 16)
    a[rows:, :] = 100
    a[:, cols:] = 100  # padding that must not count
    want = np.zeros(shape[0], np.float32)
    want[:rows] = REDUCE[name](a[:rows, :cols].astype(np.float32), axis=-1)
    tol = dict(rtol=1e-2, atol=2e-2) if dtype == "float16" and name == "sum" else TOL[dtype]
    got = tile_ops.reduce_real_shape(*shape, dtype, name, rows, cols, positional)(a)
    np.testing.assert_allclose(np.asarray(got, np.float32), want, **tol)


@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reduce_real_shape_into_a_longer_vector(tilejitd, name):
    """A destination longer than the reduced rows takes the results in its first elements
    (upstream's examples/reduce/example_row_reduce_max_slice_buffer.py: [4, 4] of a [4, 8]
    tile into a [1, 8] row, compared on output[:, :4])."""
    shape, rows, cols = (16, 64), 11, 40
    a = _input(shape, "float32", False, 18)
    want = np.zeros(32, np.float32)
    want[:rows] = REDUCE[name](a[:rows, :cols], axis=-1)
    got = tile_ops.reduce_real_shape(*shape, "float32", name, rows, cols, False, out=32)(a)
    np.testing.assert_allclose(got, want, **TOL["float32"])


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["EQ", "NE", "LT", "LE", "GT", "GE"])
def test_compare_select_with_scalars(tilejitd, mode, dtype, shape):
    """compare against a scalar and select with a scalar (AscendC CompareScalar, Select in
    tensor-scalar mode) into a mask with no byte to spare (upstream's test_compare_scalar)."""
    a = np.round(_input(shape, dtype, False, 17) * 2) / 2  # halves, so EQ and NE see both
    ops = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
           "GT": np.greater, "GE": np.greater_equal}
    want = np.where(ops[mode](a, np.array(0.5, dtype)), a, np.array(-3.0, dtype))
    got = tile_ops.compare_select_scalar(*shape, dtype, mode, 0.5, -3.0)(a)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_clamp(tilejitd, dtype, shape):
    """clamp(out, in, min, max, count) = torch.clamp (upstream's test_clamp reference)."""
    a = _input(shape, dtype, False, 18)
    got = tile_ops.clamp(*shape, dtype, -0.75, 1.25)(a)
    _check(got, np.clip(a.astype(np.float32), -0.75, 1.25), dtype)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [True, False])
def test_clamp_bound(tilejitd, dtype, shape, upper):
    """clamp_max(out, in, s, count) = torch.clamp_max(in, s), clamp_min = torch.clamp_min
    (AscendC ClampMax / ClampMin, half and float; upstream's docstrings in ascend_tile.py)."""
    a = _input(shape, dtype, False, 26)
    got = tile_ops.clamp_bound(*shape, dtype, upper, 0.25)(a)
    bound = np.array(0.25, dtype)
    np.testing.assert_array_equal(got, np.minimum(a, bound) if upper else np.maximum(a, bound))


@pytest.mark.parametrize("shape,per_row", [((16, 64), False), ((16, 64), True), ((6, 40), True)])
@pytest.mark.parametrize("dtype", DTYPES + INT_DTYPES)
def test_gather(tilejitd, dtype, shape, per_row):
    """gather(dst, src, offsets, base): dst[i] = src at byte offsets[i] (AscendC Gather, uint32
    byte offsets; upstream's generate_golden_gather divides them by the element size)."""
    a = _ints(shape, dtype, 19) if dtype in INT_DTYPES else _input(shape, dtype, False, 19)
    rows, cols = shape[0] // 2, shape[1]
    rng = np.random.default_rng(20)
    width = cols if per_row else rows * cols  # the table one gather reads
    idx = rng.integers(0, width, shape)
    offsets = (idx * a.itemsize).astype(np.uint32)
    want = np.empty_like(a)
    for half in range(2):
        rows_of = slice(half * rows, (half + 1) * rows)
        table, picks = a[rows_of], idx[rows_of]
        if per_row:
            want[rows_of] = np.take_along_axis(table, picks, axis=1)
        else:
            want[rows_of] = table.ravel()[picks]
    np.testing.assert_array_equal(tile_ops.gather(*shape, dtype, per_row)(a, offsets), want)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_mul_add_dst(tilejitd, dtype, shape):
    """mul_add_dst(dst, src0, src1): dst = src0 * src1 + dst (AscendC MulAddDst, half and
    float on Atlas A2; upstream's test_mul_add_dst compares with a * b + c)."""
    a, b, c = (_input(shape, dtype, False, 22 + i) for i in range(3))
    want = a.astype(np.float32) * b.astype(np.float32) + c.astype(np.float32)
    got = tile_ops.mul_add_dst(*shape, dtype)(a, b, c)
    np.testing.assert_allclose(np.asarray(got, np.float32), want, **TOL[dtype])


def test_parallel_branch_per_element_runs_serially(tilejitd):
    """if/else in a T.Parallel body (upstream's test_parallel_if_else_serial_fallback) runs as
    scalar code and gives the element-wise result."""
    a = _input((40,), "float32", False, 25)
    np.testing.assert_array_equal(tile_ops.relu_by_branches(40)(a), np.maximum(a, 0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(16, 64), (14, 40)])  # 40: rows of a partial 32-byte block
def test_parallel_rows_gathered_through_an_index_buffer(tilejitd, dtype, shape):
    """c[i, j] = a[idx[i], j] * b[i, j] (upstream's parallel discrete tests; their torch
    reference gathers along dim 0 within each vector core's rows)."""
    M, N = shape
    a, b = (_input(shape, dtype, False, 26 + i) for i in range(2))
    rng = np.random.default_rng(28)
    idx = np.concatenate([rng.permutation(M // 2) for _ in range(2)]).astype(np.int32)
    rows = idx + np.repeat([0, M // 2], M // 2)
    want = a[rows].astype(np.float32) * b.astype(np.float32)
    got = tile_ops.gather_rows(M, N, dtype)(a, b, idx)
    np.testing.assert_allclose(np.asarray(got, np.float32), want, **TOL[dtype])


GATHER_PATTERNS = {"P0101": (2, 0), "P1010": (2, 1), "P0001": (4, 0), "P0010": (4, 1),
                   "P0100": (4, 2), "P1000": (4, 3), "P1111": (1, 0)}


@pytest.mark.parametrize("dtype", DTYPES + INT_DTYPES)
@pytest.mark.parametrize("mode,length", [(m, 256) for m in sorted(GATHER_PATTERNS)] +
                         [("P0101", 120), ("P1000", 122)])  # partial last blocks
def test_gather_mask(tilejitd, mode, dtype, length):
    """gather_mask(dst, src, mode): the elements a built-in pattern keeps, packed at the start
    of dst (AscendC GatherMask's fixed src1Pattern modes 1..7; upstream's test_gathermask
    checks P0101 as a[:, ::2]). bfloat16 moves bits like int16 and is not in NumPy."""
    a = _ints((length,), dtype, 21) if dtype in INT_DTYPES else _input((length,), dtype, False, 21)
    period, phase = GATHER_PATTERNS[mode]
    kept = a[phase::period]
    want = np.zeros_like(a)
    want[:len(kept)] = kept
    np.testing.assert_array_equal(tile_ops.gather_mask(length, dtype, mode)(a), want)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES + INT_DTYPES)
def test_createvecindex(tilejitd, dtype, shape):
    """createvecindex(dst, first): first, first + 1, ... (AscendC CreateVecIndex; upstream's
    test_createvecindex reference is torch.arange), here with a runtime first value."""
    want = (np.arange(shape[0] * shape[1]) + 5).reshape(shape).astype(dtype)
    np.testing.assert_array_equal(tile_ops.createvecindex(*shape, dtype, 5)(), want)


@pytest.mark.parametrize("dtype,first,diff", [("float32", 1.5, 0.25), ("float16", -2.0, 0.5),
                                              ("int32", 7, -3), ("int16", 0, 2)])
def test_arith_progression(tilejitd, dtype, first, diff):
    """arith_progression(buf, first, diff, count): first + i * diff (AscendC ArithProgression;
    upstream's test_generate_arithmetic_progression)."""
    n = 200
    want = (first + np.arange(n) * diff).astype(dtype)
    np.testing.assert_array_equal(tile_ops.arith_progression(n, dtype, first, diff)(), want)


@pytest.mark.parametrize("dtype,shape", [("float32", (4, 64)), ("float16", (3, 40)),
                                         ("int32", (2, 24)), ("int16", (5, 16))])
def test_atomic_add_from_ub(tilejitd, dtype, shape):
    """atomic_add(dst_gm, src_ub) adds into what GM holds (AscendC SetAtomicAdd around a
    DataCopy out; upstream's test_tile_atomic_add: zeroed GM ends at blocks * VEC_NUM)."""
    blocks = 3
    c = np.full(shape, 10, dtype)
    tile_ops.atomic_add_ub(blocks, *shape, dtype)(c)
    want = 10 + 2 * sum(range(1, blocks + 1))  # both AIVs of each block add cid + 1
    np.testing.assert_array_equal(c, np.full(shape, want, dtype))


def test_atomic_add_from_l0c(tilejitd):
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
    b = rng.uniform(-1, 1, (32, 16)).astype(np.float16)
    c = np.ones((16, 16), np.float32)
    tile_ops.atomic_add_l0c(4, 16, 16, 32)(a, b, c)
    want = 1 + 4 * (a.astype(np.float32) @ b.astype(np.float32))
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)


def test_atomic_add_needs_a_gm_destination(tilejitd):
    with pytest.raises(tilejit.CompileError, match="T.tile.atomic_add adds into a GM tensor"):
        tile_ops.atomic_add_to_ub(16, 16)(np.zeros((16, 16), np.float32))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_round(tilejitd, dtype, shape):
    """round(out, buffer, count): to the nearest integer, halves to even (AscendC Round;
    upstream's deepseek_v4/act_quant.py rounds before casting to int8; docs/isa.md vround)."""
    rng = np.random.default_rng(11)
    a = (rng.integers(-40, 40, shape) / 4).astype(dtype)  # every quarter: .25, .5, .75 all met
    np.testing.assert_array_equal(tile_ops.round_tile(*shape, dtype)(a), np.round(a))


@pytest.mark.parametrize("shape", SHAPES)
def test_set_deq_scale_scales_int32_to_half_casts(tilejitd, shape):
    """T.set_deq_scale(s) sets DEQSCALE, which AscendC's Cast of int32 to half multiplies by
    (SetDeqScale(half scale), the s322f16 case); it holds until set again, for T.tile.cast
    and for a converting T.copy alike. Upstream's test_cast_scale checks scale 1.0."""
    a = np.random.default_rng(9).integers(-3000, 3000, shape).astype(np.int32)
    b, c = tile_ops.deq_cast(*shape, 0.5, 3.0)(a)
    np.testing.assert_array_equal(b, (a * 0.5).astype(np.float16))
    np.testing.assert_array_equal(c, (a * 3.0).astype(np.float16))
