# SPDX-License-Identifier: Apache-2.0
"""T.symbolic through the Python package (issue 15): one compiled kernel object serves every
value of its symbols, launched locally (the C runtime) and through the daemon's Launch; the
outputs it allocates take their shapes from the inputs; the metadata names the symbols; and
inputs that disagree on a symbol raise before launch, naming both parameters.

The kernels are tests/testdata/symbolic's, imported unchanged through the compatibility path.
"""
import importlib.util
import os
import sys

from conftest import COMPAT_DIR, ROOT

sys.path.insert(0, COMPAT_DIR)

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

pytestmark = pytest.mark.timeout(300)
DATA = os.path.join(ROOT, "tests", "testdata", "symbolic")


def _load(file):
    spec = importlib.util.spec_from_file_location(file[:-3], os.path.join(DATA, file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=["local", "remote"])
def launch(request, monkeypatch):
    monkeypatch.setenv("TILEJIT_LAUNCH", request.param)
    return request.param


def test_one_kernel_object_scales_rows_at_every_size(tilejitd, launch):
    kernel = _load("rowwise_scale.py").scale_rows(32, 64)
    assert kernel.metadata.symbols == ("M",)
    assert [p.shape for p in kernel.params] == [("M", 32), ("M", 32)]
    for m in (1, 7, 64, 200):
        a = np.random.default_rng(m).standard_normal((m, 32)).astype(np.float32)
        out = kernel(a)
        assert out.shape == (m, 32)
        np.testing.assert_array_equal(out, a * 2)


def test_two_symbol_gemm_on_torch_tensors(tilejitd, launch):
    kernel = _load("gemm_developer_mn.py").matmul(128, 128, 128, 64)
    assert kernel.metadata.symbols == ("M", "N")
    assert kernel.params[1].shape == (128, "N")
    for m, n in ((7, 200), (130, 16)):
        a = torch.randn(m, 128, dtype=torch.float16)
        b = torch.randn(128, n, dtype=torch.float16)
        c = kernel(a, b)
        assert isinstance(c, torch.Tensor) and tuple(c.shape) == (m, n)
        torch.testing.assert_close(c.float(), a.float() @ b.float(), atol=0.1, rtol=0.01)


def test_disagreeing_inputs_name_both_parameters(tilejitd):
    kernel = _load("rowwise_scale.py").scale_rows(32, 64)
    a = np.zeros((64, 32), np.float32)
    b = np.zeros((65, 32), np.float32)
    with pytest.raises(ValueError, match="symbol M is 64 from A .dim 0. but 65 from B .dim 0."):
        kernel(a, b)
    with pytest.raises(ValueError, match="expects \\(M, 32\\)"):
        kernel(np.zeros((64, 31), np.float32))
