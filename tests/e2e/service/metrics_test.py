# SPDX-License-Identifier: Apache-2.0
"""tilejitd's Prometheus endpoint (issue 6, acceptance 8).

Traffic that exercises every family (a cold compile, a SQLite hit after a
restart, memory hits, a single-flight join, a kernel error, malformed and
unknown requests, a Launch, admin calls), then one scrape of /metrics that
must hold: requests by RPC and code; latency histograms per phase (queue,
frontend, backend, cache get and put, ...) that are well formed; hits per
tier; single-flight joins; evictions, corruptions, write failures,
quarantined files; queue depth and compiles in flight.

Environment: TILEJITD, TILEJIT_KERNELS_DIR, PROTOC, TILEJIT_PROTO_DIR.
"""
import os
import re
import sys
import urllib.request

import grpc
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from daemon import Daemon  # noqa: E402
from stubs import Stub, tj, typed  # noqa: E402

KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")
SOURCE = open(os.path.join(KERNELS, "elementwise_add_expert.py")).read()


def add(n, source=SOURCE):
    return tj.CompileRequest(source=source, entry="vec_add", file_name="add.py",
                             typed_args=[typed(a) for a in [64, 64 * n, 64, 64]])


def traffic(stub):
    assert stub.Compile(add(1), timeout=60).tier == "sqlite"
    assert stub.Compile(add(1), timeout=60).tier == "memory"
    # Two identical cold compiles at once: the back end is slowed, so the second joins.
    first, second = (stub.Compile.future(add(2), timeout=60) for _ in range(2))
    assert {first.result().tier, second.result().tier} == {"compiled", "joined"}
    assert not stub.Compile(add(3, SOURCE.replace("T.tile.add(", "T.tile.nope(")),
                            timeout=60).ok
    for bad in (lambda: stub.Compile(tj.CompileRequest(), timeout=60),
                lambda: stub.GetKernel(tj.GetKernelRequest(handle="tj1_" + "0" * 64),
                                       timeout=60)):
        try:
            bad()
            raise AssertionError("expected an error")
        except grpc.RpcError:
            pass
    handle = stub.Compile(add(1), timeout=60).handle
    x = np.ones((64, 64), dtype=np.float32)
    t = tj.Tensor(dtype="float32", shape=[64, 64], data=x.tobytes())
    assert stub.Launch(tj.LaunchRequest(handle=handle, inputs=[t, t]), timeout=60).ok
    stub.List(tj.ListRequest(), timeout=60)
    stub.Stats(tj.StatsRequest(), timeout=60)


def families(text):
    """{family: type} from the # TYPE lines."""
    return dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))


def test_scrape_finds_every_family(tmp_path):
    with Daemon(tmp_path / "cache") as first:
        with grpc.insecure_channel(first.address) as ch:
            assert Stub(ch).Compile(add(1), timeout=60).tier == "compiled"
    with Daemon(tmp_path / "cache", "--test-backend-delay-ms", "1000", metrics=True) as daemon:
        with grpc.insecure_channel(daemon.address) as ch:
            traffic(Stub(ch))
        url = f"http://127.0.0.1:{daemon.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=30) as r:
            assert r.headers["Content-Type"].startswith("text/plain")
            text = r.read().decode()
        m = daemon.scrape()

    types = families(text)
    for name, kind in [("tilejit_requests_total", "counter"),
                       ("tilejit_phase_seconds", "histogram"),
                       ("tilejit_cache_hits_total", "counter"),
                       ("tilejit_cache_misses_total", "counter"),
                       ("tilejit_backend_compiles_total", "counter"),
                       ("tilejit_single_flight_joins_total", "counter"),
                       ("tilejit_cache_evictions_total", "counter"),
                       ("tilejit_cache_corruptions_total", "counter"),
                       ("tilejit_cache_write_failures_total", "counter"),
                       ("tilejit_cache_quarantined_files", "gauge"),
                       ("tilejit_queue_depth", "gauge"),
                       ("tilejit_compiles_in_flight", "gauge")]:
        assert types.get(name) == kind, (name, types.get(name))

    req = 'tilejit_requests_total{{method="{}",code="{}"}}'
    assert m[req.format("Compile", "OK")] == 6
    assert m[req.format("Compile", "INVALID_ARGUMENT")] == 1
    assert m[req.format("GetKernel", "NOT_FOUND")] == 1
    for method in ("Launch", "List", "Stats"):
        assert m[req.format(method, "OK")] == 1, method

    for phase in ("digest", "memo", "frontend", "store_get", "queue", "backend", "store_put",
                  "total", "launch"):
        count = m[f'tilejit_phase_seconds_count{{phase="{phase}"}}']
        assert count >= 1, phase
        assert m[f'tilejit_phase_seconds_bucket{{phase="{phase}",le="+Inf"}}'] == count
        assert m[f'tilejit_phase_seconds_sum{{phase="{phase}"}}'] >= 0
    # The slowed back end shows in its own histogram: no run under a second.
    assert m['tilejit_phase_seconds_bucket{phase="backend",le="0.5"}'] == 0

    assert m['tilejit_cache_hits_total{tier="sqlite"}'] == 1
    assert m['tilejit_cache_hits_total{tier="memory"}'] >= 2
    assert m["tilejit_single_flight_joins_total"] == 1
    assert m["tilejit_backend_compiles_total"] == 1
    for zero in ("tilejit_cache_evictions_total", "tilejit_cache_corruptions_total",
                 "tilejit_cache_write_failures_total", "tilejit_cache_quarantined_files",
                 "tilejit_queue_depth", "tilejit_compiles_in_flight"):
        assert m[zero] == 0, zero
