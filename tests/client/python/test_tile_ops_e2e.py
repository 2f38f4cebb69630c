# SPDX-License-Identifier: Apache-2.0
"""The element-wise T.tile operations and the row reductions against NumPy, through the
language (source -> daemon -> simulated NPU), for float16 and float32, on an aligned shape and
on a tail shape whose rows are not a whole number of 32-byte blocks.

Semantics, per AscendC's vector API (Exp, Ln, Sqrt, Rsqrt, Reciprocal, Abs, Relu, Sigmoid,
Add, Sub, Mul, Div, Max, Min, and the Muls/Adds/Maxs/Mins scalar forms; ReduceSum/Max/Min):
the NumPy expressions below. Inputs stay where each function is defined and well
conditioned (ln, sqrt, rsqrt, reciprocal and div on [0.5, 2]). T.exp, T.log, T.sqrt, T.rsqrt
and T.abs, the scalar intrinsics, are checked inside T.Parallel loops (the compiler makes them
the same vector instructions).
"""
import sys

import numpy as np
import pytest

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
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
}
POSITIVE = {"ln", "sqrt", "rsqrt", "reciprocal", "div"}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
          "max": np.maximum, "min": np.minimum}
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
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_with_a_scalar(tilejitd, name, dtype):
    shape = SHAPES[1]
    a = _input(shape, dtype, name in POSITIVE, 4)
    b = np.zeros(shape, dtype)  # unused by the scalar form
    want = BINARY[name](a.astype(np.float32), np.float32(1.5))
    _check(tile_ops.binary(*shape, dtype, name, 1.5)(a, b), want, dtype)


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
