# SPDX-License-Identifier: Apache-2.0
"""Security end to end (issue 16, acceptance 2), against real tilejitd processes:

- with --auth-tokens: no token is UNAUTHENTICATED; a read token cannot compile and a compile
  token cannot evict (PERMISSION_DENIED); an admin token can; health needs no token; each
  admin call is logged with the token's name and the peer;
- SIGHUP reloads the token file: a revoked token is refused afterwards, and a bad file keeps
  the tokens in force and logs the error;
- a malformed token file, a TLS key that is not the certificate's and a non-loopback
  --listen without tokens stop tilejitd at start;
- TLS with a CA and a server certificate made by openssl here works, plaintext to the TLS
  port fails; with --tls-client-ca a client without a certificate (or with one another CA
  signed) is refused;
- the tilejit CLI with --token/--tls-* and with TILEJIT_TOKEN/TILEJIT_TLS_* in its
  environment.

Environment: TILEJITD, TILEJIT_CLI, TILEJIT_KERNELS_DIR, PROTOC, TILEJIT_PROTO_DIR.
"""
import hashlib
import os
import signal
import subprocess
import sys
import time

import grpc
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from certs import make_certs  # noqa: E402
from daemon import TILEJITD, Daemon  # noqa: E402
from stubs import Stub, health, tj, typed  # noqa: E402

CLI = os.environ.get("TILEJIT_CLI", "build/client/tilejit")
KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")
TIMEOUT = 60
pytestmark = pytest.mark.timeout(180)

# name: (role, token)
TOKENS = {"reader": ("read", "r-secret"), "builder": ("compile", "c-secret"),
          "ops": ("admin", "a-secret"), "temp": ("admin", "t-secret")}


def write_tokens(path, names, extra=""):
    with open(path, "w") as f:
        f.write("# test tokens\n")
        for name in names:
            role, token = TOKENS[name]
            f.write(f"{role} {hashlib.sha256(token.encode()).hexdigest()} {name}\n")
        f.write(extra)


def auth(name):
    return (("authorization", "Bearer " + TOKENS[name][1]),)


def vec_add():
    req = tj.CompileRequest(source=open(os.path.join(KERNELS, "elementwise_add_expert.py")).read(),
                            entry="vec_add", file_name="elementwise_add_expert.py")
    for a in (512, 1024, 64, 256):
        req.typed_args.append(typed(a))
    return req


def code_of(call):
    with pytest.raises(grpc.RpcError) as e:
        call()
    return e.value.code()


