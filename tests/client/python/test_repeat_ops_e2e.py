# SPDX-License-Identifier: Apache-2.0
"""The raw repeat form against NumPy through the language (source -> daemon -> simulated NPU).

Semantics, per AscendC's BlockReduceSum/Max/Min (one result per 32-byte block of each repeat;
dstRepStride counts one repeat's 8 results), WholeReduceSum/Max/Min (one result per repeat, max
and min with the index of the first extreme element as an element-wide unsigned integer, in the
ReduceOrder asked for) and Gatherb (32-byte blocks by byte offset), and TileLang-Ascend's tests
of T.tile.block_reduce_*, wholereduce* and gatherb (testing/python/language/
test_tilelang_ascend_language_elementwise.py at 95acbd7f). Where those sources leave a detail
open (a block with no active element), the expected values are the choice docs/isa.md states:
it has no result, so dst keeps what it held (0 here).
"""
import sys

import numpy as np
import pytest

from conftest import HERE

sys.path.insert(0, HERE + "/userfiles")
import repeat_ops  # noqa: E402

pytestmark = pytest.mark.timeout(120)

DTYPES = ["float16", "float32"]
TOL = {"float16": dict(rtol=2e-3, atol=2e-3), "float32": dict(rtol=1e-5, atol=1e-5)}
FN = {"sum": np.sum, "max": np.max, "min": np.min}


def _active(a, dtype, repeat, mask, src_blk, src_rep):
    """The active elements of each repeat, in element order: [repeat, mask]."""
    es = np.dtype(dtype).itemsize
    epb = 32 // es
    return np.array([[a[(r * src_rep * 32 + (j // epb) * src_blk * 32) // es + j % epb]
                      for j in range(mask)] for r in range(repeat)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", sorted(FN))
@pytest.mark.parametrize("geometry", [(2, None, 1, 1, 8), (3, 100, 2, 1, 8), (2, None, 1, 2, 16)])
def test_block_reduce(tilejitd, dtype, fn, geometry):
    repeat, mask, dst_rep, src_blk, src_rep = geometry
    es = np.dtype(dtype).itemsize
    epb, mask = 32 // es, mask or 256 // es
    mask = min(mask, 256 // es)
    L = ((repeat - 1) * src_rep * 32 + 8 * src_blk * 32) // es
    O = ((repeat - 1) * dst_rep + 1) * 8
    a = np.random.default_rng(3).uniform(-2, 2, L).astype(dtype)
    got = repeat_ops.raw_reduce("block_reduce_" + fn, dtype, L, O, repeat, mask, dst_rep, src_blk,
                                src_rep)(a)
    active = _active(a, dtype, repeat, mask, src_blk, src_rep).astype(np.float32)
    want = np.zeros(O, np.float32)
    for r in range(repeat):
        for k in range((mask + epb - 1) // epb):
            want[r * dst_rep * 8 + k] = FN[fn](active[r, k * epb:(k + 1) * epb])
    np.testing.assert_allclose(got.astype(np.float32), want, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", sorted(FN))
def test_wholereduce(tilejitd, dtype, fn):
    """As upstream's test: mask 64, two repeats of 64 contiguous elements (srcRepStride 4 for
    float16), plus a dstRepStride of 2."""
    es = np.dtype(dtype).itemsize
    repeat, mask, src_rep, dst_rep = 2, 64, 64 * es // 32, 2
    per = 1 if fn == "sum" else 2
    L, O = repeat * mask, repeat * dst_rep * per
    a = np.random.default_rng(4).uniform(-2, 2, L).astype(dtype)
    got = repeat_ops.raw_reduce("wholereduce" + fn, dtype, L, O, repeat, mask, dst_rep, 1,
                                src_rep)(a)
    groups = a.reshape(repeat, mask)
    if fn == "sum":
        want = np.zeros(O, np.float32)
        want[::dst_rep] = groups.astype(np.float32).sum(axis=1)
        np.testing.assert_allclose(got.astype(np.float32), want, **TOL[dtype])
        return
    pick = np.argmax if fn == "max" else np.argmin
    uint = np.uint16 if dtype == "float16" else np.uint32
    bits = got.view(uint)
    for r in range(repeat):
        at = r * dst_rep * 2
        index = pick(groups[r])
        assert got[at] == groups[r][index]
        assert bits[at + 1] == index


@pytest.mark.parametrize("order,fields", [("ORDER_INDEX_VALUE", "iv"), ("ORDER_ONLY_VALUE", "v"),
                                          ("ORDER_ONLY_INDEX", "i")])
def test_wholereduce_orders(tilejitd, order, fields):
    a = np.random.default_rng(5).uniform(-2, 2, 128).astype(np.float32)
    got = repeat_ops.raw_reduce("wholereducemax", "float32", 128, 8, 2, 64, 1, 1, 8, order)(a)
    groups = a.reshape(2, 64)
    bits = got.view(np.uint32)
    for r in range(2):
        at = r * len(fields)
        for f, field in enumerate(fields):
            if field == "v":
                assert got[at + f] == groups[r].max()
            else:
                assert bits[at + f] == np.argmax(groups[r])


@pytest.mark.parametrize("dtype", ["uint16", "uint32"])
@pytest.mark.parametrize("dst_blk,dst_rep", [(1, 8), (2, 16)])
def test_gatherb(tilejitd, dtype, dst_blk, dst_rep):
    """As upstream's test: the table's blocks gathered in reverse order."""
    es = np.dtype(dtype).itemsize
    L, blocks = 1024, 1024 * es // 32
    a = np.arange(L).astype(dtype)
    offsets = (np.arange(blocks)[::-1] * 32).astype(np.uint32)
    O = (((blocks // 8) - 1) * dst_rep + 7 * dst_blk + 1) * 32 // es
    got = repeat_ops.gatherb(dtype, L, blocks, dst_blk, dst_rep, O)(a, offsets)
    want = np.zeros(O, dtype)
    epb = 32 // es
    for b in range(blocks):
        at = ((b // 8) * dst_rep + (b % 8) * dst_blk) * epb
        want[at:at + epb] = a[offsets[b] // es:offsets[b] // es + epb]
    np.testing.assert_array_equal(got, want)
