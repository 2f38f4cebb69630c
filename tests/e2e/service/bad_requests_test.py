# SPDX-License-Identifier: Apache-2.0
"""Bad requests against a real tilejitd (issue 6, acceptance 4).

Each case is one bad request and the response DESIGN.md section 6 defines for
it, with the words its message must carry:
- errors in the user's kernel: an OK RPC whose CompileResponse has ok false
  and diagnostics located in the caller's own file (file:line:col);
- malformed requests: INVALID_ARGUMENT; unknown handles and digests:
  NOT_FOUND; passed deadlines: DEADLINE_EXCEEDED; caps and overload:
  RESOURCE_EXHAUSTED.
Malformed wire bytes (invalid UTF-8 in a string field) are sent raw, since no
protobuf library would encode them.

Afterwards the daemon is still SERVING, a good compile still works, the
metrics count no cache corruption, and after a clean stop the SQLite file
passes PRAGMA integrity_check and the restarted daemon opens it as is.

A Launch whose deadline passes mid-simulation is stopped (the simulator's
cancel flag) and gives its only launch slot back at once.

Environment: TILEJITD, TILEJIT_KERNELS_DIR, PROTOC, TILEJIT_PROTO_DIR.
"""
import json
import os
import re
import sqlite3
import sys
import time

import grpc
import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from daemon import Daemon  # noqa: E402
from stubs import Stub, health, tj, typed  # noqa: E402

KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")
ADD = os.path.join(KERNELS, "elementwise_add_expert.py")
ADD_ARGS = [128, 256, 64, 128]  # vec_add(M, N, block_M, block_N): float32 [128, 256]
RPC_TIMEOUT = 120
MAX_BUDGET = 2_000_000_000
C = grpc.StatusCode


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    d = Daemon(tmp_path_factory.mktemp("bad"), "--max-concurrent-launches", "1",
               "--max-instruction-budget", str(MAX_BUDGET), "--max-message-bytes",
               str(64 << 20), metrics=True).start()
    yield d
    d.stop()


@pytest.fixture(scope="module")
def channel(daemon):
    with grpc.insecure_channel(daemon.address, options=[
            ("grpc.max_send_message_length", 128 << 20),
            ("grpc.max_receive_message_length", 128 << 20)]) as ch:
        yield ch


@pytest.fixture(scope="module")
def stub(channel):
    return Stub(channel)


@pytest.fixture(scope="module")
def good(stub):
    """A compiled vec_add (float32 [128, 256] + [128, 256])."""
    r = stub.Compile(add_request(), timeout=RPC_TIMEOUT)
    assert r.ok, r.error
    return r


def add_request(source=None, args=ADD_ARGS, file_name="add.py", **fields):
    req = tj.CompileRequest(source=open(ADD).read() if source is None else source,
                            entry="vec_add", file_name=file_name, **fields)
    for a in args:
        req.typed_args.append(typed(a))
    return req


def add_inputs(shape=(128, 256), dtype="float32", n=2):
    rng = np.random.default_rng(1)
    return [tensor(rng.standard_normal(shape).astype(dtype)) for _ in range(n)]


def tensor(a):
    return tj.Tensor(dtype=str(a.dtype), shape=list(a.shape), data=a.tobytes())


def nested_list(depth):
    v = {"number_value": 1}
    for _ in range(depth):
        v = {"list_value": {"values": [v]}}
    return v


def json_args(*values):
    """CompileRequest.args from JSON-like dicts of google.protobuf.Value fields."""
    req = add_request(args=[])
    for v in values:
        req.args.add().CopyFrom(_value(v))
    return req


