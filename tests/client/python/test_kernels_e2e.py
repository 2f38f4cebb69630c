# SPDX-License-Identifier: Apache-2.0
"""Acceptance 1 (issue 13): every shared kernel file runs through the package with only its
import lines changed (`import tilejit as tilelang`, `import tilejit.language as T`), against
a real tilejitd (the session's, conftest.py), on NumPy arrays and on torch tensors, in both
calling conventions (inputs only: outputs allocated and returned; every parameter: outputs
written in place), matching reference.py as cases.json says; the racy file raises in checked
mode naming its racing lines. test_compat_e2e.py runs the same files unchanged.
"""
import os
import re

import numpy as np
import pytest
import torch

import kernel_files as kf
from conftest import kernels_dir

import tilejit

KERNELS = kernels_dir()
CASES = kf.cases(KERNELS)
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def modules(tilejitd, tmp_path_factory):
    """Each kernel file with tilejit's import lines, imported as a module."""
    folder = tmp_path_factory.mktemp("kernels")
    out = {}
    for name in sorted({c["file"] for c in CASES}):
        with open(os.path.join(KERNELS, name)) as f:
            text = f.read()
        path = folder / name
        path.write_text(kf.with_tilejit_imports(text))
        out[name] = (kf.load(str(path), "tj_kernel_" + name[:-3]), str(path), text)
    return out


def _case_id(case):
    return f"{case['file'][:-3]}-{'x'.join(str(a) for a in case['args'])}"


def _every_param_args(kernel, inputs, make):
    """The arguments of the every-parameter convention, in parameter order (inputs consumed
    in order, outputs made by `make(param)`), and the outputs in out_idx order."""
    it, args, by_index = iter(inputs), [], {}
    for p in kernel.params:
        if p.role != "workspace":
            x = by_index[p.index] = next(it) if p.role == "input" else make(p)
            args.append(x)
    return args, [by_index[i] for i in kernel.out_idx]


def _check(case, got, want):
    got = got if isinstance(got, list) else [got]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g = g.float().numpy() if isinstance(g, torch.Tensor) else g.astype(np.float32)
        np.testing.assert_allclose(g, w, rtol=case["rtol"], atol=case["atol"],
                                   err_msg=f"{case['file']} output {i}")


@pytest.mark.parametrize("case", [c for c in CASES if c["expect"] == "match"], ids=_case_id)
def test_kernel_matches_reference_in_both_conventions(modules, case):
    mod, _, _ = modules[case["file"]]
    kernel = getattr(mod, case["entry"])(*case["args"])
    inputs = kf.inputs_of(case)
    want = kf.reference(KERNELS, case, inputs)

    # NumPy, inputs only: outputs are allocated and returned.
    out = kernel(*inputs)
    assert isinstance(out, np.ndarray) or all(isinstance(o, np.ndarray) for o in out)
    _check(case, out, want)
    assert kernel.last_launch.ok and kernel.last_launch.cycles > 0

    # NumPy, every parameter: outputs written in place and returned.
    args, outs = _every_param_args(
        kernel, inputs, lambda p: np.full(p.shape, np.nan, dtype=np.dtype(p.dtype)))
    ret = kernel(*args)
    _check(case, outs if len(outs) > 1 else outs[0], want)
    assert (ret is outs[0]) if len(outs) == 1 else all(a is b for a, b in zip(ret, outs))

    # torch, both conventions: torch in, torch out.
    tensors = [torch.from_numpy(x) for x in inputs]
    out = kernel(*tensors)
    assert isinstance(out, torch.Tensor) or all(isinstance(o, torch.Tensor) for o in out)
    _check(case, out, want)
    args, outs = _every_param_args(
        kernel, tensors, lambda p: torch.full(p.shape, float("nan"), dtype=p.torch_dtype))
    kernel(*args)
    _check(case, outs if len(outs) > 1 else outs[0], want)


def test_every_file_has_a_case():
    files = {f for f in os.listdir(KERNELS) if f.endswith(".py") and f != "reference.py"}
    assert files == {c["file"] for c in CASES}


@pytest.mark.parametrize("case", [c for c in CASES if c["expect"] == "race"], ids=_case_id)
def test_racy_kernel_raises_in_checked_mode_naming_its_lines(modules, case):
    mod, path, text = modules[case["file"]]
    kernel = getattr(mod, case["entry"])(*case["args"])
    inputs = kf.inputs_of(case)
    kernel.check_mode = "checked"
    try:
        with pytest.raises(tilejit.KernelFindingError) as info:
            kernel(*inputs)
    finally:
        kernel.check_mode = None
    races = [m for kind, _, m in info.value.findings if kind == "race"]
    assert races, info.value
    named = {int(n) for m in races for n in re.findall(re.escape(path) + r":(\d+):", m)}
    racing = {kf.line_of(text, s) for s in ("T.copy(A[row, col], a_ub)",
                                            "T.copy(B[row, col], b_ub)",
                                            "T.tile.add(c_ub, a_ub, b_ub)",
                                            "T.copy(c_ub, C[row, col])")}
    assert len(named) >= 2 and named <= racing, (named, racing, races[0])
    assert str(path) in str(info.value)


def test_tilejit_check_turns_checked_mode_on(modules, monkeypatch):
    case = next(c for c in CASES if c["expect"] == "race")
    mod, path, _ = modules[case["file"]]
    monkeypatch.setenv("TILEJIT_CHECK", "1")  # read when a kernel object is made
    tilejit.cache.disable_cache()
    try:
        kernel = getattr(mod, case["entry"])(*case["args"])
    finally:
        tilejit.cache.enable_cache()
    assert kernel.check_mode == "checked"
    with pytest.raises(tilejit.KernelFindingError, match=re.escape(path)):
        kernel(*kf.inputs_of(case))
    monkeypatch.delenv("TILEJIT_CHECK")
    fast = getattr(mod, case["entry"])(*case["args"])
    assert fast.check_mode == "fast"
    fast(*kf.inputs_of(case))  # fast mode runs the racy kernel without findings


def test_remote_launch_gives_the_same_result(modules, monkeypatch):
    case = next(c for c in CASES if c["file"] == "softmax_mixed.py")
    mod, _, _ = modules[case["file"]]
    inputs = kf.inputs_of(case)
    monkeypatch.setenv("TILEJIT_LAUNCH", "remote")  # read when a kernel object is made
    tilejit.cache.disable_cache()
    try:
        kernel = getattr(mod, case["entry"])(*case["args"])
    finally:
        tilejit.cache.enable_cache()
    assert kernel.launch_mode == "remote" and kernel._module is None  # never fetched
    _check(case, kernel(*inputs), kf.reference(KERNELS, case, inputs))
    _check(case, kernel(*[torch.from_numpy(x) for x in inputs]),
           kf.reference(KERNELS, case, inputs))
    assert kernel.last_launch.ok and kernel.last_launch.cycles > 0
    racy = next(c for c in CASES if c["expect"] == "race")
    kernel = getattr(modules[racy["file"]][0], racy["entry"])(*racy["args"])
    kernel.launch_mode, kernel.check_mode = "remote", "checked"
    with pytest.raises(tilejit.KernelFindingError, match=re.escape(modules[racy["file"]][1])):
        kernel(*kf.inputs_of(racy))  # the daemon locates its findings by request digest
    kernel.launch_mode, kernel.check_mode = "local", None
