# SPDX-License-Identifier: Apache-2.0
"""A cluster of tilejitd nodes sharing one Redis tier (issue 17, acceptance 1-5).

Each test starts a real redis-server and several daemons on loopback, each with its own
SQLite file and the same cluster key file, and reads tiers from Compile responses and
counters from Stats and the metrics endpoint:

- a kernel compiled on node A is a Redis hit on B and C, with the same bytes, and their
  back ends never run;
- 32 identical cold requests spread over three nodes run the back end once cluster-wide;
- a holder killed with -9 mid-compile: the node waiting for it takes the lapsed lease and
  compiles, and every answer a client gets is whole;
- a compile error is shared: the waiting node reports it without compiling;
- Redis stopped, paused (SIGSTOP) or replaced by a server answering garbage: compiles still
  succeed, and the circuit breaker opens and closes again;
- values signed with a key a node does not hold are refused and counted, and a rotated ring
  (new key current, old key previous) keeps the old entries valid;
- an export made with the cluster key imports on its signatures into a node with the same
  key, is refused by a node with another key, and is recompiled by a node without one.

Environment: TILEJITD, TILEJIT_KERNELS_DIR, PROTOC, TILEJIT_PROTO_DIR.
"""
import collections
import os
import secrets
import sys
import threading
import time

import grpc
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from daemon import Daemon  # noqa: E402
from redis_server import GarbageServer, RedisServer, free_port  # noqa: E402
from stubs import Stub, tj, typed  # noqa: E402

KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")


def gemm(*args):
    path = os.path.join(KERNELS, "gemm_expert.py")
    return tj.CompileRequest(source=open(path).read(), entry="matmul", file_name=path,
                             typed_args=[typed(a) for a in args], include_binary=True)


GEMM = (256, 512, 384, 128, 256, 64)


def vec_add(*args):
    path = os.path.join(KERNELS, "elementwise_add_expert.py")
    return tj.CompileRequest(source=open(path).read(), entry="vec_add", file_name=path,
                             typed_args=[typed(a) for a in args], include_binary=True)


def key_file(path, *keys):
    path.write_text("".join(k + "\n" for k in keys))
    path.chmod(0o600)
    return str(path)


def node(tmp_path, name, redis_url, keys, *extra):
    return Daemon(tmp_path / name, "--redis", redis_url, "--cluster-key-file", keys,
                  "--redis-timeout-ms", "200", *extra, metrics=True)


def compile_on(d, request, timeout=120):
    with grpc.insecure_channel(d.address) as ch:
        return Stub(ch).Compile(request, timeout=timeout)


def stats(d):
    with grpc.insecure_channel(d.address) as ch:
        return Stub(ch).Stats(tj.StatsRequest(), timeout=30)