def _value(v):
    from google.protobuf import struct_pb2
    out = struct_pb2.Value()
    if "number_value" in v:
        out.number_value = v["number_value"]
    elif "string_value" in v:
        out.string_value = v["string_value"]
    elif "list_value" in v:
        for item in v["list_value"]["values"]:
            out.list_value.values.add().CopyFrom(_value(item))
    return out


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def raw_field(number, payload):
    """A length-delimited protobuf field with arbitrary bytes."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def raw_compile(channel, body):
    call = channel.unary_unary("/tilejit.v1.TileJit/Compile",
                               response_deserializer=tj.CompileResponse.FromString)
    return call(body, timeout=RPC_TIMEOUT)


def bundle(entries, version=1):
    b = tj.KernelBundle(version=version)
    for key, binary, sha in entries:
        b.entries.add(key=key, binary=binary, sha256=sha)
    return b.SerializeToString()


UNKNOWN = "tj1_" + "0" * 64
MALFORMED = r'malformed handle .*: expected "tj1_" followed by 64 lower-case hex digits'
ADD_SRC = open(ADD).read()

# --- errors in the user's kernel: OK RPC, ok false, located diagnostics ---------------------
# (id, request, regex the first error's message must match)
KERNEL_ERRORS = [
    ("syntax-error", add_request(ADD_SRC.replace("m_num = M // block_M", "m_num = M // (block_M")),
     r"add\.py:9:\d+: error: '\(' was never closed"),
    ("undefined-name", add_request(ADD_SRC.replace("M // block_M", "M // blok_M")),
     r"add\.py:9:\d+: error: name 'blok_M' is not defined"),
    ("string-arg-in-arithmetic", add_request(args=["wide", 256, 64, 128]),
     r"add\.py:9:\d+: error: unsupported operand types for //: 'str' and 'int'"),
    ("float-arg-as-shape", add_request(args=[128.5, 256, 64, 128]),
     r"add\.py:\d+:\d+: error: .*'A' is 128\.5 \(float\); shapes must be positive ints"),
    ("too-few-args", add_request(args=[128, 256]),
     r"add\.py:8:1: error: vec_add\(\) missing required argument 'block_M'"),
    ("too-many-args", add_request(args=[128, 256, 64, 128, "float", 7]),
     r"add\.py:8:1: error: vec_add\(\) takes 5 positional arguments but 6 were given"),
    ("unknown-kwarg", add_request(typed_kwargs={"colour": typed(3)}),
     r"add\.py:8:1: error: .*unexpected keyword argument 'colour'"),
    ("unknown-tile-op", add_request(ADD_SRC.replace("T.tile.add(", "T.tile.addd(")),
     r"add\.py:\d+:\d+: error: unknown name 'T\.tile\.addd'"),
    ("bad-dtype-string", add_request(args=[128, 256, 64, 128, "float99"]),
     r"add\.py:\d+:\d+: error: unknown dtype 'float99'"),
    ("unknown-pass-config", add_request(
        typed_pass_configs={"tl.no_such_switch": typed(True)}),
     r"add\.py:\d+:\d+: error: unknown pass config key 'tl\.no_such_switch'; known keys: "),
    ("out-idx-out-of-range", add_request(out_idx=[7]),
     r"add\.py:\d+:\d+: error: out_idx index 7 is out of range for 3 params"),
    ("workspace-idx-out-of-range", add_request(workspace_idx=[-9]),
     r"add\.py:\d+:\d+: error: workspace_idx index -9 is out of range"),
    ("unknown-entry", tj.CompileRequest(source=ADD_SRC, entry="vec_mul", file_name="add.py"),
     r"add\.py:1:1: error: entry 'vec_mul' not found"),
    ("nul-byte-in-source", add_request(ADD_SRC.replace("by = cid % n_num", "by = cid \0 n_num")),
     r"add\.py:\d+:\d+: error: source contains a null byte"),
    ("tile-ir-garbage", tj.CompileRequest(source="kernel main( {\n", format=tj.TILE_IR,
                                          file_name="k.tir"),
     r"k\.tir:1:1: error: expected 'param' or 'out_idx'"),
]


@pytest.mark.parametrize("req,pattern", [c[1:] for c in KERNEL_ERRORS],
                         ids=[c[0] for c in KERNEL_ERRORS])
def test_kernel_error_is_ok_rpc_with_located_diagnostics(stub, req, pattern):
    r = stub.Compile(req, timeout=RPC_TIMEOUT)
    assert not r.ok and r.error, r
    assert re.search(pattern, r.error), r.error
    errors = [d for d in r.diagnostics if d.severity == tj.ERROR]
    assert errors, r.diagnostics
    if pattern.startswith(re.escape(req.file_name)):  # a located error, in the caller's file
        assert any(d.file == req.file_name and d.line > 0 and d.column > 0 for d in errors)
    assert not r.handle


# --- malformed Compile requests: INVALID_ARGUMENT --------------------------------------------
MALFORMED_COMPILES = [
    ("empty-source", tj.CompileRequest(source="", entry="vec_add"), r"source is empty"),
    ("oversized-source", add_request("#" * (5 << 20)), r"source is \d+ bytes; the limit is"),
    ("missing-entry", tj.CompileRequest(source=ADD_SRC), r"entry is required"),
    ("oversized-entry", tj.CompileRequest(source=ADD_SRC, entry="e" * 300), r"entry is \d+ bytes"),
    ("args-and-typed-args", tj.CompileRequest(
        source=ADD_SRC, entry="vec_add", args=[_value({"number_value": 1})],
        typed_args=[typed(1)]), r"either args or typed_args"),
    ("deeply-nested-json", json_args(nested_list(40)), r"nested deeper than 16"),
    ("json-nested-past-protobuf-limit", json_args(nested_list(200)),
     r"not a valid tilejit\.v1\.CompileRequest"),
    ("huge-json-list", json_args({"list_value": {"values": [{"number_value": 1}] * 70000}}),
     r"more than \d+"),
    ("huge-json-string", json_args({"string_value": "x" * (2 << 20)}), r"string of \d+"),
    ("nan-arg", json_args({"number_value": float("nan")}), r"not finite"),
    ("infinite-typed-arg", add_request(args=[float("inf")]), r"not finite"),
    ("empty-typed-value", tj.CompileRequest(source=ADD_SRC, entry="vec_add",
                                            typed_args=[tj.TypedValue()]), r"has no kind"),
    ("unknown-format", tj.CompileRequest(source=ADD_SRC, entry="vec_add", format=7),
     r"format 7 is unknown"),
    ("bad-target-name", add_request(target="ascend/../../etc"), r"target name may hold only"),
    ("oversized-target-name", add_request(target="a" * 100), r"target name is too long"),
    ("too-many-out-idx", add_request(out_idx=list(range(5000))), r"out_idx has more than"),
]


@pytest.mark.parametrize("req,pattern", [c[1:] for c in MALFORMED_COMPILES],
                         ids=[c[0] for c in MALFORMED_COMPILES])
def test_malformed_compile_is_invalid_argument(stub, req, pattern):
    with pytest.raises(grpc.RpcError) as e:
        stub.Compile(req, timeout=RPC_TIMEOUT)
    assert e.value.code() == C.INVALID_ARGUMENT, e.value
    assert re.search(pattern, e.value.details()), e.value.details()


INVALID_UTF8 = b"def k():\n    return \xff\xfe\n"
RAW_COMPILES = [
    ("invalid-utf8-source", raw_field(1, INVALID_UTF8) + raw_field(3, b"k")),
    ("invalid-utf8-entry", raw_field(1, b"def k(): pass\n") + raw_field(3, b"k\xc3")),
    ("invalid-utf8-file-name", raw_field(1, b"def k(): pass\n") + raw_field(3, b"k") +
     raw_field(17, b"\xed\xa0\x80.py")),  # an encoded surrogate
    ("truncated-message", raw_field(1, b"def k(): pass\n")[:-4]),
]


@pytest.mark.parametrize("body", [c[1] for c in RAW_COMPILES], ids=[c[0] for c in RAW_COMPILES])
def test_undecodable_compile_bytes_are_invalid_argument(channel, body):
    with pytest.raises(grpc.RpcError) as e:
        raw_compile(channel, body)
    assert e.value.code() == C.INVALID_ARGUMENT, e.value
    assert re.search(r"UTF-8|parse|decod", e.value.details(), re.I), e.value.details()


# --- handles: NOT_FOUND for unknown, INVALID_ARGUMENT for malformed --------------------------
BAD_HANDLES = [
    ("unknown", UNKNOWN, C.NOT_FOUND, r"no kernel with handle tj1_0{64}"),
    ("empty", "", C.INVALID_ARGUMENT, r"handle is empty"),
    ("no-prefix", "0" * 64, C.INVALID_ARGUMENT, MALFORMED),
    ("short", "tj1_abc", C.INVALID_ARGUMENT, r"malformed handle 'tj1_abc'"),
    ("upper-case", "tj1_" + "A" * 64, C.INVALID_ARGUMENT, MALFORMED),
    ("other-version", "tj9_" + "0" * 64, C.INVALID_ARGUMENT, MALFORMED),
    ("path-like", "../../etc/passwd", C.INVALID_ARGUMENT, MALFORMED),
]


@pytest.mark.parametrize("handle,code,pattern", [c[1:] for c in BAD_HANDLES],
                         ids=[c[0] for c in BAD_HANDLES])
def test_get_kernel_bad_handle(stub, handle, code, pattern):
    with pytest.raises(grpc.RpcError) as e:
        stub.GetKernel(tj.GetKernelRequest(handle=handle), timeout=RPC_TIMEOUT)
    assert e.value.code() == code, e.value
    assert re.search(pattern, e.value.details()), e.value.details()


ADMIN_CASES = [
    ("pin-unknown", "Pin", tj.PinRequest(handle=UNKNOWN), C.NOT_FOUND, r"no cache entry"),
    ("unpin-malformed", "Unpin", tj.PinRequest(handle="nope"), C.INVALID_ARGUMENT,
     r"malformed handle 'nope'"),
    ("evict-malformed", "Evict", tj.EvictRequest(handles=["tj1_xyz"]), C.INVALID_ARGUMENT,
     r"malformed handle 'tj1_xyz'"),
    ("export-unknown", "Export", tj.ExportRequest(handles=[UNKNOWN]), C.NOT_FOUND,
     r"no kernel with handle"),
    ("import-garbage", "Import", tj.ImportRequest(bundle=b"\xff\xff not a bundle"),
     C.INVALID_ARGUMENT, r"not a serialised tilejit\.v1\.KernelBundle"),
    ("import-version-2", "Import", tj.ImportRequest(bundle=bundle([], version=2)),
     C.INVALID_ARGUMENT, r"version 2 is not supported"),
    ("import-bad-sha", "Import", tj.ImportRequest(bundle=bundle([("a" * 64, b"ELF", "0" * 64)])),
     C.INVALID_ARGUMENT, r"fails its SHA-256 check"),
    ("import-not-elf", "Import", tj.ImportRequest(bundle=bundle(
        [("a" * 64, b"hello", "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")])),
     C.INVALID_ARGUMENT, r"not a valid kernel binary"),
    ("import-bad-key", "Import", tj.ImportRequest(bundle=bundle(
        [("KEY", b"hello", "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")])),
     C.INVALID_ARGUMENT, r"malformed key"),
    ("batch-too-large", "BatchCompile",
     tj.BatchCompileRequest(requests=[tj.CompileRequest(source="x", entry="k")] * 300),
     C.INVALID_ARGUMENT, r"at most 256 requests"),
]


@pytest.mark.parametrize("method,req,code,pattern", [c[1:] for c in ADMIN_CASES],
                         ids=[c[0] for c in ADMIN_CASES])
def test_admin_bad_request(stub, method, req, code, pattern):
    with pytest.raises(grpc.RpcError) as e:
        getattr(stub, method)(req, timeout=RPC_TIMEOUT)
    assert e.value.code() == code, e.value
    assert re.search(pattern, e.value.details()), e.value.details()


# --- Launch ----------------------------------------------------------------------------------
def _launch_cases(good):
    f16 = add_inputs(dtype="float16")
    ok_inputs = add_inputs()
    short = tj.Tensor(dtype="float32", shape=[128, 256], data=b"\0" * 100)
    return [
        ("unknown-handle", dict(handle=UNKNOWN, inputs=ok_inputs), C.NOT_FOUND,
         r"no kernel with handle"),
        ("malformed-handle", dict(handle="tj1_zz", inputs=ok_inputs), C.INVALID_ARGUMENT,
         r"malformed handle 'tj1_zz'"),
        ("no-kernel-named", dict(inputs=ok_inputs), C.INVALID_ARGUMENT,
         r"needs a handle or a request_digest"),
        ("malformed-digest", dict(request_digest="xyz", inputs=ok_inputs), C.INVALID_ARGUMENT,
         r"request_digest must be 64"),
        ("unknown-digest", dict(request_digest="e" * 64, inputs=ok_inputs), C.NOT_FOUND,
         r"unknown request_digest"),
        ("handle-digest-mismatch", dict(handle=UNKNOWN, request_digest=good.request_digest,
                                        inputs=ok_inputs), C.INVALID_ARGUMENT,
         r"name different kernels"),
        ("missing-input", dict(handle=good.handle, inputs=ok_inputs[:1]), C.INVALID_ARGUMENT,
         r"takes more inputs than the 1 given"),
        ("extra-input", dict(handle=good.handle, inputs=ok_inputs * 2), C.INVALID_ARGUMENT,
         r"takes 2 inputs, 4 given"),
        ("wrong-dtype", dict(handle=good.handle, inputs=f16), C.INVALID_ARGUMENT,
         r"dtype float16"),
        ("wrong-shape", dict(handle=good.handle, inputs=add_inputs(shape=(256, 128))),
         C.INVALID_ARGUMENT, r"input 0 \('A'\): shape \(256,128,\), kernel expects \(128,256,\)"),
        ("wrong-rank", dict(handle=good.handle, inputs=add_inputs(shape=(128 * 256,))),
         C.INVALID_ARGUMENT, r"shape \(32768,\), kernel expects \(128,256,\)"),
        ("unknown-dtype", dict(handle=good.handle, inputs=[
            tj.Tensor(dtype="float128", shape=[1], data=b"\0" * 16)] * 2),
         C.INVALID_ARGUMENT, r"unknown dtype 'float128'"),
        ("data-shorter-than-shape", dict(handle=good.handle, inputs=[short, short]),
         C.INVALID_ARGUMENT, r"data holds 100 bytes; shape and dtype need 131072"),
        ("negative-dim", dict(handle=good.handle, inputs=[
            tj.Tensor(dtype="float32", shape=[-1, 4], data=b"")] * 2),
         C.INVALID_ARGUMENT, r"negative dimension -1"),
        ("absurd-shape", dict(handle=good.handle, inputs=[
            tj.Tensor(dtype="float32", shape=[1 << 30, 1 << 30], data=b"")] * 2),
         C.INVALID_ARGUMENT, r"shape is too large"),
        ("rank-40", dict(handle=good.handle, inputs=[
            tj.Tensor(dtype="float32", shape=[1] * 40, data=b"\0" * 4)] * 2),
         C.INVALID_ARGUMENT, r"rank 40 is over 16"),
        ("bad-check-mode", dict(handle=good.handle, inputs=ok_inputs, check_mode="turbo"),
         C.INVALID_ARGUMENT, r"check_mode must be"),
        ("budget-above-daemon-max", dict(handle=good.handle, inputs=ok_inputs,
                                         instruction_budget=MAX_BUDGET + 1),
         C.INVALID_ARGUMENT, r"above the daemon's maximum"),
        ("gm-cap-above-daemon-max", dict(handle=good.handle, inputs=ok_inputs,
                                         max_gm_bytes=1 << 50),
         C.INVALID_ARGUMENT, r"max_gm_bytes \d+ is above the daemon's maximum"),
        ("gm-cap-too-small", dict(handle=good.handle, inputs=ok_inputs, max_gm_bytes=4096),
         C.RESOURCE_EXHAUSTED, r"need 393216 bytes of GM; the cap is 4096"),
        ("past-instruction-budget", dict(handle=good.handle, inputs=ok_inputs,
                                         instruction_budget=5),
         C.RESOURCE_EXHAUSTED, r"ran past its instruction budget.*instruction budget of 5"),
    ]


LAUNCH_IDS = ["unknown-handle", "malformed-handle", "no-kernel-named", "malformed-digest",
              "unknown-digest", "handle-digest-mismatch", "missing-input", "extra-input",
              "wrong-dtype", "wrong-shape", "wrong-rank", "unknown-dtype",
              "data-shorter-than-shape", "negative-dim", "absurd-shape", "rank-40",
              "bad-check-mode", "budget-above-daemon-max", "gm-cap-above-daemon-max",
              "gm-cap-too-small", "past-instruction-budget"]


@pytest.mark.parametrize("case_id", LAUNCH_IDS)
def test_launch_bad_request(stub, good, case_id):
    cases = {c[0]: c[1:] for c in _launch_cases(good)}
    fields, code, pattern = cases[case_id]
    with pytest.raises(grpc.RpcError) as e:
        stub.Launch(tj.LaunchRequest(**fields), timeout=RPC_TIMEOUT)
    assert e.value.code() == code, e.value
    assert re.search(pattern, e.value.details()), e.value.details()


def test_launch_ids_cover_every_case(good):
    assert [c[0] for c in _launch_cases(good)] == LAUNCH_IDS


# --- deadlines -------------------------------------------------------------------------------
def test_compile_past_its_deadline_is_deadline_exceeded(stub):
    # The factory spends over half a second in its host loops (2M steps), ten times the
    # deadline, so the reply cannot beat the deadline however loaded the machine is (a plain
    # kernel compiles in about a millisecond, which raced the 1 ms deadline this used to set).
    loops = "    for i in range(1000):\n        for j in range(2000):\n            pass\n"
    source = open(ADD).read().replace("    m_num = M // block_M\n",
                                      loops + "    m_num = M // block_M\n", 1)
    assert loops in source
    with pytest.raises(grpc.RpcError) as e:
        stub.Compile(add_request(source=source), timeout=0.05)
    assert e.value.code() == C.DEADLINE_EXCEEDED, e.value
    assert re.search(r"[Dd]eadline", e.value.details()), e.value.details()


# A vector kernel that loops `iters` times over one UB tile: small inputs, long simulation.
SPIN = """
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def spin(M, N, iters, dtype="float"):
    half = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((half, N), dtype)
            with T.Scope("V"):
                row = vid * half
                T.copy(A[row, 0], a_ub)
                T.barrier_all()
                for i in T.serial(iters):
                    T.tile.add(a_ub, a_ub, a_ub)
                    T.barrier_all()
                T.copy(a_ub, C[row, 0])

    return main
