# SPDX-License-Identifier: Apache-2.0
"""One binary per T.symbolic kernel serves every shape, offline: each kernel of
symbolic_kernels.SPECS is compiled once to kernel.o, and `tilejit run kernel.o` (no daemon)
runs it at every size of SIZES, checked (race detector) and perturbed (pipes reordered),
matching NumPy each time.

Run: python3 -m pytest tests/e2e/symbolic_test.py (TILEJIT_CLI names the CLI)."""
import os
import subprocess

import numpy as np
import pytest

from symbolic_kernels import SIZES, SPECS, cli_args, save_inputs

CLI = os.environ.get("TILEJIT_CLI", "build/client/tilejit")

pytestmark = pytest.mark.timeout(600)


def _cli(*args):
    r = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"tilejit {' '.join(args)}:\n{r.stdout}{r.stderr}"
    return r.stdout


@pytest.fixture(scope="module", params=SPECS, ids=lambda s: s.name)
def compiled(request, tmp_path_factory):
    spec = request.param
    binary = tmp_path_factory.mktemp(spec.name) / "kernel.o"
    _cli("compile", *cli_args(spec), "-o", str(binary))
    return spec, str(binary)


@pytest.mark.parametrize("mode", [["--check"], ["--perturb", "7"]], ids=["checked", "perturbed"])
@pytest.mark.parametrize("size", SIZES)
def test_one_binary_runs_every_size(compiled, size, mode, tmp_path):
    spec, binary = compiled
    paths, arrays = save_inputs(spec, size, tmp_path)
    ins = [a for p in paths for a in ("--in", p)]
    report = _cli("run", binary, *ins, "--out", str(tmp_path), *mode)
    assert f"M={size}" in report, report
    got = np.load(tmp_path / "out0.npy")
    want = spec.reference(*arrays)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), atol=spec.atol,
                               rtol=spec.rtol)

