# SPDX-License-Identifier: Apache-2.0
"""Every kernel of the shared cases.json (and of the back end's own Expert-mode
cases in tests/testdata/expert_kernels), compiled and run by the offline CLI
(`tilejit run`) on the simulated NPU, checked against reference.py.

Inputs follow cases.json: numpy.random.default_rng(seed).standard_normal(shape)
cast to dtype, generated in order. 'match' cases must agree within rtol/atol in
checked mode with no finding, and also in perturbed mode (three seeds); 'race'
cases must compile and report a data race naming the racing statements' source
lines.

Run: python3 -m pytest tests/e2e/shared_kernels_test.py (TILEJIT_CLI and
TILEJIT_KERNELS_DIR name the CLI binary and the kernels folder).
"""
import importlib.util
import json
import os
import re
import subprocess

import numpy as np
import pytest

CLI = os.environ.get("TILEJIT_CLI", "build/client/tilejit")
KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")
# The back end's own Expert-mode kernels (softmax, layer norm, ...), same schema.
EXPERT = os.environ.get("TILEJIT_EXPERT_KERNELS_DIR", "tests/testdata/expert_kernels")
PERTURB_SEEDS = (1, 2, 3)


def _cases():
    params = []
    for folder in (KERNELS, EXPERT):
        with open(os.path.join(folder, "cases.json")) as f:
            for c in json.load(f)["cases"]:
                c["dir"] = folder
                params.append(pytest.param(
                    c, id=f"{c['file'][:-3]}-{'x'.join(map(str, c['args']))}"))
    return params


def _reference(case):
    """The case folder's own reference.py when it defines the name, else the shared one."""
    for folder in (case["dir"], KERNELS):
        path = os.path.join(folder, "reference.py")
        if not os.path.exists(path):
            continue
        spec = importlib.util.spec_from_file_location("reference", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        if hasattr(mod, case["reference"]):
            return getattr(mod, case["reference"])
    raise KeyError(case["reference"])


def _inputs(case, tmp_path):
    rng = np.random.default_rng(case["seed"])
    arrays, paths = [], []
    for i, spec in enumerate(case["inputs"]):
        a = rng.standard_normal(spec["shape"]).astype(spec["dtype"])
        path = tmp_path / f"in{i}.npy"
        np.save(path, a)
        arrays.append(a)
        paths.append(str(path))
    return arrays, paths


def _run(case, in_paths, out_dir, *mode):
    cmd = [CLI, "run", os.path.join(case["dir"], case["file"]), "--entry", case["entry"]]
    for a in case["args"]:
        cmd += ["--arg", str(a)]
    for p in in_paths:
        cmd += ["--in", p]
    cmd += ["--out", str(out_dir), *mode]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("case", _cases())
def test_shared_kernel(case, tmp_path):
    arrays, in_paths = _inputs(case, tmp_path)
    if case["expect"] == "race":
        r = _run(case, in_paths, tmp_path, "--check")
        assert r.returncode == 1, r.stdout + r.stderr
        races = [l for l in r.stdout.splitlines() if l.startswith("race:") and "RAW" in l]
        assert races, r.stdout
        # A RAW race names both instructions and both statements by the caller's file:line.
        assert any(len(re.findall(re.escape(case["file"]) + r":\d+:\d+", l)) >= 2
                   for l in races), r.stdout
        return
    expected = _reference(case)(*arrays)
    for mode in (["--check"], *(["--perturb", str(s)] for s in PERTURB_SEEDS)):
        out_dir = tmp_path / ("out_" + "_".join(mode).strip("-"))
        out_dir.mkdir()
        r = _run(case, in_paths, out_dir, *mode)
        assert r.returncode == 0, " ".join(mode) + "\n" + r.stdout + r.stderr
        for i, want in enumerate(expected):
            got = np.load(out_dir / f"out{i}.npy").astype(np.float32)
            np.testing.assert_allclose(got, want, rtol=case["rtol"], atol=case["atol"],
                                       err_msg=f"{case['file']} output {i} ({mode})")


@pytest.mark.parametrize("case", _cases())
def test_binary_is_byte_identical_across_processes(case, tmp_path):
    outs = []
    for i in range(2):
        out = tmp_path / f"k{i}.o"
        cmd = [CLI, "compile", os.path.join(case["dir"], case["file"]), "--entry",
               case["entry"], "-o", str(out)]
        for a in case["args"]:
            cmd += ["--arg", str(a)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert outs[0][:4] == b"\x7fELF"
