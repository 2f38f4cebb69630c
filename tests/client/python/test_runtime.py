# SPDX-License-Identifier: Apache-2.0
"""The ctypes binding of libtilejit_runtime.so (client/python/tilejit/_runtime.py) on real
kernel binaries: NumPy and torch CPU buffers in and out (outputs written in place, no
copies), the report, the errors of bad binaries and bad buffers, checked mode's findings,
tracing, cancellation and concurrent launches, and the library lookup and version check.

Environment (tests/client/python/CMakeLists.txt sets it): PYTHONPATH holds the build tree's
python folder (tilejit_paths.py), TILEJIT_RUNTIME_KERNELS_DIR the kernels compiled for the
runtime's tests, TILEJIT_WRONG_ABI_LIB a library claiming another ABI version,
TILEJIT_SOURCE_DIR the repository.

Run: ctest -R client.python.runtime, or python3 -m pytest tests/client/python/test_runtime.py
with that environment.
"""
import concurrent.futures
import importlib.util
import json
import os

import numpy as np
import pytest
import torch

pytestmark = pytest.mark.timeout(60)

SOURCE_DIR = os.environ.get("TILEJIT_SOURCE_DIR",
                            os.path.join(os.path.dirname(__file__), "..", "..", ".."))
KERNELS = os.environ.get("TILEJIT_RUNTIME_KERNELS_DIR", "build/tests/runtime_kernels")
M, N, K = 128, 256, 128  # the shapes tests/runner/CMakeLists.txt compiles


def _load_binding():
    """_runtime.py by path: the package's __init__ is not this test's business."""
    path = os.path.join(SOURCE_DIR, "client", "python", "tilejit", "_runtime.py")
    spec = importlib.util.spec_from_file_location("tilejit_runtime_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rt = _load_binding()


def _binary(name):
    with open(os.path.join(KERNELS, name), "rb") as f:
        return f.read()


@pytest.fixture(scope="module")
def vec_add():
    with rt.Module(_binary("vec_add.o")) as mod:
        yield mod


@pytest.fixture(scope="module")
def racy():
    with rt.Module(_binary("vec_add_racy.o")) as mod:
        yield mod


def _inputs(seed, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((M, N)).astype(dtype),
            rng.standard_normal((M, N)).astype(dtype))


def _expect_error(status, text, fn, *args, **kwargs):
    with pytest.raises(rt.TilejitRuntimeError) as info:
        fn(*args, **kwargs)
    assert info.value.status == status
    assert text in info.value.message, info.value.message
    return info.value


# ---- Library --------------------------------------------------------------------------------

def test_library_is_found_through_tilejit_paths(monkeypatch):
    import tilejit_paths
    monkeypatch.delenv("TILEJIT_RUNTIME_LIB", raising=False)
    assert rt.library_path() == tilejit_paths.RUNTIME_LIB
    assert os.path.isabs(tilejit_paths.RUNTIME_LIB)
    monkeypatch.setenv("TILEJIT_RUNTIME_LIB", "/elsewhere/libtilejit_runtime.so")
    assert rt.library_path() == "/elsewhere/libtilejit_runtime.so"


def test_library_reports_its_build():
    lib = rt.library()
    assert f"abi {rt.ABI_VERSION}" in lib.build
    assert lib.dtypes["float16"] == 9 and lib.dtypes["float32"] == 11
    assert len(lib.dtypes) == 12


def test_library_of_another_abi_version_is_refused():
    path = os.environ.get("TILEJIT_WRONG_ABI_LIB")
    if not path:
        pytest.skip("TILEJIT_WRONG_ABI_LIB not set")
    err = _expect_error("ABI_MISMATCH", "ABI version 1000", rt._Library, path)
    assert f"needs {rt.ABI_VERSION}" in err.message and err.code is None


def test_missing_library_is_an_error():
    _expect_error("NOT_FOUND", "cannot load", rt._Library, "/nonexistent/libtilejit_runtime.so")


# ---- Modules and launches -------------------------------------------------------------------

def test_module_describes_its_kernel(vec_add):
    assert vec_add.kernel_name == "main"
    assert vec_add.target == "ascend910b2"
    assert vec_add.core_mix == "vector"
    assert vec_add.block_count == 4
    assert vec_add.out_idx == (2,) and vec_add.workspace_idx == ()
    assert [(p.name, p.dtype, p.role, p.shape) for p in vec_add.params] == [
        ("A", "float32", "input", (M, N)), ("B", "float32", "input", (M, N)),
        ("C", "float32", "output", (M, N))]
    assert vec_add.params[2].bytes == M * N * 4
    assert vec_add.buffer_params == vec_add.params


def test_numpy_in_and_out(vec_add):
    a, b = _inputs(1)
    c = np.full((M, N), np.nan, dtype=np.float32)
    rep = vec_add.launch([a, b, c], mode="fast")
    np.testing.assert_array_equal(c, a + b)
    assert rep.ok and rep.message == "" and rep.mode == "fast"
    assert rep.kernel_cycles > 0 and rep.launch_overhead_cycles > 0 and rep.waves == 1
    assert rep.instructions > 0 and rep.findings == () and rep.findings_suppressed == 0
    assert len(rep.blocks) == 4 and [b.block for b in rep.blocks] == [0, 1, 2, 3]
    assert all(b.span_cycles <= rep.kernel_cycles and b.aic_busy_cycles == 0
               for b in rep.blocks)
    busy = rep.pipe_busy()
    assert busy[("aiv0", "v")] > 0 and busy[("aiv1", "mte2")] > 0
    assert busy[("aiv0", "v")] == sum(p.busy_cycles for b in rep.blocks for p in b.pipes
                                      if (p.core, p.pipe) == ("aiv0", "v"))
    assert rep.trace_json == "" and rep.line_cycles == ()


def test_gemm_matches_numpy():
    a = np.random.default_rng(2).standard_normal((M, K)).astype(np.float16)
    b = np.random.default_rng(3).standard_normal((K, N)).astype(np.float16)
    c = np.empty((M, N), dtype=np.float32)
    with rt.Module(_binary("gemm.o")) as mod:
        assert mod.core_mix == "cube"
        rep = mod.launch([a, b, c], mode="checked")
    assert rep.ok, rep.message
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c, want, rtol=2e-3, atol=2e-3)
    assert rep.blocks[0].aic_busy_cycles > 0


