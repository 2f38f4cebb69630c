# SPDX-License-Identifier: Apache-2.0
"""`tilejit run` prints what T.printf / T.dump_tensor printed on the device before its report,
and keeps doing so when the run has findings (a print is how one debugs them).

Run: python3 -m pytest tests/e2e/cli_device_print_test.py (TILEJIT_CLI names the CLI)."""
import os
import subprocess

import numpy as np
import pytest

CLI = os.environ.get("TILEJIT_CLI", "build/client/tilejit")

pytestmark = pytest.mark.timeout(120)

KERNEL = '''
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scaled(N=16, racy=False):
    @T.prim_func
    def main(X: T.Tensor((N,), "float32"), Y: T.Tensor((2 * N,), "float32")):
        with T.Kernel(2, threads=1, is_npu=True) as (cid):
            x = T.alloc_ub((N,), "float32")
            T.printf("block %d of %d\\n", cid, 2)
            T.copy(X, x)
            if not racy:
                T.barrier_all()
            T.tile.mul(x, x, 2.0)
            T.barrier_all()
            T.copy(x, Y[cid * N])
            T.dump_tensor(x, 42, 4)

    return main
'''


def _run(tmp_path, *extra):
    src = tmp_path / "scaled.py"
    src.write_text(KERNEL)
    x = np.arange(16, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    cmd = [CLI, "run", str(src), "--entry", "scaled", "--in", str(tmp_path / "x.npy"),
           "--out", str(tmp_path), "--check", *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=100)


def test_the_device_output_comes_before_the_report(tmp_path):
    r = _run(tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    want = "".join(f"[block {b} aiv0] block {b} of 2\n"
                   f"[block {b} aiv0] dump desc=42 ub float32[4] at 0:\n"
                   f"[block {b} aiv0]   0 2 4 6\n" for b in (0, 1))
    assert r.stdout.startswith("device output:\n" + want + "status: OK\n"), r.stdout
    np.testing.assert_array_equal(np.load(tmp_path / "out0.npy"), np.tile(np.arange(16) * 2, 2))


def test_a_run_with_findings_still_shows_what_was_printed(tmp_path):
    r = _run(tmp_path, "--kwarg", "racy=True")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.startswith("device output:\n[block 0 aiv0] block 0 of 2\n"), r.stdout
    assert "\nrace: " in r.stdout
