# SPDX-License-Identifier: Apache-2.0
"""Frontend budgets against a real tilejitd (issue 16, the bounded frontend).

Hostile factories, sent at once from several threads to a daemon started with
small --frontend-max-* budgets: a host loop of 2^40 steps, list and string
doubling, unbounded recursion and a shared nested value of 2^64 leaves turned
into text. Each compile ends, with no client deadline, as a failed compile
whose error names the budget and its flag; Health answers SERVING meanwhile,
and a normal compile succeeds afterwards.

Environment: TILEJITD, TILEJIT_KERNELS_DIR, PROTOC, TILEJIT_PROTO_DIR.
"""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from daemon import Daemon  # noqa: E402
from stubs import Stub, health, tj, typed  # noqa: E402

KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")
pytestmark = pytest.mark.timeout(180)

HEADER = "import tilelang\n@tilelang.jit(out_idx=[1])\ndef k(M, N):\n"
HOSTILE = {
    "loop": ("    s = 0\n    for i in range(2 ** 40):\n        s += 1\n", "--frontend-max-steps"),
    "list": ("    x = [0]\n    for i in range(64):\n        x = x + x\n",
             "--frontend-max-memory-mb"),
    "string": ("    x = 'ab'\n    for i in range(64):\n        x = x + x\n",
               "--frontend-max-memory-mb"),
    "recursion": ("    def f(n):\n        return f(n + 1)\n    f(0)\n",
                  "--frontend-max-call-depth"),
    "nested": ("    x = [0]\n    for i in range(64):\n        x = [x, x]\n    s = str(x)\n",
               "--frontend-max-steps"),
}


def hostile(body):
    req = tj.CompileRequest(source=HEADER + body + "    return s\n", entry="k",
                            file_name="hostile.py")
    req.typed_args.append(typed(16))
    req.typed_args.append(typed(64))
    return req


def test_hostile_factories_end_with_the_budget_they_broke(tmp_path):
    flags = ["--frontend-max-steps", "200000", "--frontend-max-memory-mb", "16",
             "--frontend-max-call-depth", "20", "--workers", "2"]
    with Daemon(tmp_path, *flags) as d, grpc.insecure_channel(d.address) as ch:
        stub = Stub(ch)
        cases = [name for name in HOSTILE for _ in range(4)]
        with ThreadPoolExecutor(max_workers=len(cases)) as pool:
            futures = [pool.submit(stub.Compile, hostile(HOSTILE[n][0])) for n in cases]
            while not all(f.done() for f in futures):
                r = stub.HealthCheck(health.HealthCheckRequest(service=""), timeout=10)
                assert r.status == health.HealthCheckResponse.SERVING
            for name, f in zip(cases, futures):
                reply = f.result()
                assert not reply.ok, name
                assert HOSTILE[name][1] in reply.error, (name, reply.error)
                assert "hostile.py:" in reply.error, (name, reply.error)
        good = tj.CompileRequest(
            source=open(os.path.join(KERNELS, "elementwise_add_expert.py")).read(),
            entry="vec_add", file_name="elementwise_add_expert.py")
        for a in (128, 256, 64, 128):
            good.typed_args.append(typed(a))
        assert stub.Compile(good, timeout=120).ok


def test_a_budget_flag_out_of_range_is_refused_at_start(tmp_path):
    with pytest.raises(RuntimeError, match="--frontend-max-call-depth must be 1 to 48"):
        with Daemon(tmp_path, "--frontend-max-call-depth", "1000"):
            pass
