# SPDX-License-Identifier: Apache-2.0
"""tilejitd end to end (issue 6, acceptance 2), with a real daemon on a random
loopback port and a fresh SQLite cache per module:

- every shared kernel (and each back-end Expert kernel) compiles through the
  daemon exactly as the offline CLI compiles it: same success or failure, same
  key, the same binary bytes as `tilejit compile -o`, and GetKernel returns
  those bytes; the `tilejit --server` CLI agrees;
- after a daemon restart the same compile is a SQLite hit with the same handle
  and bytes;
- Launch outputs match reference.py (inputs as in cases.json), a 'race' case
  reports its race;
- two sources differing only in comments share one handle, and each gets its
  findings and diagnostics in its own line numbers;
- the `tilejit --server` CLI's daemon commands (health, cache pin/ls/unpin/
  export/evict/import, get, stats, disasm and trace by handle).

Environment: TILEJITD, TILEJIT_CLI, TILEJIT_KERNELS_DIR,
TILEJIT_EXPERT_KERNELS_DIR, PROTOC, TILEJIT_PROTO_DIR.
"""
import importlib.util
import json
import os
import re
import subprocess
import sys

import grpc
import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from daemon import Daemon  # noqa: E402
from stubs import Stub, health, tj, typed  # noqa: E402

CLI = os.environ.get("TILEJIT_CLI", "build/client/tilejit")
KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")
EXPERT = os.environ.get("TILEJIT_EXPERT_KERNELS_DIR", "tests/testdata/expert_kernels")
RPC_TIMEOUT = 120


def _cases():
    out = []
    for folder in (KERNELS, EXPERT):
        with open(os.path.join(folder, "cases.json")) as f:
            for c in json.load(f)["cases"]:
                c["dir"] = folder
                c["path"] = os.path.join(folder, c["file"])
                out.append(c)
    return out


CASES = _cases()
IDS = [f"{c['file'][:-3]}-{'x'.join(map(str, c['args']))}" for c in CASES]


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    d = Daemon(tmp_path_factory.mktemp("cache")).start()
    yield d
    d.stop()


@pytest.fixture(scope="module")
def stub(daemon):
    with grpc.insecure_channel(daemon.address) as channel:
        yield Stub(channel)


def compile_request(case, source=None, file_name=None, include_binary=False):
    req = tj.CompileRequest(
        source=source if source is not None else open(case["path"]).read(),
        entry=case["entry"], file_name=file_name or case["path"],
        include_binary=include_binary)
    for a in case["args"]:
        req.typed_args.append(typed(a))
    return req


def cli(*args, timeout=600):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def cli_args(case):
    out = [case["path"], "--entry", case["entry"]]
    for a in case["args"]:
        out += ["--arg", a]
    return out


def inputs_of(case):
    rng = np.random.default_rng(case["seed"])
    return [rng.standard_normal(s["shape"]).astype(s["dtype"]) for s in case["inputs"]]


def tensor(a):
    return tj.Tensor(dtype=str(a.dtype), shape=list(a.shape), data=a.tobytes())


def array(t):
    return np.frombuffer(t.data, dtype=t.dtype).reshape(tuple(t.shape))


