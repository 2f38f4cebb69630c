# SPDX-License-Identifier: Apache-2.0
"""The compatibility path (client/python/compat first on sys.path): TileLang-Ascend's module
paths resolve to tilejit's own modules, the shared kernel files run with no change at all
(on torch tensors on the simulated npu, as an Ascend script would, and on NumPy), and names a
file imports but never uses raise only if called. Its own interpreter (CTest runs one per
file): the compat path installs the simulated npu into torch for the whole process.
"""
import os
import sys

from conftest import COMPAT_DIR, kernels_dir

sys.path.insert(0, COMPAT_DIR)

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import kernel_files as kf  # noqa: E402

KERNELS = kernels_dir()
CASES = kf.cases(KERNELS)
pytestmark = pytest.mark.timeout(300)


def test_tilelang_module_paths_are_tilejits_modules():
    import tilelang
    import tilelang.language as T
    from tilelang import language as T2
    import tilelang.language.reduce_ascend as reduce_ascend
    import tilelang.cache
    import tilelang.utils.target
    import tvm
    import tvm.tir
    from tilelang.intrinsics import make_nz_layout, make_zn_layout
    import tilejit
    import tilejit.language
    assert tilelang is tilejit and T is tilejit.language and T2 is T
    assert reduce_ascend is tilejit.language.reduce_ascend
    assert tilelang.cache is tilejit.cache and tvm is tilejit.tvm and tvm.tir is tilejit.tvm.tir
    assert tilelang.tvm.tir is tvm.tir and tilelang.utils.target is tilejit.utils.target
    assert issubclass(tilejit.CompileError, tvm.TVMError)
    assert tilelang.language.__spec__.name == "tilejit.language"  # the alias left it alone
    for unused in (tvm.tir.Var, tilelang.intrinsics.make_col_major_layout):
        with pytest.raises(NotImplementedError, match="not provided by tilejit"):
            unused(1)
    for device_only in (make_zn_layout, make_nz_layout):  # builtins used in T.annotate_layout
        with pytest.raises(tilejit.DeviceOnlyError, match="tilelang.intrinsics.make_.._layout"):
            device_only(1)
    from tilelang.profiler import do_bench  # a stand-in module: importable, raises if called
    with pytest.raises(NotImplementedError, match="tilelang.profiler.do_bench"):
        do_bench(lambda: None)
    with pytest.raises(tilejit.DeviceOnlyError, match="T.copy can only be used inside"):
        T.copy(1, 2)
    with pytest.raises(ImportError):
        import tilelang.no_such_module  # noqa: F401


def test_determine_platform_follows_tilelang():
    from tilelang.utils.target import determine_platform
    assert [determine_platform(p) for p in ("A2", "A3", "A5")] == ["A2", "A3", "A5"]
    with pytest.raises(ValueError):
        determine_platform("B7")


def test_compat_path_turns_the_npu_on():
    import tilelang  # noqa: F401
    import tilejit.npu
    assert tilejit.npu.is_installed() and torch.randn(2).npu().device.type == "npu"


def test_kernel_without_inputs_returns_an_npu_tensor(tilejitd):
    # TileLang's kernels return device tensors; with no input to follow, the output is on the
    # npu the compatibility path installed (upstream's test_fill / test_clear call func()).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "userfiles"))
    import fill_only
    out = fill_only.filled(32, 64, 3.0)()
    assert isinstance(out, torch.Tensor) and out.device.type == "npu"
    torch.testing.assert_close(out, torch.full((32, 64), 3.0).npu())


@pytest.fixture(scope="module")
def kernel_modules(tilejitd):
    return {name: kf.load(os.path.join(KERNELS, name), "compat_" + name[:-3])
            for name in sorted({c["file"] for c in CASES})}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["file"][:-3] + str(c["args"][0]))
def test_unchanged_file_runs(kernel_modules, case):
    import tilelang
    mod = kernel_modules[case["file"]]
    assert mod.tilelang is tilelang and mod.T is tilelang.language
    kernel = getattr(mod, case["entry"])(*case["args"])
    inputs = kf.inputs_of(case)
    if case["expect"] == "race":
        kernel.check_mode = "checked"
        with pytest.raises(tilelang.KernelFindingError, match=case["file"]):
            kernel(*inputs)
        return
    want = kf.reference(KERNELS, case, inputs)
    on_npu = [torch.from_numpy(x).npu() for x in inputs]
    out = kernel(*on_npu)
    outs = out if isinstance(out, list) else [out]
    assert all(o.device.type == "npu" for o in outs)
    for got, w in zip(outs, want):
        np.testing.assert_allclose(got.cpu().float().numpy(), w, rtol=case["rtol"],
                                   atol=case["atol"])
    got = kernel(*inputs)
    np.testing.assert_allclose((got if not isinstance(got, list) else got[0]).astype(np.float32),
                               want[0], rtol=case["rtol"], atol=case["atol"])
