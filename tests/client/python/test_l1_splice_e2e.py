# SPDX-License-Identifier: Apache-2.0
"""GM -> L1 copies spliced into one L1 tile at any row, checked against NumPy on the simulated
NPU in checked mode (race detector, bounds and initialisation checks). The cases are
TileLang-Ascend's gm_to_l1 splice tests (testing/python/language/
test_tilelang_ascend_language_gm_to_l1.py: 2-way splits at 1, 40 and 127 rows, and 3-way
splices that leave a tail of the tile unfilled, which must read as zero)."""
import sys

import numpy as np
import pytest

from conftest import HERE

sys.path.insert(0, HERE + "/userfiles")
import l1_splice  # noqa: E402

pytestmark = pytest.mark.timeout(300)


@pytest.mark.parametrize("splits,N", [((1, 127, 0), 128), ((40, 88, 0), 128), ((32, 96, 0), 128),
                                      ((16, 16, 16), 64), ((7, 20, 5), 48)])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_spliced_tile_feeds_the_gemm(tilejitd, monkeypatch, splits, N, dtype):
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    rng = np.random.default_rng(sum(splits) + N)
    M, D = 32, 64
    q = rng.uniform(-1, 1, (M, D)).astype(np.float32)
    ks = [rng.uniform(-1, 1, (max(s, 1), D)).astype(np.float32) for s in splits]
    if dtype == "bfloat16":
        torch = pytest.importorskip("torch")
        args = [torch.from_numpy(a).to(torch.bfloat16) for a in [q] + ks]
        q, ks = args[0].float().numpy(), [a.float().numpy() for a in args[1:]]
    else:
        q, ks = q.astype(np.float16), [k.astype(np.float16) for k in ks]
        args = [q] + ks
    got = l1_splice.scores_of_spliced_keys(M, N, D, splits, dtype)(*args)
    got = np.asarray(got.float() if hasattr(got, "float") else got, dtype=np.float32)
    k_full = np.zeros((N, D), np.float32)
    row = 0
    for s, k in zip(splits, ks):
        k_full[row:row + s] = k[:s]
        row += s
    want = q.astype(np.float32) @ k_full.T
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=2e-2)
    assert np.all(got[:, row:] == 0), "columns of S from rows no copy writes must be zero"
