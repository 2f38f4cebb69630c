# SPDX-License-Identifier: Apache-2.0
"""Tile orders on the simulated NPU: T.Persistent (a fixed number of cores each taking every
wave_size-th tile, in the order of upstream's PersistentFor, tile-ai/tilelang-ascend
src/ir.cc) and T.use_swizzle (CATLASS's GemmIdentityBlockSwizzle::GetBlockCoord, which
upstream lowers it to). Every tile must be visited once (B = A + 1) by the task the
definition gives it (Order)."""
import sys

import numpy as np
import pytest

from conftest import HERE

sys.path.insert(0, HERE + "/userfiles")
import tile_order  # noqa: E402

pytestmark = pytest.mark.timeout(300)


def persistent_tiles(dims, cores, group_size):
    """(task, coordinates) of every task that lands in the grid, by upstream's mixed radix
    [D[n-1] // g, D[0], ..., D[n-2], g] with g = min(group_size, D[n-1])."""
    g = min(group_size, dims[-1])
    radix = [dims[-1] // g] + list(dims[:-1]) + [g]
    total = int(np.prod(dims))
    waves = -(-total // cores)
    out = []
    for t in range(waves * cores):
        if t >= total:
            continue
        digits, rest = [0] * len(radix), t
        for i in range(len(radix) - 1, 0, -1):
            digits[i], rest = rest % radix[i], rest // radix[i]
        digits[0] = rest
        coords = digits[1:len(dims)] + [digits[0] * g + digits[-1]]
        out.append((t, tuple(coords)))
    return out


def swizzle_tile(task, rows, cols, off, direction):
    """GetBlockCoord of CATLASS's GemmIdentityBlockSwizzle<off, direction>, as mIdx * cols +
    nIdx."""
    inner = task % (rows * cols)
    along, across = (rows, cols) if direction == 0 else (cols, rows)
    bands = -(-along // off)
    band, in_band = inner // (off * across), inner % (off * across)
    height = along - off * band if band == bands - 1 else off
    a, c = band * off + in_band % height, in_band // height
    if band % 2 == 1:
        c = across - c - 1
    m, n = (a, c) if direction == 0 else (c, a)
    return m * cols + n


def _a(grid_m, grid_n):
    rng = np.random.default_rng(11)
    return rng.uniform(-1, 1, (grid_m * 8, grid_n * 8)).astype(np.float32)


@pytest.mark.parametrize("grid,cores,group", [((3, 8), 5, 4), ((4, 6), 24, 8), ((2, 3), 4, 8)])
def test_persistent_visits_every_tile_in_upstreams_order(tilejitd, monkeypatch, grid, cores,
                                                         group):
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    a = _a(*grid)
    b, order = tile_order.persistent(*grid, cores, group)(a)
    np.testing.assert_array_equal(b, a + 1)
    want = np.full(grid, -1, np.int32)
    for t, (bx, by) in persistent_tiles(grid, cores, group):
        assert want[bx, by] == -1, "the reference visits a tile twice"
        want[bx, by] = t % cores
    np.testing.assert_array_equal(order, want)


@pytest.mark.parametrize("grid,cores,off,direction",
                         [((4, 4), 3, 2, 0), ((5, 3), 4, 2, 0), ((2, 4), 3, 3, 1), ((6, 4), 5, 4, 1)])
def test_use_swizzle_maps_tasks_like_catlass(tilejitd, monkeypatch, grid, cores, off, direction):
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    a = _a(*grid)
    b, order = tile_order.swizzled(*grid, cores, off, direction)(a)
    np.testing.assert_array_equal(b, a + 1)
    want = np.full(grid, -1, np.int32)
    for task in range(grid[0] * grid[1]):
        tile = swizzle_tile(task, *grid, off, direction)
        assert want.flat[tile] == -1, "the reference maps two tasks to one tile"
        want.flat[tile] = task
    np.testing.assert_array_equal(order, want)
