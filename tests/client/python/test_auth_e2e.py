# SPDX-License-Identifier: Apache-2.0
"""The package against tilejitd with tokens and TLS (issue 16), certificates made by openssl:

- tilejit.connect(address, token=..., tls_ca=...) compiles and runs a kernel;
- no token (refused by the health check of an --auth-health daemon), or a read token,
  raises AuthError (UNAUTHENTICATED, PERMISSION_DENIED);
- without the CA the TLS daemon does not answer (ServiceUnavailableError);
- TILEJIT_SERVER, TILEJIT_TOKEN and TILEJIT_TLS_CA configure a fresh process;
- with --tls-client-ca, tls_cert/tls_key are required and enough.
Each compile uses its own shape: the process's memo would otherwise answer without a call.
"""
import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import HERE, ROOT, Daemon

sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "service"))
sys.path.insert(0, os.path.join(HERE, "userfiles"))

import tilejit as tilelang  # noqa: E402
import closures  # noqa: E402
from certs import make_certs  # noqa: E402

pytestmark = pytest.mark.timeout(120)
N = 64


def _sha(token):
    return hashlib.sha256(token.encode()).hexdigest()


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("auth"))
    os.environ["TILEJIT_CACHE_DIR"] = os.path.join(path, "binaries")
    return path


@pytest.fixture(scope="module")
def certs(folder):
    return make_certs(folder)


@pytest.fixture(scope="module")
def secure(folder, certs):
    """Tokens (health checks too) and TLS (no client certificates)."""
    tokens = os.path.join(folder, "tokens.txt")
    with open(tokens, "w") as f:
        f.write(f"compile {_sha('py-compile')} python\nread {_sha('py-read')} viewer\n")
    os.makedirs(os.path.join(folder, "secure"))
    d = Daemon(os.path.join(folder, "secure"), "--auth-tokens", tokens, "--auth-health",
               "--tls-cert", certs["server"], "--tls-key", certs["server_key"], tcp=True)
    yield d
    d.stop()


@pytest.fixture(scope="module")
def mutual(folder, certs):
    """TLS with required client certificates (no tokens)."""
    os.makedirs(os.path.join(folder, "mutual"))
    d = Daemon(os.path.join(folder, "mutual"), "--tls-cert", certs["server"], "--tls-key",
               certs["server_key"], "--tls-client-ca", certs["ca"], tcp=True)
    yield d
    d.stop()


def _exp_kernel(rows):
    return tilelang.compile(closures.plain_factory(rows, N), out_idx=[1])


def _check(kernel, rows):
    a = np.random.default_rng(rows).standard_normal((rows, N)).astype(np.float32)
    np.testing.assert_allclose(kernel(a), np.exp(a), rtol=1e-5, atol=1e-6)


def test_token_and_tls_ca_compile_and_run(secure, certs):
    tilelang.connect(secure.address, token="py-compile", tls_ca=certs["ca"])
    _check(_exp_kernel(16), 16)


def test_no_token_or_a_read_token_raises_auth_error(secure, certs):
    with pytest.raises(tilelang.AuthError) as e:  # --auth-health: the health check refuses
        tilelang.connect(secure.address, token="", tls_ca=certs["ca"])
    assert e.value.code == "UNAUTHENTICATED"
    tilelang.connect(secure.address, token="py-read", tls_ca=certs["ca"])
    with pytest.raises(tilelang.AuthError) as e:
        _exp_kernel(48)
    assert e.value.code == "PERMISSION_DENIED"
    assert "Compile needs the compile role; token 'viewer' has the read role" in str(e.value)


def test_without_the_ca_the_tls_daemon_does_not_answer(secure):
    with pytest.raises(tilelang.ServiceUnavailableError):
        tilelang.connect(secure.address, token="py-compile", tls_ca="")
    with pytest.raises(ValueError):
        tilelang.connect(secure.address, tls_cert="client.pem")  # a certificate needs its key


def test_environment_configures_a_fresh_process(secure, certs, folder):
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import numpy as np; "
              "import closures, tilejit as tl; "
              "k = tl.compile(closures.plain_factory(64, 64), out_idx=[1]); "
              "a = np.ones((64, 64), np.float32); "
              "assert np.allclose(k(a), np.exp(a)), 'wrong result'; print('ran')")
    env = {**os.environ, "TILEJIT_SERVER": secure.address, "TILEJIT_TOKEN": "py-compile",
           "TILEJIT_TLS_CA": certs["ca"]}
    r = subprocess.run([sys.executable, "-c", script, os.path.join(HERE, "userfiles")],
                       env=env, capture_output=True, text=True, timeout=100)
    assert r.returncode == 0 and r.stdout.strip() == "ran", r.stderr[-2000:]
    r = subprocess.run([sys.executable, "-c", script, os.path.join(HERE, "userfiles")],
                       env={**env, "TILEJIT_TOKEN": "py-read"}, capture_output=True, text=True,
                       timeout=100)
    assert r.returncode != 0 and "AuthError" in r.stderr, r.stderr[-2000:]


def test_mtls_needs_the_client_certificate(mutual, certs):
    tilelang.connect(mutual.address, tls_ca=certs["ca"], tls_cert=certs["client"],
                     tls_key=certs["client_key"])
    _check(_exp_kernel(80), 80)
    with pytest.raises(tilelang.ServiceUnavailableError):
        tilelang.connect(mutual.address, tls_ca=certs["ca"])