"""


def test_long_launch_is_stopped_at_its_deadline(daemon, stub):
    # 5 million iterations: minutes of simulation (100 000 take about 3 s of CPU), far
    # longer than the 1 s deadline and than the 5 s the test waits below.
    spin = tj.CompileRequest(source=SPIN, entry="spin", file_name="spin.py",
                             typed_args=[typed(a) for a in [16, 64, 5_000_000]])
    r = stub.Compile(spin, timeout=RPC_TIMEOUT)
    assert r.ok, r.error
    inputs = [tensor(np.ones((16, 64), dtype="float32"))]
    small = stub.Compile(add_request(), timeout=RPC_TIMEOUT)
    before = daemon.scrape()
    with pytest.raises(grpc.RpcError) as e:
        stub.Launch(tj.LaunchRequest(handle=r.handle, inputs=inputs, instruction_budget=MAX_BUDGET),
                    timeout=1.0)
    assert e.value.code() == C.DEADLINE_EXCEEDED, e.value
    # The daemon's only launch slot comes back as soon as the simulator sees its cancel flag:
    # a small launch right after is served, not refused with RESOURCE_EXHAUSTED. Without the
    # cancel the spin would hold the slot for minutes.
    for _ in range(100):
        try:
            out = stub.Launch(tj.LaunchRequest(handle=small.handle, inputs=add_inputs()),
                              timeout=RPC_TIMEOUT)
            break
        except grpc.RpcError as err:
            assert err.code() == C.RESOURCE_EXHAUSTED, err
            time.sleep(0.05)
    else:
        pytest.fail("the launch slot was not released after the deadline")
    assert out.ok, out.error
    # The server counts the call when its handler returns, which may be a little after the
    # client gave up: poll (bounded) rather than race it.
    key = 'tilejit_requests_total{method="Launch",code="DEADLINE_EXCEEDED"}'
    for _ in range(100):
        after = daemon.scrape()
        if after.get(key, 0) == before.get(key, 0) + 1:
            break
        time.sleep(0.05)
    assert after.get(key, 0) == before.get(key, 0) + 1, {k: v for k, v in after.items()
                                                         if "Launch" in k}


# --- afterwards ------------------------------------------------------------------------------
def test_zz_daemon_is_healthy_and_cache_intact_afterwards(daemon, stub, tmp_path):
    """Runs last (module order): the daemon survived every bad request above."""
    check = stub.HealthCheck(health.HealthCheckRequest(), timeout=RPC_TIMEOUT)
    assert check.status == health.HealthCheckResponse.SERVING
    fresh = stub.Compile(add_request(args=[256, 256, 64, 128]), timeout=RPC_TIMEOUT)
    assert fresh.ok, fresh.error
    m = daemon.scrape()
    assert m["tilejit_cache_corruptions_total"] == 0
    assert m["tilejit_cache_write_failures_total"] == 0
    bad = sum(v for k, v in m.items()
              if k.startswith("tilejit_requests_total") and 'code="OK"' not in k)
    assert bad >= 50, json.dumps({k: v for k, v in m.items() if "requests_total" in k})
    handles = [e.handle for e in stub.List(tj.ListRequest(), timeout=RPC_TIMEOUT).entries]
    assert fresh.handle in handles
    daemon.stop()
    with sqlite3.connect(daemon.cache_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    restarted = Daemon(daemon.cache_dir).start()
    try:
        with grpc.insecure_channel(restarted.address) as ch:
            again = Stub(ch).GetKernel(tj.GetKernelRequest(handle=fresh.handle),
                                       timeout=RPC_TIMEOUT)
        assert again.tier == "sqlite" and again.key == fresh.key
    finally:
        restarted.stop()
    assert "CORRUPT" not in restarted.log()
