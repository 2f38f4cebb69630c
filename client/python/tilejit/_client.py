# SPDX-License-Identifier: Apache-2.0
"""The connection to tilejitd: which daemon, the channel, the RPCs.

Which daemon, in order:
  1. tilejit.connect(address), if called;
  2. $TILEJIT_SERVER ("host:port" or "unix:PATH");
  3. a daemon already answering on localhost:50051 (the quick start's; $TILEJIT_DEFAULT_SERVER
     names another address to probe, "" probes none);
  4. the user's private tilejitd (_daemon.py), started on first use.
A configured daemon (1, 2) that does not answer is a ServiceUnavailableError naming its
address and how to start one; tilejit never starts a daemon in its place.

Security, for the daemons of 1-3 (the private daemon needs none): a bearer token (connect's
`token`, else $TILEJIT_TOKEN) goes with every call as `authorization: Bearer TOKEN`; TLS is on
when a CA file (`tls_ca`, else $TILEJIT_TLS_CA) or a client certificate (`tls_cert` and
`tls_key`, else $TILEJIT_TLS_CERT and $TILEJIT_TLS_KEY) is given. A refused token is an
AuthError.

Fork safety: a forked child (a DataLoader worker) must not use its parent's gRPC channel, so
the connection is per process: an at-fork hook drops the parent's (without closing it: that
is the parent's) and the child connects again on first use. Kernels already compiled need no
connection at all in the child: their binaries launch locally. A new channel in a child only
works with gRPC's fork support, which must be on before grpc is first imported: importing
tilejit sets GRPC_ENABLE_FORK_SUPPORT=1 unless the environment says otherwise (a process that
imported grpc before tilejit keeps grpc's default, under which a child cannot connect).
"""
import os
import socket
import threading

os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "1")

from . import _wire  # noqa: E402
from .errors import AuthError, CompileError, ServiceUnavailableError  # noqa: E402

DEFAULT_SERVER = "localhost:50051"
_MAX_MESSAGE = 512 << 20  # binaries are at most 256 MiB; Launch carries tensors
_HEALTH_TIMEOUT = 5.0
_TIMEOUTS = {"Compile": 900.0, "BatchCompile": 1800.0, "GetKernel": 120.0, "Launch": 900.0,
             "Tune": 1830.0}

_METHODS = {  # name: (request type, response type) attribute names in tilejit_pb2
    "Compile": ("CompileRequest", "CompileResponse"),
    "BatchCompile": ("BatchCompileRequest", "BatchCompileResponse"),
    "GetKernel": ("GetKernelRequest", "GetKernelResponse"),
    "Launch": ("LaunchRequest", "LaunchResponse"),
}
_STREAMS = {  # server-streaming methods: call() returns the list of their messages
    "Tune": ("TuneRequest", "TuneEvent"),
}


def _how_to_start(address):
    return (f"start one with `bash deploy/run.sh` (serves 127.0.0.1:50051) or "
            f"`tilejitd --listen {address}`")


class Security:
    """A bearer token and TLS files (paths) for one daemon; empty fields are "not used"."""
    __slots__ = ("token", "tls_ca", "tls_cert", "tls_key")

    def __init__(self, token=None, tls_ca=None, tls_cert=None, tls_key=None):
        self.token, self.tls_ca = token or "", tls_ca or ""
        self.tls_cert, self.tls_key = tls_cert or "", tls_key or ""
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("tls_cert and tls_key go together (a client certificate and its "
                             "private key)")

    @classmethod
    def from_env(cls, token=None, tls_ca=None, tls_cert=None, tls_key=None):
        """The arguments given, each else its TILEJIT_* environment variable."""
        env = os.environ.get
        return cls(token if token is not None else env("TILEJIT_TOKEN"),
                   tls_ca if tls_ca is not None else env("TILEJIT_TLS_CA"),
                   tls_cert if tls_cert is not None else env("TILEJIT_TLS_CERT"),
                   tls_key if tls_key is not None else env("TILEJIT_TLS_KEY"))

    def tls(self):
        return bool(self.tls_ca or self.tls_cert)

    def credentials(self, grpc, address):
        def read(path, what):
            try:
                with open(path, "rb") as f:
                    return f.read()
            except OSError as e:
                raise ServiceUnavailableError(f"cannot read the TLS {what} file {path} for "
                                              f"{address}: {e.strerror}", address) from None
        return grpc.ssl_channel_credentials(
            root_certificates=read(self.tls_ca, "CA") if self.tls_ca else None,
            private_key=read(self.tls_key, "key") if self.tls_key else None,
            certificate_chain=read(self.tls_cert, "certificate") if self.tls_cert else None)


