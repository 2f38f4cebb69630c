# SPDX-License-Identifier: Apache-2.0
"""Acceptance 2 (issue 13): the package's behaviour with a real tilejitd.

- a factory called directly and passed to tilelang.compile works;
- closures holding a lambda, a T.* builtin, an IntEnum member and a macro imported from a
  second file work; a changed closure value or global changes the key and the result;
- an unsupported construct on line 17 of a user's file, and one inside a macro in a second
  file, are reported at those files and lines;
- a wrong-dtype tensor raises before launch, naming the parameter;
- a configured daemon that is down gives the named error;
- with nothing listening, two processes started together share one private daemon;
- a kernel called in a forked child works (and so does a new compile there);
- the kernel object's IR, disassembly, metadata, launch report and trace.
The user files are in userfiles/.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

from conftest import HERE, tilejitd_path

USERFILES = os.path.join(HERE, "userfiles")
sys.path.insert(0, USERFILES)

import tilejit as tilelang  # noqa: E402
import closures  # noqa: E402
import unsupported  # noqa: E402
import uses_bad_macro  # noqa: E402

pytestmark = pytest.mark.timeout(120)
M, N = 64, 128


def _ab(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((M, N)).astype(np.float32),
            rng.standard_normal((M, N)).astype(np.float32))


def test_plain_factory_through_compile(tilejitd):
    kernel = tilelang.compile(closures.plain_factory(M, N), out_idx=[1])
    a, _ = _ab()
    np.testing.assert_allclose(kernel(a), np.exp(a), rtol=1e-5, atol=1e-6)
    assert tilelang.compile(closures.plain_factory(M, N), out_idx=[1]) is kernel  # memo


def test_closures_hold_lambda_builtin_intenum_and_macro_of_another_file(tilejitd):
    a, b = _ab(1)
    add = closures.make_vec(M, N, closures.Op.ADD)
    twice = closures.make_vec(M, N, closures.Op.ADD_TWICE)
    np.testing.assert_allclose(add(a, b), (a + b) * closures.SCALE, rtol=1e-6)
    np.testing.assert_allclose(twice(a, b), (a + 2 * b) * closures.SCALE, rtol=1e-6)
    assert add.handle != twice.handle  # the IntEnum member's value is in the key
    assert closures.make_vec(M, N, closures.Op.ADD) is add  # same request: the memo's kernel
    files = {f for f, _ in add.source_map.files}
    assert files == {closures.__file__, sys.modules["helper_macros"].__file__}


def test_changed_global_or_closure_value_is_a_new_kernel(tilejitd, monkeypatch):
    a, b = _ab(2)
    before = closures.make_vec(M, N, closures.Op.ADD)
    monkeypatch.setattr(closures, "SCALE", 5.0)
    after = closures.make_vec(M, N, closures.Op.ADD)
    assert after is not before and after.key != before.key
    np.testing.assert_allclose(after(a, b), (a + b) * 5.0, rtol=1e-6)
    np.testing.assert_allclose(before(a, b), (a + b) * 2.0, rtol=1e-6)
    # A default of the factory is a closure value of the prim_func too.
    other = closures.make_vec(M, N, closures.Op.ADD, block_M=32)
    assert other.key != after.key and other.metadata.block_count == M // 32
    np.testing.assert_allclose(other(a, b), (a + b) * 5.0, rtol=1e-6)


def test_unsupported_constructs_are_located_in_the_users_files(tilejitd):
    with pytest.raises(tilelang.CompileError) as info:
        unsupported.swizzled(M, N)
    d = info.value.diagnostics[0]
    assert (d.file, d.line, d.severity) == (unsupported.__file__, 17, "error")
    assert f"{unsupported.__file__}:17:" in str(info.value)
    assert "T.use_swizzle" in d.message
    with pytest.raises(tilelang.CompileError) as info:
        uses_bad_macro.laid_out(M, N)
    d = info.value.diagnostics[0]
    macro_file = sys.modules["unsupported_macro"].__file__
    assert (d.file, d.line) == (macro_file, 10) and "T.shmem_put_nbi is out of scope" in d.message
    assert isinstance(info.value, tilelang.tvm.TVMError)  # what TileLang's tests catch


def test_unsendable_closure_values_are_client_errors(tilejitd):
    import tilejit.language as T
    weird = object()

    def factory():
        @T.prim_func
        def main(A: T.Tensor((16, 16), "float")):
            with T.Kernel(1, is_npu=True) as (cid, vid):
                x = weird  # noqa: F841
        return main

    with pytest.raises(tilelang.ClientValueError, match="'weird' .*is a object"):
        tilelang.compile(factory())


def test_wrong_dtype_raises_before_launch_naming_the_parameter(tilejitd):
    kernel = closures.make_vec(M, N, closures.Op.ADD)
    a, b = _ab(3)
    kernel(a, b)
    last = kernel.last_launch
    with pytest.raises(ValueError, match=r"parameter 'B', input\) has dtype float64; the "
                                         r"kernel expects float32"):
        kernel(a, b.astype(np.float64))
    with pytest.raises(ValueError, match=r"parameter 'A'.*has shape \(64, 64\)"):
        kernel(torch.zeros(64, 64), torch.from_numpy(b))
    with pytest.raises(TypeError, match=r"takes its 2 inputs \(A, B\) or all 3 parameters"):
        kernel(a)
    assert kernel.last_launch is last  # nothing ran


def test_kernel_object_introspection(tilejitd, tmp_path):
    kernel = closures.make_vec(M, N, closures.Op.ADD)
    a, b = _ab(4)
    kernel(a, b)
    info = kernel.last_launch
    assert info.ok and info.cycles > 0 and info.findings == ()
    assert any(k.startswith("aiv0.") and 0 < v <= 1 for k, v in info.pipe_utilisation.items())
    md = kernel.metadata
    assert [(p.name, p.role) for p in md.params] == [("A", "input"), ("B", "input"),
                                                    ("C", "output")]
    assert md.out_idx == (2,) and md.core_mix == "vector" and md.block_count == M // 16
    assert "launch(" in kernel.get_kernel_source()
    assert "mul(" in kernel.ir(after="legalize_copies")
    listing = kernel.disasm()
    assert f"{closures.__file__}:" in listing and "vadd" in listing
    assert "helper_macros.py:" in listing  # the macro's instructions name its own file
    trace = json.loads(open(kernel.trace(str(tmp_path / "t.json"))).read())
    assert trace["traceEvents"]


def test_in_place_kernel_without_out_idx(tilejitd):
    kernel = tilelang.compile(closures.plain_factory(M, N))  # no out_idx: arguments in place
    a, _ = _ab(5)
    b = np.zeros_like(a)
    assert kernel(a, b) == [] and kernel.out_idx == ()
    np.testing.assert_allclose(b, np.exp(a), rtol=1e-5, atol=1e-6)


def test_kernel_without_inputs_returns_numpy_without_the_npu(tilejitd):
    import fill_only
    import tilejit.npu
    assert not tilejit.npu.is_installed()  # this file never installs it
    out = fill_only.filled(32, 64, 3.0)()
    assert isinstance(out, np.ndarray) and out.shape == (32, 64)
    np.testing.assert_array_equal(out, np.full((32, 64), 3.0, np.float32))


def test_configured_daemon_that_is_down_is_a_named_error(tilejitd, tmp_path):
    address = f"unix:{tmp_path}/nobody.sock"
    with pytest.raises(tilelang.ServiceUnavailableError, match="deploy/run.sh") as info:
        tilelang.connect(address)
    assert address in str(info.value)
    env = dict(os.environ, TILEJIT_SERVER=address)
    code = ("import closures, tilejit\n"
            "try:\n    closures.make_vec(64, 128, closures.Op.ADD)\n"
            "except tilejit.ServiceUnavailableError as e:\n    print('ERR', e)\n")
    r = subprocess.run([sys.executable, "-c", code], env=env, cwd=USERFILES, timeout=60,
                       capture_output=True, text=True)
    assert r.stdout.startswith("ERR no tilejitd answers at " + address), r.stdout + r.stderr
    assert "$TILEJIT_SERVER" in r.stdout and "tilejitd --listen" in r.stdout


_SHARE = """
import sys, numpy as np, tilejit, tilejit._client as c
import closures
a = np.ones((64, 128), np.float32)
k = closures.make_vec(64, 128, closures.Op.ADD)
assert (k(a, a) == 4).all()
print(c.client().origin, c.client().address)
"""


def _closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens on it once the socket is closed


def test_two_processes_with_nothing_listening_share_one_private_daemon(tmp_path):
    run_dir, cache = tmp_path / "run", tmp_path / "cache"
    run_dir.mkdir(mode=0o700)
    # The default address the package probes (localhost:50051 unless set) must not answer:
    # a port nothing listens on, so the probe runs and fails as on a machine with no daemon.
    env = dict(os.environ, XDG_RUNTIME_DIR=str(run_dir), XDG_CACHE_HOME=str(cache),
               TILEJIT_DEFAULT_SERVER=f"127.0.0.1:{_closed_port()}", TILEJITD=tilejitd_path(),
               TILEJIT_IDLE_EXIT_SECONDS="60", TILEJIT_CACHE_DIR=str(tmp_path / "bin"))
    env.pop("TILEJIT_SERVER", None)
    folder = run_dir / "tilejit"
    try:
        procs = [subprocess.Popen([sys.executable, "-c", _SHARE], env=env, cwd=USERFILES,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        outs = [p.communicate(timeout=90) for p in procs]
        for p, (out, err) in zip(procs, outs):
            assert p.returncode == 0, err
        lines = {out.strip() for out, _ in outs}
        assert lines == {f"private unix:{folder}/tilejitd.sock"}, lines
        log = (folder / "tilejitd.log").read_text()
        assert log.count("tilejitd listening") == 1, log  # one daemon started, both used it
        assert oct(os.stat(folder).st_mode & 0o777) == "0o700"
        assert oct(os.stat(folder / "tilejitd.sock").st_mode & 0o777) == "0o600"
    finally:
        _reap(folder / "tilejitd.pid")


def _reap(pid_file):
    try:
        pid = int(pid_file.read_text())
    except (OSError, ValueError):
        return
    try:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            os.kill(pid, 0)
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def test_kernel_in_a_forked_child(tilejitd):
    kernel = closures.make_vec(M, N, closures.Op.ADD)
    a, b = _ab(6)
    kernel(a, b)
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 3
        try:
            ok = np.array_equal(kernel(a, b), (a + b) * closures.SCALE)
            fresh = closures.make_vec(32, N, closures.Op.ADD)  # a compile: a new channel
            ok = ok and np.array_equal(fresh(a[:32], b[:32]), (a[:32] + b[:32]) * 2.0)
            code = 0 if ok else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child did not finish")
        time.sleep(0.05)
    assert os.waitstatus_to_exitcode(status) == 0
    np.testing.assert_allclose(kernel(a, b), (a + b) * closures.SCALE, rtol=1e-6)