def wait_for(predicate, what, limit=20):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def tokened(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tokened")
    tokens = os.path.join(folder, "tokens.txt")
    write_tokens(tokens, ["reader", "builder", "ops"])
    with Daemon(folder, "--auth-tokens", tokens) as d:
        with grpc.insecure_channel(d.address) as channel:
            yield d, Stub(channel)


def test_no_token_is_unauthenticated(tokened):
    _, stub = tokened
    with pytest.raises(grpc.RpcError) as e:
        stub.Stats(tj.StatsRequest(), timeout=TIMEOUT)
    assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "Bearer TOKEN" in e.value.details()
    assert code_of(lambda: stub.Compile(vec_add(), timeout=TIMEOUT,
                                        metadata=(("authorization", "Bearer nope"),))) == \
        grpc.StatusCode.UNAUTHENTICATED


def test_read_cannot_compile_compile_cannot_evict_admin_can(tokened):
    daemon, stub = tokened
    assert code_of(lambda: stub.Compile(vec_add(), timeout=TIMEOUT, metadata=auth("reader"))) == \
        grpc.StatusCode.PERMISSION_DENIED
    r = stub.Compile(vec_add(), timeout=TIMEOUT, metadata=auth("builder"))
    assert r.ok, r.error
    stub.GetKernel(tj.GetKernelRequest(handle=r.handle), timeout=TIMEOUT, metadata=auth("reader"))
    evict = tj.EvictRequest(handles=[r.handle])
    with pytest.raises(grpc.RpcError) as e:
        stub.Evict(evict, timeout=TIMEOUT, metadata=auth("builder"))
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert e.value.details() == "Evict needs the admin role; token 'builder' has the compile role"
    assert stub.Evict(evict, timeout=TIMEOUT, metadata=auth("ops")).evicted == 1
    wait_for(lambda: "admin call Evict by token 'ops' from ipv4:127.0.0.1:" in daemon.log(),
             "the admin call's log line")
    assert "admin call Evict by token 'builder' from ipv4:127.0.0.1:" in daemon.log()


def test_health_needs_no_token(tokened):
    _, stub = tokened
    r = stub.HealthCheck(health.HealthCheckRequest(service=""), timeout=TIMEOUT)
    assert r.status == health.HealthCheckResponse.SERVING


def test_sighup_reload_takes_a_revoked_token_away(tmp_path):
    tokens = os.path.join(tmp_path, "tokens.txt")
    write_tokens(tokens, ["ops", "temp"])
    with Daemon(tmp_path, "--auth-tokens", tokens) as d, grpc.insecure_channel(d.address) as ch:
        stub = Stub(ch)
        stub.Stats(tj.StatsRequest(), timeout=TIMEOUT, metadata=auth("temp"))
        write_tokens(tokens, ["ops"])
        d.proc.send_signal(signal.SIGHUP)

        def revoked():
            try:
                stub.Stats(tj.StatsRequest(), timeout=TIMEOUT, metadata=auth("temp"))
                return False
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.UNAUTHENTICATED
                return True
        wait_for(revoked, "the revoked token to be refused")
        stub.Stats(tj.StatsRequest(), timeout=TIMEOUT, metadata=auth("ops"))
        # A bad file on reload keeps the tokens in force and says what is wrong.
        write_tokens(tokens, ["reader"], extra="superuser " + "0" * 64 + "\n")
        d.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: f"{tokens}:3: unknown role 'superuser'" in d.log(), "the reload error")
        stub.Stats(tj.StatsRequest(), timeout=TIMEOUT, metadata=auth("ops"))
        assert code_of(lambda: stub.Stats(tj.StatsRequest(), timeout=TIMEOUT,
                                          metadata=auth("reader"))) == \
            grpc.StatusCode.UNAUTHENTICATED
        assert d.proc.poll() is None