def reference(case):
    """The case folder's own reference.py when it defines the function, else the shared one."""
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


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_daemon_compiles_like_offline_cli(case, daemon, stub, tmp_path):
    offline = cli("compile", *cli_args(case), "-o", tmp_path / "offline.o", "--emit", "key")
    r = stub.Compile(compile_request(case, include_binary=True), timeout=RPC_TIMEOUT)
    if offline.returncode != 0:
        assert offline.returncode == 1, offline.stderr
        assert not r.ok, "the daemon compiled what the offline CLI refused"
        assert r.diagnostics and r.error, r
        assert any(d.line > 0 and d.file == case["path"] for d in r.diagnostics), r.diagnostics
        return
    assert r.ok, r.error
    assert r.key == offline.stdout.strip()
    offline_bytes = (tmp_path / "offline.o").read_bytes()
    assert r.binary == offline_bytes
    got = stub.GetKernel(tj.GetKernelRequest(handle=r.handle), timeout=RPC_TIMEOUT)
    assert got.binary == offline_bytes and got.key == r.key
    # The same through the tilejit CLI's daemon mode, and its `get`.
    via = cli("--server", daemon.address, "compile", *cli_args(case), "-o",
              tmp_path / "daemon.o", "--emit", "key")
    assert via.returncode == 0, via.stderr
    assert via.stdout.strip() == r.key
    assert (tmp_path / "daemon.o").read_bytes() == offline_bytes
    fetched = cli("--server", daemon.address, "get", r.handle, "-o", tmp_path / "get.o")
    assert fetched.returncode == 0, fetched.stderr
    assert (tmp_path / "get.o").read_bytes() == offline_bytes


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_launch_matches_reference(case, stub):
    r = stub.Compile(compile_request(case), timeout=RPC_TIMEOUT)
    assert r.ok, r.error  # every shared kernel compiles (the offline CLI's test says so too)
    arrays = inputs_of(case)
    launch = stub.Launch(tj.LaunchRequest(
        request_digest=r.request_digest, inputs=[tensor(a) for a in arrays],
        check_mode="checked"), timeout=RPC_TIMEOUT)
    if case["expect"] == "race":
        races = [f.message for f in launch.findings if f.kind == "race"]
        assert not launch.ok and races, launch
        assert any(len(re.findall(re.escape(case["path"]) + r":\d+", m)) >= 2 for m in races)
        return
    assert launch.ok, f"{launch.error}: {[f.message for f in launch.findings]}"
    expected = reference(case)(*arrays)
    assert len(launch.outputs) == len(expected)
    for i, want in enumerate(expected):
        np.testing.assert_allclose(array(launch.outputs[i]).astype(np.float32), want,
                                   rtol=case["rtol"], atol=case["atol"],
                                   err_msg=f"{case['file']} output {i}")


def _case(file):
    return next(c for c in CASES if c["file"] == file)