@pytest.mark.parametrize("dtype,kernel", [(torch.float32, "vec_add.o"),
                                          (torch.float16, "vec_add_f16.o")])
def test_torch_in_and_out_without_copies(dtype, kernel):
    gen = torch.Generator().manual_seed(4)
    a = torch.randn(M, N, generator=gen).to(dtype)
    b = torch.randn(M, N, generator=gen).to(dtype)
    c = torch.zeros(M, N, dtype=dtype)
    ptr = c.data_ptr()
    with rt.Module(_binary(kernel)) as mod:
        assert mod.params[0].dtype == str(dtype).rpartition(".")[2]
        rep = mod.launch([a, b, c], mode="checked")
    assert rep.ok, rep.message
    assert c.data_ptr() == ptr  # written in place
    torch.testing.assert_close(c, a + b, rtol=1e-3, atol=1e-3)


def test_numpy_and_torch_buffers_mix(vec_add):
    a, b = _inputs(5)
    c = torch.empty(M, N)
    vec_add.launch([a, torch.from_numpy(b), c], mode="fast")
    np.testing.assert_array_equal(c.numpy(), a + b)


def test_output_view_of_a_larger_array_is_written_in_place(vec_add):
    a, b = _inputs(6)
    big = np.zeros((2, M, N), dtype=np.float32)
    vec_add.launch([a, b, big[1]], mode="fast")
    np.testing.assert_array_equal(big[1], a + b)
    assert not big[0].any()


# ---- Errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize("data", [b"", b"\x7fELF" + b"\0" * 60, b"junk" * 1000])
def test_bad_binary_is_invalid_argument(data):
    err = _expect_error("INVALID_ARGUMENT", "tj_module_load", rt.Module, data)
    assert err.code == 1


def test_truncated_binary_is_invalid_argument():
    good = _binary("vec_add.o")
    _expect_error("INVALID_ARGUMENT", "tj_module_load", rt.Module, good[:-8])


