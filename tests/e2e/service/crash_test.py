# SPDX-License-Identifier: Apache-2.0
"""Crash safety of tilejitd's SQLite cache (issue 6, acceptance 5, first part).

500 concurrent compiles of distinct kernels (vec_add over 500 widths) run
against a daemon that is killed with SIGKILL in the middle of the burst. After
a restart on the same cache file:
- the daemon's start-up integrity check passes (no quarantine, logged as a
  plain open);
- the file passes PRAGMA integrity_check, and every blob matches its recorded
  SHA-256 (checked here, independently of the daemon);
- every compile acknowledged before the kill is stored, and reading every
  stored entry back through the daemon (GetKernel: a SQLite read with its
  SHA-256 check) returns the bytes that compile returned; no corruption is
  counted.

Each back-end run is slowed by --test-backend-delay-ms so that the burst is
still running when the kill lands (the back end itself takes milliseconds).

Environment: TILEJITD, TILEJIT_KERNELS_DIR, PROTOC, TILEJIT_PROTO_DIR.
"""
import hashlib
import os
import sqlite3
import sys
import time

import grpc

sys.path.insert(0, os.path.dirname(__file__))
from daemon import Daemon  # noqa: E402
from stubs import Stub, tj, typed  # noqa: E402

KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")
BURST = 500
KILL_AFTER = 120  # back-end runs started before the kill


def vec_add(i):
    path = os.path.join(KERNELS, "elementwise_add_expert.py")
    return tj.CompileRequest(source=open(path).read(), entry="vec_add", file_name=path,
                             include_binary=True,
                             typed_args=[typed(a) for a in [64, 64 * (i + 1), 64, 64]])


def wait_for(predicate, timeout=120):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def verify_file(path):
    """PRAGMA integrity_check and every blob's SHA-256, read with Python's own sqlite3."""
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = db.execute("SELECT entry_id, name, data, sha256 FROM blobs").fetchall()
        for entry_id, name, data, digest in rows:
            assert hashlib.sha256(data).hexdigest() == digest, (entry_id, name)
        orphans = db.execute("SELECT COUNT(*) FROM blobs WHERE entry_id NOT IN "
                             "(SELECT id FROM entries)").fetchone()[0]
        assert orphans == 0
        return db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]


def test_kill_9_mid_burst_leaves_every_stored_entry_valid(tmp_path):
    cache = tmp_path / "cache"
    daemon = Daemon(cache, "--workers", "2", "--queue-capacity", str(BURST),
                    "--max-rpc-threads", str(BURST + 100), "--max-calls-per-caller", str(BURST),
                    "--test-backend-delay-ms", "20",
                    metrics=True).start()
    acknowledged = {}
    with grpc.insecure_channel(daemon.address) as ch:
        stub = Stub(ch)
        # All 500 in flight at once (asynchronous calls on one channel).
        futures = [stub.Compile.future(vec_add(i), timeout=300) for i in range(BURST)]
        started = wait_for(
            lambda: daemon.scrape()["tilejit_backend_compiles_total"] >= KILL_AFTER)
        daemon.kill()
        for f in futures:
            try:
                r = f.result()
                assert r.ok, r.error
                acknowledged[r.handle] = r.binary
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.UNAVAILABLE, e
    assert started, "the burst did not get going"
    assert 0 < len(acknowledged) < BURST, "the kill did not land mid-burst"

    stored = verify_file(daemon.cache_path)
    print(f"acknowledged {len(acknowledged)}, stored {stored}")
    assert stored >= len(acknowledged)
    with Daemon(cache, metrics=True) as again:
        log = again.log()
        assert "opened cache database" in log and "CORRUPT" not in log, log
        with grpc.insecure_channel(again.address) as ch:
            stub = Stub(ch)
            entries = stub.List(tj.ListRequest(limit=1000), timeout=60).entries
            handles = {e.handle for e in entries}
            assert len(handles) == stored
            missing = set(acknowledged) - handles
            assert not missing, f"{len(missing)} acknowledged compiles were lost"
            for h in handles:
                got = stub.GetKernel(tj.GetKernelRequest(handle=h), timeout=60)
                assert got.tier == "sqlite"
                if h in acknowledged:
                    assert got.binary == acknowledged[h]
            # The interrupted compiles simply compile again.
            redo = stub.Compile(vec_add(BURST - 1), timeout=120)
            assert redo.ok and redo.tier in ("compiled", "sqlite"), (redo.tier, redo.error)
        metrics = again.scrape()
        assert metrics["tilejit_cache_corruptions_total"] == 0
        assert metrics["tilejit_cache_quarantined_files"] == 0
