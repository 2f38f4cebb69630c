# SPDX-License-Identifier: Apache-2.0
"""The sort family against NumPy through the language (source -> daemon -> simulated NPU).

Semantics, per AscendC's Sort32 and MrgSort (proposals of a value and a uint32 index, sorted
descending; for half the value is followed by two reserved bytes) and TileLang-Ascend's tests
and examples of T.tile.sort, sort32, topk (testing/python/language/
test_tilelang_ascend_language_elementwise.py at 95acbd7f) and merge_sort
(examples/sort/example_merge_sort.py): sort and topk return (value, index) pairs in descending
order with the index as a value of the element type, the tail past actual_num padded with -inf;
sort32 sorts each group of 32; merge_sort merges descending float32 (value, index) pair lists.
Where the sources leave a detail open (the order of equal values), the expected values are the
choice docs/isa.md states: equal values keep their source order, earlier lists first.
"""
import sys

import numpy as np
import pytest
import tilejit

from conftest import HERE

sys.path.insert(0, HERE + "/userfiles")
import sort_ops  # noqa: E402

pytestmark = pytest.mark.timeout(120)

DTYPES = ["float16", "float32"]


def _values(n, dtype, seed):
    """Integers in [-20, 20): exact in both dtypes, with ties."""
    return np.random.default_rng(seed).integers(-20, 20, n).astype(dtype)


def _sorted_pairs(a, n, dtype):
    big_n = (n + 31) // 32 * 32
    values = np.full(big_n, -np.inf, np.float32)
    values[:n] = a[:n]
    order = np.argsort(-values, kind="stable")
    pairs = np.empty(2 * big_n, np.float32)
    pairs[0::2] = values[order]
    pairs[1::2] = order
    return pairs.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [131, 64, 1])  # 131: a tail of 29 under -inf, as upstream's test
def test_sort(tilejitd, dtype, n):
    a = _values(n, dtype, 5)
    got = sort_ops.sort(n, dtype)(a.reshape(1, n))
    np.testing.assert_array_equal(got.reshape(-1), _sorted_pairs(a, n, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,k", [(51, 10), (200, 33)])
def test_topk(tilejitd, dtype, n, k):
    a = _values(n, dtype, 6)
    got = sort_ops.topk(n, k, dtype)(a.reshape(1, n))
    np.testing.assert_array_equal(got.reshape(-1), _sorted_pairs(a, n, dtype)[:2 * k])


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort32(tilejitd, dtype):
    rows, cols = 4, 64
    a = _values(rows * cols, dtype, 7).reshape(rows, cols)
    idx = np.random.default_rng(8).integers(0, 2**32, (rows, cols), dtype=np.uint64)
    idx = idx.astype(np.uint32)
    got = sort_ops.sort32(rows, cols, dtype)(a, idx)
    flat_a, flat_i = a.reshape(-1, 32), idx.reshape(-1, 32)
    order = np.argsort(-flat_a.astype(np.float32), axis=1, kind="stable")
    values = np.take_along_axis(flat_a, order, axis=1).reshape(-1)
    indices = np.take_along_axis(flat_i, order, axis=1).reshape(-1)
    if dtype == "float32":
        want = np.empty(2 * values.size, np.uint32)
        want[0::2] = values.view(np.uint32)
        want[1::2] = indices
        np.testing.assert_array_equal(got.reshape(-1).view(np.uint32), want)
    else:
        want = np.zeros(4 * values.size, np.uint16)
        want[0::4] = values.view(np.uint16)
        want[2::4] = indices & 0xFFFF
        want[3::4] = indices >> 16
        np.testing.assert_array_equal(got.reshape(-1).view(np.uint16), want)


def _descending_list(length, seed):
    rng = np.random.default_rng(seed)
    values = np.sort(rng.integers(-30, 30, length).astype(np.float32))[::-1]
    pairs = np.empty(2 * length, np.float32)
    pairs[0::2] = values
    pairs[1::2] = rng.permutation(length)
    return pairs


@pytest.mark.parametrize("lengths", [(64, 64), (64, 32, 48), (64, 64, 64, 64), (33, 6, 20, 5)])  # 39 pairs: the second merged pair starts one pair later
def test_merge_sort(tilejitd, lengths):
    lists = [_descending_list(n, 10 + i) for i, n in enumerate(lengths)]
    inputs = lists + [lists[-1]] * (4 - len(lengths))
    got = sort_ops.merge_sort(list(lengths))(*inputs)
    joined = np.concatenate(lists).reshape(-1, 2)
    want = joined[np.argsort(-joined[:, 0], kind="stable")].reshape(-1)
    np.testing.assert_array_equal(got, want)

