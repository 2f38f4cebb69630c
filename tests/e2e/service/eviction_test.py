# SPDX-License-Identifier: Apache-2.0
"""Size-capped SQLite cache behind a real tilejitd (issue 6, acceptance 6).

The daemon runs with --cache-max-bytes room for four kernels. Inserting past
the cap keeps the stored bytes under the cap after every compile, evicts the
least recently used entry first (a kernel re-used through the memory tier
counts as used), and never evicts a pinned one (pinned with the tilejit CLI
and the Pin RPC); once unpinned it ages out like any other.

Environment: TILEJITD, TILEJIT_CLI, TILEJIT_KERNELS_DIR, PROTOC, TILEJIT_PROTO_DIR.
"""
import os
import subprocess
import sys
import time

import grpc

sys.path.insert(0, os.path.dirname(__file__))
from daemon import Daemon  # noqa: E402
from stubs import Stub, tj, typed  # noqa: E402

KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")
CLI = os.environ.get("TILEJIT_CLI", "build/client/tilejit")
SOURCE = open(os.path.join(KERNELS, "elementwise_add_expert.py")).read()


def request(i):
    """A distinct small kernel per i (vec_add over a width of 64 * (i + 1))."""
    return tj.CompileRequest(source=SOURCE, entry="vec_add", file_name="add.py",
                             typed_args=[typed(a) for a in [64, 64 * (i + 1), 64, 64]])


def stored(stub):
    """{handle: (bytes, pinned)} of the SQLite store."""
    entries = stub.List(tj.ListRequest(limit=1000), timeout=60).entries
    return {e.handle: (e.size_bytes, e.pinned) for e in entries}


def entry_size(tmp_path):
    """The largest stored size among the kernels this test uses, from an uncapped daemon."""
    with Daemon(tmp_path / "probe") as probe:
        with grpc.insecure_channel(probe.address) as ch:
            stub = Stub(ch)
            for i in range(12):
                assert stub.Compile(request(i), timeout=120).ok
            sizes = [size for size, _ in stored(stub).values()]
    return max(sizes), min(sizes)


def test_cap_evicts_lru_first_and_never_pinned(tmp_path):
    biggest, smallest = entry_size(tmp_path)
    cap = 4 * biggest + smallest // 2  # four entries fit, a fifth does not
    with Daemon(tmp_path / "capped", "--cache-max-bytes", str(cap), metrics=True) as daemon:
        with grpc.insecure_channel(daemon.address) as ch:
            stub = Stub(ch)
            handles = []

            def compile_(i):
                r = stub.Compile(request(i), timeout=120)
                assert r.ok, r.error
                time.sleep(0.01)  # distinct access times (the LRU clock counts milliseconds)
                return r.handle

            for i in range(4):
                handles.append(compile_(i))
            assert set(stored(stub)) == set(handles)
            pin = subprocess.run([CLI, "--server", daemon.address, "cache", "pin", handles[0]],
                                 capture_output=True, text=True, timeout=60)
            assert pin.returncode == 0, pin.stderr
            assert compile_(1) == handles[1]  # a memory-tier hit: k1 is now recently used

            handles.append(compile_(4))  # evicts k2, the least recently used unpinned entry
            now = stored(stub)
            assert set(now) == {handles[0], handles[1], handles[3], handles[4]}, now
            assert now[handles[0]][1], "k0 is pinned"
            handles.append(compile_(5))  # evicts k3
            assert set(stored(stub)) == {handles[0], handles[1], handles[4], handles[5]}

            for i in range(6, 12):
                handles.append(compile_(i))
                now = stored(stub)
                assert sum(size for size, _ in now.values()) <= cap, now
                assert len(now) == 4 and handles[0] in now, now
            assert daemon.scrape()["tilejit_cache_evictions_total"] == 8

            # Unpinned (by RPC this time), k0 is the oldest entry and goes next.
            stub.Unpin(tj.PinRequest(handle=handles[0]), timeout=60)
            stub.Pin(tj.PinRequest(handle=handles[11]), timeout=60)
            handles.append(compile_(12))
            now = stored(stub)
            assert handles[0] not in now and handles[11] in now and handles[12] in now, now
            assert sum(size for size, _ in now.values()) <= cap
