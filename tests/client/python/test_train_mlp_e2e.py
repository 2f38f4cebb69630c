# SPDX-License-Identifier: Apache-2.0
"""Acceptance 4 (issue 13): client/python/examples/train_mlp.py runs for a few steps against a
real tilejitd and ends within 1% of the same model on torch.matmul (the script checks that
itself and exits 1 otherwise)."""
import os
import subprocess
import sys

import pytest

from conftest import PYTHON_DIR

pytestmark = pytest.mark.timeout(300)
SCRIPT = os.path.join(PYTHON_DIR, "examples", "train_mlp.py")


def test_train_mlp_matches_torch_matmul(tilejitd):
    env = dict(os.environ, TILEJIT_SERVER=tilejitd.address)
    r = subprocess.run([sys.executable, SCRIPT, "--steps", "5"], env=env, capture_output=True,
                       text=True, timeout=280)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "one BatchCompile" in r.stdout and "(within 1%)" in r.stdout, r.stdout
    losses = [line.split() for line in r.stdout.splitlines() if line[:4].strip().isdigit()]
    assert len(losses) >= 3 and float(losses[-1][1]) < float(losses[0][1])
