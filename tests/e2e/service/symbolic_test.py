# SPDX-License-Identifier: Apache-2.0
"""T.symbolic kernels through the daemon: `tilejit --server ADDR run FILE` at every size of
symbolic_kernels.SIZES (the kernel source each time, as a training job would send it) costs
one back-end compile per kernel, and every launch, checked, matches NumPy.

Run: python3 -m pytest tests/e2e/service/symbolic_test.py (TILEJITD, TILEJIT_CLI)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from daemon import Daemon

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from symbolic_kernels import SIZES, SPECS, cli_args, save_inputs  # noqa: E402

CLI = os.environ.get("TILEJIT_CLI", "build/client/tilejit")

pytestmark = pytest.mark.timeout(900)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_size_costs_one_compile(spec, tmp_path):
    with Daemon(tmp_path / "cache", metrics=True) as daemon:
        before = daemon.scrape()
        for size in SIZES:
            folder = tmp_path / str(size)
            folder.mkdir()
            paths, arrays = save_inputs(spec, size, folder)
            ins = [a for p in paths for a in ("--in", p)]
            r = subprocess.run([CLI, "--server", daemon.address, "run", *cli_args(spec), *ins,
                                "--out", str(folder), "--check"],
                               capture_output=True, text=True, timeout=300)
            assert r.returncode == 0, f"size {size}:\n{r.stdout}{r.stderr}"
            assert f"M={size}" in r.stdout, r.stdout
            np.testing.assert_allclose(np.load(folder / "out0.npy").astype(np.float32),
                                       spec.reference(*arrays).astype(np.float32),
                                       atol=spec.atol, rtol=spec.rtol, err_msg=f"size {size}")
        after = daemon.scrape()
    compiles = after["tilejit_backend_compiles_total"] - before["tilejit_backend_compiles_total"]
    assert compiles == 1
    launched = 'tilejit_requests_total{method="Launch",code="OK"}'
    assert after[launched] - before.get(launched, 0) == len(SIZES)