def wait_for(predicate, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def redis(tmp_path):
    with RedisServer(tmp_path / "redis") as server:
        yield server


@pytest.fixture
def keys(tmp_path):
    return key_file(tmp_path / "cluster.key", secrets.token_hex(32))


def test_a_kernel_compiled_on_one_node_is_a_redis_hit_on_the_others(tmp_path, redis, keys):
    nodes = [node(tmp_path, n, redis.url, keys) for n in "abc"]
    for d in nodes:
        d.start()
    try:
        a, b, c = nodes
        first = compile_on(a, gemm(*GEMM))
        assert first.ok and first.tier == "compiled"
        assert redis.command("EXISTS", f"tilejit:v1:{first.key}") == 1
        for d in (b, c):
            hit = compile_on(d, gemm(*GEMM))
            assert hit.ok and hit.tier == "redis", hit.tier
            assert hit.binary == first.binary and hit.key == first.key
            s = stats(d)
            assert s.compiles == 0 and s.hits_by_tier["redis"] == 1
            assert s.shared_tier["signature_failures"] == 0
            assert s.shared_tier_breaker == "closed"
            # Backfilled: the next request is served by this node's own tiers.
            again = compile_on(d, gemm(*GEMM))
            assert again.tier == "memory" and again.binary == first.binary
            assert d.scrape()["tilejit_backend_compiles_total"] == 0
        assert stats(a).compiles == 1
        assert stats(a).compiler_fingerprint == stats(b).compiler_fingerprint
    finally:
        for d in nodes:
            d.stop()


def test_32_cold_requests_over_three_nodes_compile_once(tmp_path, redis, keys):
    nodes = [node(tmp_path, n, redis.url, keys, "--test-backend-delay-ms", "2500")
             for n in "abc"]
    for d in nodes:
        d.start()
    try:
        n = 32
        barrier = threading.Barrier(n)
        results = [None] * n

        def one(i):
            with grpc.insecure_channel(nodes[i % 3].address) as ch:
                grpc.channel_ready_future(ch).result(timeout=60)
                barrier.wait()
                try:
                    results[i] = Stub(ch).Compile(gemm(*GEMM), timeout=120)
                except grpc.RpcError as e:
                    results[i] = e

        threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        failed = [r for r in results if isinstance(r, grpc.RpcError) or not r.ok]
        assert not failed, failed
        assert len({r.binary for r in results}) == 1
        compiles = [d.scrape()["tilejit_backend_compiles_total"] for d in nodes]
        assert sum(compiles) == 1, compiles
        tiers = collections.Counter(r.tier for r in results)
        assert tiers["compiled"] == 1, tiers
        assert set(tiers) <= {"compiled", "joined", "redis", "memory", "sqlite"}, tiers
        waits = [d.scrape()["tilejit_cluster_lease_waits_total"] for d in nodes]
        remote = [d.scrape()["tilejit_cluster_remote_kernels_total"] for d in nodes]
        assert sum(waits) == 2 and sum(remote) == 2, (waits, remote)
        assert redis.command("KEYS", "tilejit:v1:lease:*") == []
    finally:
        for d in nodes:
            d.stop()


def test_holder_killed_mid_compile_lets_the_waiting_node_take_over(tmp_path, redis, keys):
    lease = ("--redis-lease-ms", "1000")
    a = node(tmp_path, "a", redis.url, keys, *lease, "--test-backend-delay-ms", "30000").start()
    b = node(tmp_path, "b", redis.url, keys, *lease, "--test-backend-delay-ms", "500").start()
    try:
        results = {}

        def ask(name, d):
            try:
                results[name] = compile_on(d, gemm(*GEMM))
            except grpc.RpcError as e:
                results[name] = e

        ta = threading.Thread(target=ask, args=("a", a))
        ta.start()
        assert wait_for(lambda: a.scrape()["tilejit_cluster_leases_held"] == 1)
        tb = threading.Thread(target=ask, args=("b", b))
        tb.start()
        assert wait_for(lambda: b.scrape()["tilejit_cluster_lease_waits_total"] == 1)
        # The heartbeat keeps A's lease well past its TTL while A is alive.
        time.sleep(2.5)
        assert b.scrape()["tilejit_cluster_takeovers_total"] == 0
        a.kill()
        tb.join(60)
        ta.join(60)
        assert isinstance(results["a"], grpc.RpcError)
        assert results["a"].code() == grpc.StatusCode.UNAVAILABLE
        got = results["b"]
        assert not isinstance(got, grpc.RpcError) and got.ok, got
        assert got.tier == "compiled"
        m = b.scrape()
        assert m["tilejit_cluster_takeovers_total"] == 1
        assert m["tilejit_backend_compiles_total"] == 1
        # B's kernel is whole: a fresh node reads it from Redis, verified, byte for byte.
        c = node(tmp_path, "c", redis.url, keys).start()
        try:
            hit = compile_on(c, gemm(*GEMM))
            assert hit.tier == "redis" and hit.binary == got.binary
        finally:
            c.stop()
    finally:
        a.stop()
        b.stop()


def test_a_compile_error_is_shared_with_the_waiting_node(tmp_path, redis, keys):
    too_big = (256, 1024, 256, 1024)  # three 512 KiB UB buffers: memory planning refuses
    a = node(tmp_path, "a", redis.url, keys, "--test-backend-delay-ms", "1500").start()
    b = node(tmp_path, "b", redis.url, keys).start()
    try:
        results = {}
        ta = threading.Thread(target=lambda: results.update(a=compile_on(a, vec_add(*too_big))))
        ta.start()
        assert wait_for(lambda: a.scrape()["tilejit_cluster_leases_held"] == 1)
        got = compile_on(b, vec_add(*too_big))
        ta.join(60)
        assert not results["a"].ok and not got.ok
        assert "needs 524288 bytes" in got.error, got.error
        # A's diagnostics point into A's request: B reports them without a location.
        assert got.diagnostics and all(d.line == 0 for d in got.diagnostics), got.diagnostics
        assert any(d.line > 0 for d in results["a"].diagnostics)
        m = b.scrape()
        assert m["tilejit_cluster_remote_errors_total"] == 1
        assert m["tilejit_backend_compiles_total"] == 0
    finally:
        a.stop()
        b.stop()


def test_redis_down_paused_or_garbage_never_fails_a_compile(tmp_path, keys):
    port = free_port()
    redis = RedisServer(tmp_path / "redis", port=port).start()
    a = node(tmp_path, "a", redis.url, keys, "--redis-breaker-cooldown-ms", "500").start()
    try:
        assert compile_on(a, gemm(*GEMM)).tier == "compiled"
        # Stopped: every Redis call fails; the breaker opens; compiles go on locally.
        redis.kill()
        for m in (128, 384, 512):
            r = compile_on(a, gemm(m, *GEMM[1:]))
            assert r.ok and r.tier == "compiled"
        m = a.scrape()
        assert m["tilejit_redis_breaker_opens_total"] >= 1
        assert m["tilejit_redis_errors_total"] >= 3
        assert m["tilejit_cluster_unavailable_total"] >= 1
        # Back on the same port: after the cooldown a probe succeeds and the breaker closes.
        redis = RedisServer(tmp_path / "redis", port=port).start()
        time.sleep(0.6)
        r = compile_on(a, gemm(640, *GEMM[1:]))
        assert r.ok and r.tier == "compiled"
        assert wait_for(lambda: a.scrape()["tilejit_redis_breaker_open"] == 0)
        assert redis.command("EXISTS", f"tilejit:v1:{r.key}") == 1
        # Paused: calls time out (200 ms each), compiles still succeed.
        redis.pause()
        try:
            r = compile_on(a, gemm(768, *GEMM[1:]), timeout=60)
            assert r.ok and r.tier == "compiled"
            assert a.scrape()["tilejit_redis_timeouts_total"] >= 1
        finally:
            redis.resume()
    finally:
        a.stop()
        redis.stop()
    garbage = GarbageServer()
    g = node(tmp_path, "g", garbage.url, keys).start()
    try:
        for m in (128, 384):
            r = compile_on(g, gemm(m, *GEMM[1:]))
            assert r.ok and r.tier == "compiled"
        m = g.scrape()
        assert garbage.connections >= 1
        assert m["tilejit_redis_errors_total"] >= 3
        assert m["tilejit_redis_breaker_opens_total"] >= 1
        assert stats(g).shared_tier_breaker in ("open", "half-open")
    finally:
        g.stop()
        garbage.close()


def test_values_signed_with_an_unknown_key_are_refused_and_rotation_keeps_old_ones(
        tmp_path, redis):
    old, new, stranger = (secrets.token_hex(32) for _ in range(3))
    a = node(tmp_path, "a", redis.url, key_file(tmp_path / "old.key", old)).start()
    try:
        first = compile_on(a, gemm(*GEMM))
    finally:
        a.stop()
    # A node that does not hold the signing key refuses the value and compiles itself.
    s = node(tmp_path, "s", redis.url, key_file(tmp_path / "stranger.key", stranger)).start()
    try:
        r = compile_on(s, gemm(*GEMM))
        assert r.ok and r.tier == "compiled"
        # Every read that meets the value counts it (the cold path reads the key more than
        # once: before the compile is queued, and again under the lease).
        failures = stats(s).shared_tier["signature_failures"]
        assert failures >= 1
        assert s.scrape()["tilejit_redis_signature_failures_total"] == failures
    finally:
        s.stop()
    # The stranger's Put replaced the value; a node with the old key refuses it in turn and
    # writes its own. Then rotate: new key current, old key previous.
    with node(tmp_path, "a2", redis.url, str(tmp_path / "old.key")) as a2:
        assert compile_on(a2, gemm(*GEMM)).tier == "compiled"
    rotated = node(tmp_path, "r", redis.url,
                   key_file(tmp_path / "rotated.key", new, old)).start()
    try:
        hit = compile_on(rotated, gemm(*GEMM))
        assert hit.tier == "redis" and hit.binary == first.binary
        assert stats(rotated).shared_tier["signature_failures"] == 0
        # A value with a valid MAC over other bytes: one flipped byte in the body.
        value = bytearray(redis.command("GET", f"tilejit:v1:{first.key}"))
        value[40] ^= 0x01
        redis.command("SET", f"tilejit:v1:{first.key}", bytes(value))
        fresh = node(tmp_path, "f", redis.url, str(tmp_path / "rotated.key")).start()
        try:
            r = compile_on(fresh, gemm(*GEMM))
            assert r.ok and r.tier == "compiled" and r.binary == first.binary
            assert stats(fresh).shared_tier["signature_failures"] >= 1
        finally:
            fresh.stop()
    finally:
        rotated.stop()


def test_signed_exports_import_without_recompiling_and_foreign_ones_are_refused(tmp_path, redis,
                                                                             keys):
    import subprocess
    cli = os.environ.get("TILEJIT_CLI", "build/client/tilejit")
    sizes = (128, 384, 512)
    out = tmp_path / "signed.tjx"
    with node(tmp_path, "a", redis.url, keys) as a:
        made = {m: compile_on(a, gemm(m, *GEMM[1:])) for m in sizes}
        r = subprocess.run([cli, "--server", a.address, "cache", "export", "-o", str(out)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
    assert out.read_bytes().count(b"blob cluster.mac 40 ") == len(sizes)
    redis.command("FLUSHALL")  # importers must not find the kernels in the shared tier

    def import_into(d):
        return subprocess.run([cli, "--server", d.address, "cache", "import", str(out)],
                              capture_output=True, text=True, timeout=240)

    with node(tmp_path, "b", redis.url, keys) as b:
        r = import_into(b)
        assert r.returncode == 0 and r.stdout.startswith(f"imported {len(sizes)},"), r.stderr
        m = b.scrape()
        assert m["tilejit_import_signed_total"] == len(sizes)  # taken on their signatures
        for size in sizes:
            hit = compile_on(b, gemm(size, *GEMM[1:]))
            assert hit.tier in ("memory", "sqlite") and hit.binary == made[size].binary
    foreign = key_file(tmp_path / "foreign.key", secrets.token_hex(32))
    with node(tmp_path, "c", redis.url, foreign) as c:
        r = import_into(c)
        assert r.returncode != 0 and "cluster signature does not verify" in r.stderr, r.stderr
        assert c.scrape()["tilejit_import_refusals_total"] == 1
    # No cluster key: each entry is verified by recompiling it, then taken.
    with Daemon(tmp_path / "d", metrics=True) as d:
        r = import_into(d)
        assert r.returncode == 0 and r.stdout.startswith(f"imported {len(sizes)},"), r.stderr
        assert d.scrape()["tilejit_import_signed_total"] == 0
