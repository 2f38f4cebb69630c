# SPDX-License-Identifier: Apache-2.0
"""Damage to tilejitd's SQLite cache on disk (issue 6, acceptance 5, second part).

- A flipped byte inside a stored kernel binary (the blob itself, so SQLite's
  own structure stays valid) is caught by the SHA-256 check on read: counted
  in tilejit_cache_corruptions_total, the entry dropped, the kernel compiled
  again with identical bytes, and the healed entry served from SQLite after
  the next restart.
- A corrupted database header makes the daemon quarantine the file (renamed
  to kernels.sqlite.corrupt-<time>, logged as CORRUPT, counted in
  tilejit_cache_quarantined_files) and start serving on a fresh store.

Environment: TILEJITD, TILEJIT_KERNELS_DIR, PROTOC, TILEJIT_PROTO_DIR.
"""
import glob
import os
import sys

import grpc

sys.path.insert(0, os.path.dirname(__file__))
from daemon import Daemon  # noqa: E402
from stubs import Stub, health, tj, typed  # noqa: E402

KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")


def gemm_request():
    path = os.path.join(KERNELS, "gemm_expert.py")
    return tj.CompileRequest(source=open(path).read(), entry="matmul", file_name=path,
                             include_binary=True,
                             typed_args=[typed(a) for a in [256, 512, 384, 128, 256, 64]])


def compile_once(daemon, req):
    with grpc.insecure_channel(daemon.address) as ch:
        r = Stub(ch).Compile(req, timeout=120)
    assert r.ok, r.error
    return r


def flip_inside(path, binary):
    """Flips one byte of the stored copy of `binary` in the database file (or its WAL)."""
    for candidate in (path, path + "-wal"):
        if not os.path.exists(candidate):
            continue
        data = bytearray(open(candidate, "rb").read())
        # A varied 48-byte window of the binary (not padding), found once in the file: the
        # stored copy may be split over overflow pages, so try windows until one matches.
        for start in range(0, len(binary) - 48, 16):
            window = binary[start:start + 48]
            if len(set(window)) < 16 or data.count(window) != 1:
                continue
            data[data.find(window) + 24] ^= 0xFF
            with open(candidate, "wb") as f:
                f.write(data)
            return candidate
    raise AssertionError("the kernel's bytes were not found in the database file")


def test_flipped_blob_byte_is_detected_counted_and_recompiled(tmp_path):
    req = gemm_request()
    with Daemon(tmp_path / "cache") as first:
        cold = compile_once(first, req)
    assert cold.tier == "compiled"
    flip_inside(first.cache_path, cold.binary)

    with Daemon(tmp_path / "cache", metrics=True) as second:
        assert "CORRUPT" not in second.log()  # the file's structure is fine
        again = compile_once(second, req)
        metrics = second.scrape()
    assert again.tier == "compiled", again.tier  # the damaged entry was not served
    assert again.binary == cold.binary and again.handle == cold.handle
    assert metrics["tilejit_cache_corruptions_total"] == 1
    assert metrics["tilejit_backend_compiles_total"] == 1

    with Daemon(tmp_path / "cache", metrics=True) as third:
        healed = compile_once(third, req)
        assert third.scrape()["tilejit_cache_corruptions_total"] == 0
    assert healed.tier == "sqlite" and healed.binary == cold.binary


def test_corrupt_database_header_is_quarantined_and_daemon_starts_fresh(tmp_path):
    req = gemm_request()
    with Daemon(tmp_path / "cache") as first:
        cold = compile_once(first, req)
    path = first.cache_path
    with open(path, "r+b") as f:
        f.write(b"this is no longer a SQLite database header" + b"\0" * 58)

    with Daemon(tmp_path / "cache", metrics=True) as second:
        log = second.log()
        assert "CORRUPT cache database" in log and "moved aside" in log, log
        quarantined = glob.glob(path + ".corrupt-*")
        assert len([q for q in quarantined if not q.endswith("-wal")]) == 1, quarantined
        with grpc.insecure_channel(second.address) as ch:
            stub = Stub(ch)
            check = stub.HealthCheck(health.HealthCheckRequest(), timeout=60)
            assert check.status == health.HealthCheckResponse.SERVING
            assert len(stub.List(tj.ListRequest(), timeout=60).entries) == 0  # a fresh store
            fresh = stub.Compile(req, timeout=120)
        metrics = second.scrape()
    assert fresh.ok and fresh.tier == "compiled" and fresh.binary == cold.binary
    assert metrics["tilejit_cache_quarantined_files"] == 1
    assert os.path.getsize(path) > 0