def test_wrong_shape_names_the_parameter(vec_add):
    a, b = _inputs(7)
    c = np.zeros((M, N), dtype=np.float32)
    _expect_error("INVALID_ARGUMENT",
                  "buffer 1 (parameter 'B', input): shape (128, 128), kernel expects (128, 256)",
                  vec_add.launch, [a, b[:, :N // 2].copy(), c])
    assert not c.any()


def test_wrong_dtype_names_the_parameter(vec_add):
    a, b = _inputs(8)
    c = np.zeros((M, N), dtype=np.float32)
    _expect_error("INVALID_ARGUMENT", "(parameter 'A', input): dtype float16, kernel expects "
                  "float32", vec_add.launch, [a.astype(np.float16), b, c])
    _expect_error("INVALID_ARGUMENT", "dtype float64 is not a tilejit element type; kernel "
                  "expects float32", vec_add.launch, [a.astype(np.float64), b, c])
    _expect_error("INVALID_ARGUMENT", "(parameter 'C', output): dtype int32",
                  vec_add.launch, [a, b, torch.zeros(M, N, dtype=torch.int32)])


def test_wrong_buffer_count(vec_add):
    a, b = _inputs(9)
    _expect_error("INVALID_ARGUMENT", "takes 3 buffers (inputs and outputs), 2 given",
                  vec_add.launch, [a, b])
    c = np.zeros((M, N), dtype=np.float32)
    _expect_error("INVALID_ARGUMENT", "3 buffers (inputs and outputs), 4 given",
                  vec_add.launch, [a, b, c, c])


def test_buffers_the_library_cannot_see(vec_add):
    a, b = _inputs(10)
    c = np.zeros((M, N), dtype=np.float32)
    _expect_error("INVALID_ARGUMENT", "buffer 0 (parameter 'A', input) is not C-contiguous",
                  vec_add.launch, [np.asfortranarray(a), b, c])
    _expect_error("INVALID_ARGUMENT", "is not contiguous",
                  vec_add.launch, [a, torch.from_numpy(b).t().contiguous().t(), c])
    c.flags.writeable = False
    _expect_error("INVALID_ARGUMENT", "buffer 2 (parameter 'C', output) is read-only",
                  vec_add.launch, [a, b, c])
    _expect_error("INVALID_ARGUMENT", "is a list, not a NumPy array or torch tensor",
                  vec_add.launch, [a, b, [0.0] * (M * N)])


def test_bad_options(vec_add):
    a, b = _inputs(11)
    c = np.zeros((M, N), dtype=np.float32)
    with pytest.raises(ValueError, match="mode 'careful'"):
        vec_add.launch([a, b, c], mode="careful")
    _expect_error("INVALID_ARGUMENT", "max_findings 0", vec_add.launch, [a, b, c],
                  max_findings=0)
    _expect_error("RESOURCE_EXHAUSTED", "above gm_byte_limit 4096", vec_add.launch, [a, b, c],
                  gm_byte_limit=4096)


def test_closed_module_cannot_launch():
    mod = rt.Module(_binary("vec_add.o"))
    mod.close()
    mod.close()  # idempotent
    a, b = _inputs(12)
    _expect_error("INVALID_ARGUMENT", "closed", mod.launch, [a, b, np.zeros_like(a)])


# ---- Checked mode, trace, cancellation, threads ---------------------------------------------

def test_checked_mode_reports_the_race(racy):
    a, b = _inputs(13)
    c = np.zeros((M, N), dtype=np.float32)
    assert racy.launch([a, b, c], mode="fast").ok  # no detector in fast mode
    rep = racy.launch([a, b, c], mode="checked")
    assert not rep.ok and rep.mode == "checked"
    assert "finding(s); first: " in rep.message
    races = [f for f in rep.findings if f.kind == "race"]
    assert races and all(0 <= f.block < 4 and f.message for f in races)
    with pytest.raises(rt.KernelFindingsError) as info:
        rep.raise_for_findings()
    assert info.value.report is rep and "race" in str(info.value)


def test_tilejit_check_selects_checked_mode(racy, monkeypatch):
    a, b = _inputs(14)
    c = np.zeros((M, N), dtype=np.float32)
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    assert rt.default_mode() == "checked"
    assert not racy.launch([a, b, c]).ok
    monkeypatch.setenv("TILEJIT_CHECK", "0")
    assert rt.default_mode() == "fast"
    assert racy.launch([a, b, c]).raise_for_findings().ok


def test_max_findings_suppresses_the_rest(racy):
    a, b = _inputs(15)
    rep = racy.launch([a, b, np.zeros((M, N), dtype=np.float32)], mode="checked",
                      max_findings=1)
    assert len(rep.findings) == 1 and rep.findings_suppressed > 0


def test_trace_and_line_cycles(vec_add):
    a, b = _inputs(16)
    rep = vec_add.launch([a, b, np.zeros((M, N), dtype=np.float32)], mode="fast", trace=True)
    trace = json.loads(rep.trace_json)
    assert trace["traceEvents"]
    assert rep.line_cycles and sum(line.cycles for line in rep.line_cycles) > 0


def test_cancelled_launch_raises(vec_add):
    token = rt.CancelToken()
    token.cancel()
    a, b = _inputs(17)
    c = np.zeros((M, N), dtype=np.float32)
    _expect_error("CANCELLED", "cancelled", vec_add.launch, [a, b, c], cancel=token)
    assert not c.any()


def test_report_outlives_its_module(racy):
    a, b = _inputs(18)
    with rt.Module(_binary("vec_add_racy.o")) as mod:
        rep = mod.launch([a, b, np.zeros((M, N), dtype=np.float32)], mode="checked")
    assert rep.findings and rep.blocks  # read after tj_module_unload


def test_concurrent_launches_of_one_module(vec_add):
    def run(seed):
        a, b = _inputs(seed)
        c = np.zeros((M, N), dtype=np.float32)
        for mode in ("fast", "checked", "fast"):
            assert vec_add.launch([a, b, c], mode=mode, host_threads=1).ok
        return np.array_equal(c, a + b)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        assert all(pool.map(run, range(100, 108)))


def test_disassembly_lists_instructions_by_statement(vec_add):
    text = vec_add.disassemble()
    assert text.startswith("aiv:\n  ; ") and "line-table stmt " in text and "vadd " in text
    assert vec_add.disassemble() == text


def test_write_back_inputs_copies_inputs_back(vec_add):
    a, b = _inputs(11)
    a0 = a.copy()
    c = np.empty_like(a)
    vec_add.launch([a, b, c], mode="checked", write_back_inputs=True).raise_for_findings()
    np.testing.assert_array_equal(c, a + b)
    np.testing.assert_array_equal(a, a0)  # the kernel does not write A: it comes back as it was
