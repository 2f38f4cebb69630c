# SPDX-License-Identifier: Apache-2.0
"""Single-flight through a real tilejitd (issue 6, acceptance 3).

64 identical cold compiles arrive at once at a daemon with one worker and a
compile queue of 4. The back end runs exactly once (read from the metrics
endpoint), all 64 get the same handle and key, and none is refused: the
requests that join the compile in flight take no queue slot (more of them
join than the queue could hold).

The daemon runs with --test-backend-delay-ms, so that the one back-end run
lasts long enough for every request to arrive while it is in flight; without
it the back end (a few milliseconds) could finish before the last request
reaches the daemon, which would then be a plain cache hit.

Environment: TILEJITD, TILEJIT_KERNELS_DIR, PROTOC, TILEJIT_PROTO_DIR.
"""
import collections
import os
import sys
import threading

import grpc

sys.path.insert(0, os.path.dirname(__file__))
from daemon import Daemon  # noqa: E402
from stubs import Stub, tj, typed  # noqa: E402

KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")
N = 64
QUEUE = 4
DELAY_MS = 3000


def _request():
    path = os.path.join(KERNELS, "gemm_expert.py")
    return tj.CompileRequest(source=open(path).read(), entry="matmul", file_name=path,
                             typed_args=[typed(a) for a in [256, 512, 384, 128, 256, 64]])


def _compile_all(address, request):
    """N threads, each with its own channel, released together by a barrier."""
    barrier = threading.Barrier(N)
    results = [None] * N

    def one(i):
        with grpc.insecure_channel(address) as ch:
            stub = Stub(ch)
            grpc.channel_ready_future(ch).result(timeout=60)
            barrier.wait()
            try:
                results[i] = stub.Compile(request, timeout=120)
            except grpc.RpcError as e:
                results[i] = e

    threads = [threading.Thread(target=one, args=(i,)) for i in range(N)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_64_identical_cold_compiles_run_the_back_end_once(tmp_path):
    with Daemon(tmp_path / "cache", "--workers", "1", "--queue-capacity", str(QUEUE),
                "--test-backend-delay-ms", str(DELAY_MS), metrics=True) as daemon:
        before = daemon.scrape()
        assert before["tilejit_backend_compiles_total"] == 0
        results = _compile_all(daemon.address, _request())
        after = daemon.scrape()

    errors = [r for r in results if isinstance(r, grpc.RpcError)]
    assert not errors, [(e.code(), e.details()) for e in errors]
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert len({r.handle for r in results}) == 1
    assert len({r.key for r in results}) == 1
    assert after["tilejit_backend_compiles_total"] == 1
    tiers = collections.Counter(r.tier for r in results)
    assert tiers["compiled"] == 1, tiers
    assert set(tiers) <= {"compiled", "joined", "memory"}, tiers
    # Every joiner is counted; and more joined than the queue has slots, so none took one.
    assert after["tilejit_single_flight_joins_total"] == tiers["joined"], tiers
    assert tiers["joined"] > QUEUE, tiers
    assert after['tilejit_requests_total{method="Compile",code="OK"}'] == N
    assert after.get('tilejit_requests_total{method="Compile",code="RESOURCE_EXHAUSTED"}',
                     0) == 0
    # The joiners waited for the leader's compile, whose passes they report too.
    joined = next(r for r in results if r.tier == "joined")
    assert {t.phase for t in joined.timings} >= {"queue", "backend"}
