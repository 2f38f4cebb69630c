# SPDX-License-Identifier: Apache-2.0
"""Back-end defects found by running TileLang-Ascend's examples (issue 14), each reproduced
by the kernel in userfiles/backend_defects.py and checked against NumPy on the simulated NPU
in checked mode (race detector and bounds checks on)."""
import sys
import warnings

import numpy as np
import pytest
import tilejit

from conftest import HERE

sys.path.insert(0, HERE + "/userfiles")
import backend_defects  # noqa: E402

pytestmark = pytest.mark.timeout(300)


def test_gemms_one_after_another_share_the_l0_scratch(tilejitd, monkeypatch):
    """Two gemm_v0 calls whose B operands each need all of L0B compile and run: the second
    reuses the bytes of the first (upstream's flash attention with head dim 512 fits)."""
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    rng = np.random.default_rng(5)
    q, k, v = (rng.uniform(-1, 1, s).astype(np.float16) for s in ((32, 512), (64, 512),
                                                                    (64, 512)))
    got = backend_defects.attention_scores_then_values()(q, k, v)
    p = (q.astype(np.float32) @ k.astype(np.float32).T).astype(np.float16)
    want = p.astype(np.float32) @ v.astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-2)


def test_a_declared_workspace_handed_to_the_vectors_is_synced(tilejitd, monkeypatch):
    """Cube -> vector hand-offs through a workspace the kernel declares (workspace_idx) get
    cross-core flags like the compiler's own: the checked run finds no read of GM that was
    never written (upstream's pipeline/flash_attn_bshd_pipeline.py reported one)."""
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    rng = np.random.default_rng(6)
    a = rng.uniform(-1, 1, (192, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64, 64)).astype(np.float16)
    d = rng.uniform(-1, 1, (192, 64)).astype(np.float16)
    got = backend_defects.gemm_plus_through_a_declared_workspace()(a, b, d)
    prod = np.concatenate([(a[s * 64:(s + 1) * 64].astype(np.float32) @ b.astype(np.float32))
                           .astype(np.float16) for s in range(3)])
    want = (prod.astype(np.float32) + d.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-3,
                               atol=2e-3)


def test_developer_kernels_without_pass_configs_are_never_an_internal_error(tilejitd):
    """A Developer-mode kernel with no pass_configs and no syncs compiles with the author
    responsible for syncs (a located warning per unordered dependence), or fails with a located
    diagnostic naming the switch to set; never an internal error."""
    with pytest.warns(tilejit.CompileWarning, match=r"backend_defects.py:\d+:\d+: warning: in "
                      r"the vector program: unordered RAW: `exp\(u, u\)`"):
        backend_defects.developer_vector_without_pass_configs()
    with pytest.raises(tilejit.CompileError) as info:
        backend_defects.developer_cube_to_vector_without_pass_configs()
    d = info.value.diagnostics[0]
    assert d.file.endswith("backend_defects.py") and d.severity == "error"
    assert "TL_ASCEND_AUTO_CV_COMBINE" in d.message and "internal" not in str(info.value)


def test_developer_gemm_without_pass_configs_is_ordered_by_gemm_v0_itself(tilejitd, monkeypatch):
    """gemm_v0 waits for the loads of its operands and the fixpipe waits for it, as the
    vendor's template does: the same kernel with only a gemm needs no author syncs."""
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    rng = np.random.default_rng(12)
    a = rng.uniform(-1, 1, (64, 32)).astype(np.float16)
    b = rng.uniform(-1, 1, (32, 64)).astype(np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tilejit.CompileWarning)
        got = backend_defects.developer_gemm_without_pass_configs()(a, b)
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=2e-3, atol=2e-2)


def test_tiles_of_one_loop_body_share_bytes_when_only_that_fits(tilejitd, monkeypatch):
    """Two UB tiles of one loop body that fit only at the same address (memory_planning's
    fallback lifetimes) give the right values, and the checked run finds no race: the
    second tile waits for the first one's last use, every iteration (upstream's sparse flash
    attention compiles this way)."""
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    rng = np.random.default_rng(8)
    a, c = (rng.uniform(-1, 1, (512, 128)).astype(np.float32) for _ in range(2))
    b, d = backend_defects.two_loop_tiles_filling_ub()(a, c)
    np.testing.assert_array_equal(b, a + 1)
    np.testing.assert_array_equal(d, c * 2)


def test_copies_of_a_gm_region_indexed_in_a_middle_dim(tilejitd, monkeypatch):
    """Q[a:b, h, :] is [R, 1, D]: it copies to and from an [R, D] tile, with the rows a
    tail block lacks clipped (upstream's xattention / lightning indexer were refused)."""
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    q = np.random.default_rng(9).uniform(-1, 1, (40, 3, 64)).astype(np.float32)
    np.testing.assert_array_equal(backend_defects.rows_of_one_head()(q), q + 1)