NO_SECURITY = Security()


_MAX_ADDRESSES = 64


def _numeric_family(entry):
    """4 for a numeric IPv4 ADDR:PORT, 6 for a bracketed [IPv6]:PORT, else 0."""
    v6 = entry.startswith("[")
    end = entry.find("]:") if v6 else entry.rfind(":")
    if end < 0:
        return 0
    host, port = (entry[1:end], entry[end + 2:]) if v6 else (entry[:end], entry[end + 1:])
    if not (port.isdigit() and len(port) <= 5):
        return 0
    try:
        socket.inet_pton(socket.AF_INET6 if v6 else socket.AF_INET, host)
    except OSError:
        return 0
    return 6 if v6 else 4


def channel_target(address):
    """(gRPC target, round_robin) for an address, as the C++ client reads it (client.h,
    ChannelTargetFor): "host:port" or "unix:PATH" is one daemon; "dns:///NAME:PORT" is every
    address NAME resolves to and "ADDR:PORT,ADDR:PORT,..." (numeric, one family) those
    daemons, with calls spread round-robin. ValueError names a bad entry."""
    if not address:
        raise ValueError("empty daemon address")
    if address.startswith("dns:"):
        return address, True
    if "," not in address:
        return address, False
    entries = address.split(",")
    if len(entries) > _MAX_ADDRESSES:
        raise ValueError(f"at most {_MAX_ADDRESSES} daemon addresses in a list")
    family = _numeric_family(entries[0])
    for entry in entries:
        if _numeric_family(entry) == 0 or _numeric_family(entry) != family:
            raise ValueError(f"daemon address list entry '{entry}': a list takes numeric "
                             "addresses of one family (IPv4 ADDR:PORT or [IPv6]:PORT); for "
                             "host names use dns:///NAME:PORT")
    return f"ipv{family}:{address}", True


class Client:
    """One channel to one daemon, for the process that made it. `origin` says how the address
    was chosen ("connect", "TILEJIT_SERVER", "default", "private"); `security` holds its token
    and TLS files."""

    def __init__(self, address, origin, security=NO_SECURITY):
        import grpc
        pb, health = _wire.modules()
        self.address, self.origin, self.pid = address, origin, os.getpid()
        self._grpc = grpc
        target, round_robin = channel_target(address)
        options = [("grpc.max_receive_message_length", _MAX_MESSAGE),
                   ("grpc.max_send_message_length", _MAX_MESSAGE)]
        if round_robin:
            options.append(("grpc.lb_policy_name", "round_robin"))
        if security.tls():
            self.channel = grpc.secure_channel(target, security.credentials(grpc, address),
                                               options=options)
        else:
            self.channel = grpc.insecure_channel(target, options=options)
        self._metadata = (("authorization", "Bearer " + security.token),) if security.token \
            else None
        self._calls = {}
        for name, (req, resp) in _METHODS.items():
            self._calls[name] = self.channel.unary_unary(
                f"/tilejit.v1.TileJit/{name}",
                request_serializer=getattr(pb, req).SerializeToString,
                response_deserializer=getattr(pb, resp).FromString)
        for name, (req, resp) in _STREAMS.items():
            stream = self.channel.unary_stream(
                f"/tilejit.v1.TileJit/{name}",
                request_serializer=getattr(pb, req).SerializeToString,
                response_deserializer=getattr(pb, resp).FromString)
            self._calls[name] = lambda request, _s=stream, **kw: list(_s(request, **kw))
        self._health = self.channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=health.HealthCheckRequest.SerializeToString,
            response_deserializer=health.HealthCheckResponse.FromString)
        self._health_request = health.HealthCheckRequest(service="")
        self._serving = health.HealthCheckResponse.SERVING

    def _auth_error(self, method, e):
        """The AuthError for a refused call, or None when `e` is another failure."""
        grpc = self._grpc
        code = e.code() if hasattr(e, "code") else None
        if code not in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
            return None
        return AuthError(f"tilejitd at {self.address} refused {method}: {code.name}: "
                         f"{e.details()}", code.name, self.address)

    def healthy(self, timeout=_HEALTH_TIMEOUT):
        """True when the daemon answers its health check with SERVING."""
        try:
            r = self._health(self._health_request, timeout=timeout, wait_for_ready=False,
                             metadata=self._metadata)
        except self._grpc.RpcError as e:
            refused = self._auth_error("Health/Check", e)
            if refused is not None:  # a daemon started with --auth-health
                raise refused from None
            return False
        return r.status == self._serving

    def call(self, method, request, timeout=None):
        """One RPC; UNAVAILABLE and DEADLINE_EXCEEDED become ServiceUnavailableError,
        UNAUTHENTICATED and PERMISSION_DENIED AuthError, other failures CompileError carrying
        the daemon's status and message."""
        grpc = self._grpc
        try:
            return self._calls[method](request, timeout=timeout or _TIMEOUTS[method],
                                       metadata=self._metadata)
        except grpc.RpcError as e:
            refused = self._auth_error(method, e)
            if refused is not None:
                raise refused from None
            code = e.code() if hasattr(e, "code") else None
            details = e.details() if hasattr(e, "details") else str(e)
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise ServiceUnavailableError(
                    f"tilejitd at {self.address} did not answer {method} ({code.name}: "
                    f"{details}); {_how_to_start(self.address)}", self.address) from None
            name = code.name if code is not None else "ERROR"
            raise CompileError(f"tilejitd at {self.address} refused {method}: {name}: "
                               f"{details}") from None

    def close(self):
        self.channel.close()


