# SPDX-License-Identifier: Apache-2.0
"""A daemon under 64 hostile requests at once (issue 16, acceptance 1).

One tilejitd with small frontend budgets and launch caps gets 64 requests in
flight together, none with a client deadline: host loops of 2^40 steps, list,
string and dict doubling, unbounded recursion, deeply nested expressions,
Launches of a kernel with a 2^31-block grid, and Launches of the same
kernel imported from another daemon's export. Every one must end with an error
naming the budget or cap it hit. Meanwhile Health answers SERVING; the
daemon's peak RSS (VmHWM in /proc) stays below its memory caps plus 256 MiB;
afterwards its CPU time stops growing and a normal compile and launch succeed.

Environment: TILEJITD, TILEJIT_KERNELS_DIR, PROTOC, TILEJIT_PROTO_DIR.
"""
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from daemon import Daemon  # noqa: E402
from stubs import Stub, health, tj, typed  # noqa: E402

KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")
pytestmark = pytest.mark.timeout(300)

FRONTEND_MB = 16
WORKERS = 2
GM_MB = 64
LAUNCHES = 2
FLAGS = ["--frontend-max-steps", "200000", "--frontend-max-memory-mb", str(FRONTEND_MB),
         "--frontend-max-call-depth", "20", "--workers", str(WORKERS),
         "--max-launch-gm-bytes", str(GM_MB << 20), "--max-concurrent-launches", str(LAUNCHES),
         "--max-launch-blocks", "4096"]
# What the daemon may hold for requests at once, plus its own working set.
RSS_LIMIT_KB = (FRONTEND_MB * WORKERS + GM_MB * LAUNCHES + 256) * 1024

HEADER = "import tilelang\n@tilelang.jit(out_idx=[1])\ndef k(M, N):\n    # {tag}\n"
NESTED = "(" * 5000 + "1" + ")" * 5000
FACTORIES = {  # name: (factory body, what the error must name, how many in the burst)
    "loop": ("    s = 0\n    for i in range(2 ** 40):\n        s += 1\n",
             "--frontend-max-steps", 10),
    "list": ("    s = [0]\n    for i in range(64):\n        s = s + s\n",
             "--frontend-max-memory-mb", 8),
    "string": ("    s = 'ab'\n    for i in range(64):\n        s = s + s\n",
               "--frontend-max-memory-mb", 8),
    "dict": ("    d = {'a': 0}\n    for i in range(64):\n        d = {'a': d, 'b': d}\n"
             "    s = str(d)\n", "--frontend-max-", 8),
    "recursion": ("    def f(n):\n        return f(n + 1)\n    s = f(0)\n",
                  "--frontend-max-call-depth", 8),
    "nesting": (f"    s = {NESTED}\n", "too many nested parentheses", 6),
}
GRID = """import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[1])
def grid(M, N):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(2 ** 31, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), "float32")
            T.copy(A, a)
            T.barrier_all()
            T.copy(a, B)
    return main
"""
LAUNCH_BURST = 8  # each of the two grid kernels: 64 requests in all


def factory(name, tag):
    req = tj.CompileRequest(source=HEADER.format(tag=tag) + FACTORIES[name][0] + "    return s\n",
                            entry="k", file_name=f"{name}.py")
    req.typed_args.extend([typed(16), typed(64)])
    return req


def grid_kernel(stub, rows):
    req = tj.CompileRequest(source=GRID, entry="grid", file_name="grid.py")
    req.typed_args.extend([typed(rows), typed(64)])
    reply = stub.Compile(req, timeout=120)
    assert reply.ok, reply.error
    return reply.handle


def launch(handle, rows):
    ones = tj.Tensor(dtype="float32", shape=[rows, 64], data=b"\x00\x00\x80\x3f" * rows * 64)
    return tj.LaunchRequest(handle=handle, inputs=[ones])


def proc_status(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def exported_grid(tmp_path):
    """(handle, Export bundle) of the 16-row grid kernel compiled by another daemon."""
    with Daemon(tmp_path / "other", *FLAGS) as other, grpc.insecure_channel(other.address) as ch:
        stub = Stub(ch)
        handle = grid_kernel(stub, 16)
        return handle, stub.Export(tj.ExportRequest(handles=[handle]), timeout=60).bundle


def outcome(future):
    """(ok, text) of a Compile or Launch future: the reply's error or the RPC's status."""
    try:
        reply = future.result()
    except grpc.RpcError as e:
        return False, f"{e.code().name}: {e.details()}"
    return reply.ok, reply.error


def test_64_hostile_requests_each_end_with_their_cap_and_the_daemon_stays_well(tmp_path):
    imported, bundle = exported_grid(tmp_path)
    with Daemon(tmp_path / "d", *FLAGS) as d, grpc.insecure_channel(d.address) as ch:
        stub = Stub(ch)
        pid = d.proc.pid
        assert stub.Import(tj.ImportRequest(bundle=bundle), timeout=60).imported == 1
        compiled = grid_kernel(stub, 32)  # the same grid, compiled here

        calls = []  # (what the error must name, future)
        with ThreadPoolExecutor(max_workers=64) as pool:
            for name, (_, names, count) in FACTORIES.items():
                for i in range(count):
                    calls.append((names, pool.submit(stub.Compile, factory(name, f"{name} {i}"))))
            for handle, rows in [(imported, 16), (compiled, 32)] * LAUNCH_BURST:
                calls.append(("--max-launch-blocks",
                              pool.submit(stub.Launch, launch(handle, rows))))
            assert len(calls) == 64
            peak_kb = 0
            while not all(f.done() for _, f in calls):
                r = stub.HealthCheck(health.HealthCheckRequest(service=""), timeout=10)
                assert r.status == health.HealthCheckResponse.SERVING
                peak_kb = max(peak_kb, proc_status(pid, "VmRSS"))
                time.sleep(0.05)
        for names, f in calls:
            ok, text = outcome(f)
            assert not ok and names in text, (names, text)
        peak_kb = max(peak_kb, proc_status(pid, "VmHWM"))
        print(f"peak RSS {peak_kb} KiB, limit {RSS_LIMIT_KB} KiB")
        assert peak_kb < RSS_LIMIT_KB, (peak_kb, RSS_LIMIT_KB)

        # Nothing runs on after its caller got its answer.
        before = cpu_seconds(pid)
        time.sleep(2)
        assert cpu_seconds(pid) - before < 0.25
        assert d.proc.poll() is None

        good = tj.CompileRequest(
            source=open(os.path.join(KERNELS, "elementwise_add_expert.py")).read(),
            entry="vec_add", file_name="elementwise_add_expert.py")
        good.typed_args.extend([typed(a) for a in (128, 256, 64, 128)])
        reply = stub.Compile(good, timeout=120)
        assert reply.ok, reply.error
        x = tj.Tensor(dtype="float32", shape=[128, 256], data=b"\x00\x00\x80\x3f" * 128 * 256)
        ran = stub.Launch(tj.LaunchRequest(handle=reply.handle, inputs=[x, x]), timeout=120)
        assert ran.ok, ran.error