def test_vector_work_that_does_not_read_vid_is_done_by_one_aiv(tilejitd, monkeypatch):
    """A (cid, vid) kernel whose body never reads vid: one AIV does the vector work, so the
    checked run finds no duplicated GM write (both AIVs wrote Y: a WAW race was reported for
    upstream's activation/sigmoidv2.py and the three merge sorts)."""
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    rng = np.random.default_rng(10)
    x = rng.uniform(-4, 4, (4, 8)).astype(np.float32)
    np.testing.assert_allclose(backend_defects.vector_work_without_vid()(x),
                               1 / (1 + np.exp(-x)), rtol=1e-5, atol=1e-6)
    a, b = (rng.uniform(-0.5, 0.5, (32, 32)).astype(np.float16) for _ in range(2))
    want = np.exp(a.astype(np.float32) @ b.astype(np.float32))
    np.testing.assert_allclose(backend_defects.gemm_then_vector_work_without_vid()(a, b), want,
                               rtol=1e-3, atol=1e-3)


def test_atomic_adds_that_do_not_read_vid_still_run_on_both_aivs(tilejitd, monkeypatch):
    """Atomic adds commute, so a body that does not read vid keeps both AIVs: C gets one add
    per AIV per block, as upstream's atomic_add test expects (blocks * 2)."""
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    c = np.zeros(32, np.float32)
    backend_defects.atomic_add_without_vid()(c)
    np.testing.assert_array_equal(c, np.full(32, 6, np.float32))


@pytest.mark.parametrize("stages", [0, 2, 3])
def test_expert_gemm_v0_waits_for_the_l1_loads_before_it(tilejitd, monkeypatch, stages):
    """gemm_v0 in Expert mode orders itself after the MTE2 loads of its L1 operands and before
    the next ones, as the vendor's template does: upstream's pipeline/gemm_v0_pipeline.py (no
    sync between its loads and the gemm) read L1 never written, with T.Pipelined or without."""
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    rng = np.random.default_rng(11)
    a = rng.uniform(-1, 1, (128, 512)).astype(np.float16)
    b = rng.uniform(-1, 1, (512, 128)).astype(np.float16)
    got = backend_defects.expert_pipelined_gemm(stages=stages)(a, b)
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=2e-3, atol=2e-2)


def test_a_declared_workspace_written_once_and_read_in_pieces_is_synced(tilejitd, monkeypatch):
    """One cube write of a declared workspace read four times by each vector core gets its
    ready flag set once per read, so every read waits for the write (upstream's
    pipeline/matmul_add_pipeline.py read GM never written)."""
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    rng = np.random.default_rng(13)
    a = rng.uniform(-1, 1, (64, 128)).astype(np.float16)
    b = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    d = rng.uniform(-1, 1, (64, 128)).astype(np.float16)
    got = backend_defects.gemm_written_once_read_in_quarters()(a, b, d)
    prod = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    want = (prod.astype(np.float32) + d.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-3,
                               atol=2e-3)


@pytest.mark.parametrize("read_first", [False, True])
@pytest.mark.parametrize("iters", [3, 8])
def test_a_declared_workspace_filled_row_by_row_is_read_after_its_last_row(
        tilejitd, monkeypatch, read_first, iters):
    """The vector cores fill a declared workspace one row per copy and the cube reads it whole
    once per iteration: the ready flag follows the row loop, so each read sees the whole
    iteration's rows (upstream's sparse flash attentions read GM never written). Three
    iterations are unrolled by multi_buffer (three row loops); eight stay a loop around the
    row loop."""
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    rng = np.random.default_rng(17)
    x = rng.uniform(-1, 1, (iters, 32, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64, 64)).astype(np.float16)
    got = backend_defects.rows_staged_through_a_workspace(read_first, iters=iters)(x, b)
    want = x.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-2)


def test_a_ub_vector_that_only_moves_gm_rows_is_split_between_the_aivs(tilejitd, monkeypatch):
    """A threads=2 gather through a UB vector: each AIV moves half of every row, so no GM byte
    is written twice (it was refused as replicated and written to GM)."""
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    rng = np.random.default_rng(23)
    kv = rng.uniform(-1, 1, (64, 64)).astype(np.float16)
    idx = rng.integers(0, 64, 32).astype(np.int32)
    got = backend_defects.gather_rows_through_ub()(kv, idx)
    np.testing.assert_array_equal(got, np.broadcast_to(kv[idx], (2, 32, 64)))