_lock = threading.RLock()
_explicit = None   # (address, Security) of tilejit.connect
_current = None    # this process's Client
_orphans = []      # a forked child keeps its parent's channel objects alive, unused


def _healthy_or_close(c):
    """c.healthy(); c is closed unless it is (an AuthError closes it too)."""
    try:
        if c.healthy():
            return True
    except AuthError:
        c.close()
        raise
    c.close()
    return False


def connect(address, token=None, tls_ca=None, tls_cert=None, tls_key=None):
    """Uses the daemon at `address` ("host:port", "unix:PATH", "dns:///NAME:PORT" or a list
    "ADDR:PORT,ADDR:PORT": see channel_target) from now on in this process;
    ServiceUnavailableError if it does not answer. `token`: the bearer token of a daemon
    started with --auth-tokens; `tls_ca`: the PEM CA file that signed the daemon's
    certificate (TLS); `tls_cert`, `tls_key`: a client certificate for a daemon that requires
    one. Each defaults to its environment variable (TILEJIT_TOKEN, TILEJIT_TLS_CA,
    TILEJIT_TLS_CERT, TILEJIT_TLS_KEY). Returns the address."""
    global _explicit, _current
    security = Security.from_env(token, tls_ca, tls_cert, tls_key)
    with _lock:
        c = Client(address, "connect", security)
        if not _healthy_or_close(c):
            raise ServiceUnavailableError(f"no tilejitd answers at {address} (tilejit.connect); "
                                          f"{_how_to_start(address)}", address)
        if _current is not None and _current.pid == os.getpid():
            _current.close()
        _explicit, _current = (address, security), c
    return address


def _port_open(address, timeout=0.3):
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host or "localhost", int(port)), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


def _resolve():
    """A Client for the daemon this process should use (see the module docstring)."""
    configured, security = _explicit or (os.environ.get("TILEJIT_SERVER", ""), None)
    security = security or Security.from_env()
    if configured:
        origin = "connect" if _explicit else "TILEJIT_SERVER"
        c = Client(configured, origin, security)
        if not _healthy_or_close(c):
            source = "tilejit.connect" if _explicit else "$TILEJIT_SERVER"
            raise ServiceUnavailableError(
                f"no tilejitd answers at {configured} (from {source}); "
                f"{_how_to_start(configured)}, or unset TILEJIT_SERVER to let tilejit start a "
                "private daemon", configured)
        return c
    default = os.environ.get("TILEJIT_DEFAULT_SERVER", DEFAULT_SERVER)
    if default and _port_open(default):
        c = Client(default, "default", security)
        if _healthy_or_close(c):
            return c
    from . import _daemon
    return Client(_daemon.ensure_private_daemon(), "private")


def client():
    """This process's Client, connecting (or starting the private daemon) on first use."""
    global _current
    c = _current
    if c is not None and c.pid == os.getpid():
        return c
    with _lock:
        if _current is None or _current.pid != os.getpid():
            _current = _resolve()
        return _current


def call(method, request, timeout=None):
    """client().call(...), restarting the private daemon once if it went away (it exits after
    an idle spell, possibly between the health check and this call)."""
    c = client()
    try:
        return c.call(method, request, timeout)
    except ServiceUnavailableError:
        if c.origin != "private":
            raise
        global _current
        with _lock:
            if _current is c:
                _current = None
        return client().call(method, request, timeout)


def _after_fork_in_child():
    global _current, _lock
    _lock = threading.RLock()  # another parent thread may have held it at the fork
    if _current is not None:
        _orphans.append(_current)  # never closed here: the channel is the parent's
    _current = None


os.register_at_fork(after_in_child=_after_fork_in_child)
