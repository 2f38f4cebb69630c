# SPDX-License-Identifier: Apache-2.0
"""T.sync_all on the simulated NPU (checked mode): a launch-wide rendezvous orders one block's
GM writes before every other block's reads (AscendC's SyncAll<false>, as upstream's
xattention uses it to merge per-core results); without it the same kernel races."""
import sys

import numpy as np
import pytest
import tilejit

from conftest import HERE

sys.path.insert(0, HERE + "/userfiles")
import grid_sync  # noqa: E402

pytestmark = pytest.mark.timeout(300)


@pytest.mark.parametrize("n,N", [(4, 64), (6, 40)])
def test_every_block_reads_what_all_blocks_wrote_before_sync_all(tilejitd, monkeypatch, n, N):
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    x = np.random.default_rng(n).uniform(-1, 1, (n, N)).astype(np.float32)
    got = grid_sync.row_sums_everywhere(n, N)(x)
    want = np.broadcast_to(x.sum(axis=1), (n, n))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_without_sync_all_the_blocks_race(tilejitd, monkeypatch):
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    x = np.ones((4, 64), np.float32)
    with pytest.raises(tilejit.KernelFindingError, match="inter-block"):
        grid_sync.row_sums_everywhere(4, 64, sync=False)(x)