def run_tilejitd(*flags):
    return subprocess.run([TILEJITD, "--memory-only", *flags], capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def test_a_malformed_token_file_stops_the_daemon_at_start(tmp_path):
    tokens = os.path.join(tmp_path, "tokens.txt")
    write_tokens(tokens, ["ops"], extra="admin not-a-digest\n")
    r = run_tilejitd("--listen", "127.0.0.1:0", "--auth-tokens", tokens)
    assert r.returncode != 0
    assert f"{tokens}:3: expected the token's SHA-256 as 64 hex digits" in r.stdout + r.stderr


def test_a_non_loopback_listen_without_tokens_is_refused_at_start(tmp_path):
    r = run_tilejitd("--listen", "0.0.0.0:0")
    assert r.returncode == 2
    assert "--auth-tokens" in r.stderr and "--insecure-listen" in r.stderr, r.stderr
    assert "tilejitd listening" not in r.stdout
    # --insecure-listen says it is meant: the daemon starts.
    with Daemon(tmp_path, "--insecure-listen", listen="0.0.0.0:0") as d:
        with grpc.insecure_channel(d.address) as ch:
            assert serving(ch)
    assert "--insecure-listen: anyone who can reach 0.0.0.0:0" in d.log()


def tls_channel(address, certs, client=None):
    key, cert = (None, None)
    if client:
        key = open(certs[client + "_key"], "rb").read()
        cert = open(certs[client], "rb").read()
    creds = grpc.ssl_channel_credentials(root_certificates=open(certs["ca"], "rb").read(),
                                         private_key=key, certificate_chain=cert)
    return grpc.secure_channel(address, creds)


def serving(channel):
    r = Stub(channel).HealthCheck(health.HealthCheckRequest(service=""), timeout=10)
    return r.status == health.HealthCheckResponse.SERVING


def test_a_key_that_is_not_the_certificates_stops_the_daemon_at_start(certs):
    r = run_tilejitd("--listen", "127.0.0.1:0", "--tls-cert", certs["server"], "--tls-key",
                     certs["client_key"])
    assert r.returncode != 0
    assert (f"the TLS private key {certs['client_key']} is not the key of the certificate in "
            f"{certs['server']}") in r.stdout + r.stderr


def test_tls_works_and_plaintext_to_the_tls_port_fails(tmp_path, certs):
    with Daemon(tmp_path, "--tls-cert", certs["server"], "--tls-key", certs["server_key"]) as d:
        with tls_channel(d.address, certs) as ch:
            assert serving(ch)
            assert Stub(ch).Compile(vec_add(), timeout=TIMEOUT).ok
        with grpc.insecure_channel(d.address) as plain:
            assert code_of(lambda: serving(plain)) == grpc.StatusCode.UNAVAILABLE


def test_mtls_refuses_clients_without_a_certificate_of_its_ca(tmp_path, certs):
    with Daemon(tmp_path, "--tls-cert", certs["server"], "--tls-key", certs["server_key"],
                "--tls-client-ca", certs["ca"]) as d:
        with tls_channel(d.address, certs, client="client") as ch:
            assert serving(ch)
        for client in (None, "stranger"):
            with tls_channel(d.address, certs, client=client) as ch:
                assert code_of(lambda: serving(ch)) == grpc.StatusCode.UNAVAILABLE, client


def cli(*args, env=None):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def test_cli_with_token_and_mtls_flags_and_environment(tmp_path, certs):
    tokens = os.path.join(tmp_path, "tokens.txt")
    write_tokens(tokens, ["reader", "builder"])
    with Daemon(tmp_path, "--auth-tokens", tokens, "--tls-cert", certs["server"], "--tls-key",
                certs["server_key"], "--tls-client-ca", certs["ca"]) as d:
        tls = ["--tls-ca", certs["ca"], "--tls-cert", certs["client"],
               "--tls-key", certs["client_key"]]
        kernel = [os.path.join(KERNELS, "elementwise_add_expert.py"), "--entry", "vec_add",
                  "--arg", "512", "--arg", "1024", "--arg", "64", "--arg", "256"]
        r = cli("--server", d.address, *tls, "--token", "c-secret", "compile", *kernel)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip().startswith("tj1_"), r.stdout
        r = cli("--server", d.address, *tls, "stats")
        assert r.returncode == 2 and "UNAUTHENTICATED" in r.stderr, r.stderr
        r = cli("--server", d.address, *tls, "--token", "r-secret", "compile", *kernel)
        assert r.returncode == 2, r.stderr
        assert "PERMISSION_DENIED: Compile needs the compile role" in r.stderr, r.stderr
        env = {"TILEJIT_SERVER": d.address, "TILEJIT_TOKEN": "r-secret",
               "TILEJIT_TLS_CA": certs["ca"], "TILEJIT_TLS_CERT": certs["client"],
               "TILEJIT_TLS_KEY": certs["client_key"]}
        r = cli("stats", env=env)
        assert r.returncode == 0, r.stderr
        assert '"compiles": "1"' in r.stdout, r.stdout
        # Without a client certificate the handshake fails: the daemon is unavailable.
        del env["TILEJIT_TLS_CERT"], env["TILEJIT_TLS_KEY"]
        r = cli("stats", env=env)
        assert r.returncode == 2 and "UNAVAILABLE" in r.stderr, r.stderr