def test_cli_run_through_daemon_matches_reference(daemon, tmp_path):
    case = _case("gemm_expert.py")
    paths = []
    for i, a in enumerate(inputs_of(case)):
        paths += ["--in", tmp_path / f"in{i}.npy"]
        np.save(tmp_path / f"in{i}.npy", a)
    r = cli("--server", daemon.address, "run", *cli_args(case), *paths, "--out", tmp_path,
            "--check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "status: OK" in r.stdout
    want = reference(case)(*inputs_of(case))[0]
    np.testing.assert_allclose(np.load(tmp_path / "out0.npy").astype(np.float32), want,
                               rtol=case["rtol"], atol=case["atol"])


def test_restart_serves_sqlite_hit_with_identical_bytes(tmp_path):
    case = _case("gemm_expert.py")
    req = compile_request(case, include_binary=True)
    with Daemon(tmp_path / "cache") as first:
        with grpc.insecure_channel(first.address) as ch:
            cold = Stub(ch).Compile(req, timeout=RPC_TIMEOUT)
    assert cold.ok and cold.tier == "compiled", (cold.tier, cold.error)
    with Daemon(tmp_path / "cache") as second:
        with grpc.insecure_channel(second.address) as ch:
            stub = Stub(ch)
            warm = stub.Compile(req, timeout=RPC_TIMEOUT)
            got = stub.GetKernel(tj.GetKernelRequest(handle=cold.handle), timeout=RPC_TIMEOUT)
            check = stub.HealthCheck(health.HealthCheckRequest(), timeout=RPC_TIMEOUT)
    assert warm.ok and warm.tier == "sqlite", warm.tier
    assert warm.handle == cold.handle and warm.key == cold.key
    assert warm.binary == cold.binary and got.binary == cold.binary
    assert check.status == health.HealthCheckResponse.SERVING


def _with_comments(source, n):
    """The same kernel with n comment lines on top and a trailing comment."""
    lines = source.split("\n")
    return "\n".join([f"# note {i}" for i in range(n)] + lines) + "\n# end\n"


def _lines(text, path):
    return sorted(int(m) for m in re.findall(re.escape(path) + r":(\d+)", text))


def test_comment_variants_share_handle_with_own_finding_lines(stub):
    case = _case("elementwise_add_missing_sync.py")
    base = open(case["path"]).read()
    variants = {"a.py": base, "b.py": _with_comments(base, 3)}
    handles, lines = set(), {}
    arrays = inputs_of(case)
    for name, src in variants.items():
        r = stub.Compile(compile_request(case, source=src, file_name=name),
                         timeout=RPC_TIMEOUT)
        assert r.ok, r.error
        handles.add(r.handle)
        launch = stub.Launch(tj.LaunchRequest(
            request_digest=r.request_digest, inputs=[tensor(a) for a in arrays],
            check_mode="checked"), timeout=RPC_TIMEOUT)
        races = "\n".join(f.message for f in launch.findings if f.kind == "race")
        lines[name] = _lines(races, name)
        assert lines[name], races
    assert len(handles) == 1
    assert [x + 3 for x in lines["a.py"]] == lines["b.py"]


def test_comment_variants_get_diagnostics_in_own_lines(stub):
    case = _case("gemm_expert.py")
    base = open(case["path"]).read()
    assert "T.gemm_v0(" in base
    broken = base.replace("T.gemm_v0(", "T.gemm_v9(", 1)
    got = {}
    for name, src in {"a.py": broken, "b.py": _with_comments(broken, 5)}.items():
        r = stub.Compile(compile_request(case, source=src, file_name=name),
                         timeout=RPC_TIMEOUT)
        assert not r.ok and r.diagnostics, r
        d = r.diagnostics[0]
        assert d.file == name and d.line > 0, d
        assert f"{name}:{d.line}:" in d.rendered
        got[name] = d.line
    assert got["b.py"] == got["a.py"] + 5


def test_cli_daemon_commands(daemon, tmp_path):
    case = _case("gemm_expert.py")
    d = ["--server", daemon.address]
    assert cli(*d, "health").stdout == "SERVING\n"
    made = cli(*d, "compile", *cli_args(case))
    assert made.returncode == 0, made.stderr
    handle = made.stdout.strip()
    assert re.fullmatch(r"tj1_[0-9a-f]{64}", handle)
    assert cli(*d, "cache", "pin", handle).returncode == 0
    listed = cli(*d, "cache", "ls").stdout
    assert re.search(re.escape(handle) + r"\s+\d+\s+yes", listed), listed
    assert cli(*d, "cache", "unpin", handle).returncode == 0
    bundle = tmp_path / "bundle.bin"
    assert cli(*d, "cache", "export", "-o", bundle, handle).returncode == 0
    assert cli(*d, "cache", "evict", handle).stdout == "evicted 1 kernel(s)\n"
    missing = cli(*d, "get", handle, "-o", tmp_path / "k.o")
    assert missing.returncode == 2 and "NOT_FOUND" in missing.stderr, missing.stderr
    assert cli(*d, "cache", "import", bundle).stdout.startswith("imported 1,")
    stats = json.loads(cli(*d, "stats").stdout)
    assert int(stats["entries"]) >= 1
    listing = cli(*d, "disasm", handle)
    assert listing.returncode == 0 and "aic:" in listing.stdout, listing.stderr
    paths = []
    for i, a in enumerate(inputs_of(case)):
        np.save(tmp_path / f"in{i}.npy", a)
        paths += ["--in", tmp_path / f"in{i}.npy"]
    traced = cli(*d, "trace", handle, *paths, "-o", tmp_path / "t.json", "--out", tmp_path)
    assert traced.returncode == 0, traced.stdout + traced.stderr
    assert json.loads((tmp_path / "t.json").read_text())["traceEvents"]


def test_cli_reports_unreachable_daemon(tmp_path):
    r = cli("--server", "127.0.0.1:1", "--timeout", "10", "health")
    assert r.returncode == 2 and "UNAVAILABLE" in r.stderr and "127.0.0.1:1" in r.stderr
