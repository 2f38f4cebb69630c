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
from .errors import CompileError, ServiceUnavailableError  # noqa: E402

DEFAULT_SERVER = "localhost:50051"
_MAX_MESSAGE = 512 << 20  # binaries are at most 256 MiB; Launch carries tensors
_HEALTH_TIMEOUT = 5.0
_TIMEOUTS = {"Compile": 900.0, "BatchCompile": 1800.0, "GetKernel": 120.0, "Launch": 900.0}

_METHODS = {  # name: (request type, response type) attribute names in tilejit_pb2
    "Compile": ("CompileRequest", "CompileResponse"),
    "BatchCompile": ("BatchCompileRequest", "BatchCompileResponse"),
    "GetKernel": ("GetKernelRequest", "GetKernelResponse"),
    "Launch": ("LaunchRequest", "LaunchResponse"),
}


def _how_to_start(address):
    return (f"start one with `bash deploy/run.sh` (serves 127.0.0.1:50051) or "
            f"`tilejitd --listen {address}`")


class Client:
    """One channel to one daemon, for the process that made it. `origin` says how the address
    was chosen ("connect", "TILEJIT_SERVER", "default", "private")."""

    def __init__(self, address, origin):
        import grpc
        pb, health = _wire.modules()
        self.address, self.origin, self.pid = address, origin, os.getpid()
        self._grpc = grpc
        self.channel = grpc.insecure_channel(address, options=[
            ("grpc.max_receive_message_length", _MAX_MESSAGE),
            ("grpc.max_send_message_length", _MAX_MESSAGE)])
        self._calls = {}
        for name, (req, resp) in _METHODS.items():
            self._calls[name] = self.channel.unary_unary(
                f"/tilejit.v1.TileJit/{name}",
                request_serializer=getattr(pb, req).SerializeToString,
                response_deserializer=getattr(pb, resp).FromString)
        self._health = self.channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=health.HealthCheckRequest.SerializeToString,
            response_deserializer=health.HealthCheckResponse.FromString)
        self._health_request = health.HealthCheckRequest(service="")
        self._serving = health.HealthCheckResponse.SERVING

    def healthy(self, timeout=_HEALTH_TIMEOUT):
        """True when the daemon answers its health check with SERVING."""
        try:
            r = self._health(self._health_request, timeout=timeout, wait_for_ready=False)
        except self._grpc.RpcError:
            return False
        return r.status == self._serving

    def call(self, method, request, timeout=None):
        """One RPC; UNAVAILABLE and DEADLINE_EXCEEDED become ServiceUnavailableError, other
        failures CompileError carrying the daemon's status and message."""
        grpc = self._grpc
        try:
            return self._calls[method](request, timeout=timeout or _TIMEOUTS[method])
        except grpc.RpcError as e:
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
_explicit = None   # the address of tilejit.connect
_current = None    # this process's Client
_orphans = []      # a forked child keeps its parent's channel objects alive, unused


def connect(address):
    """Uses the daemon at `address` ("host:port" or "unix:PATH") from now on in this process;
    ServiceUnavailableError if it does not answer. Returns the address."""
    global _explicit, _current
    with _lock:
        c = Client(address, "connect")
        if not c.healthy():
            c.close()
            raise ServiceUnavailableError(f"no tilejitd answers at {address} (tilejit.connect); "
                                          f"{_how_to_start(address)}", address)
        if _current is not None and _current.pid == os.getpid():
            _current.close()
        _explicit, _current = address, c
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
    configured = _explicit or os.environ.get("TILEJIT_SERVER", "")
    if configured:
        origin = "connect" if _explicit else "TILEJIT_SERVER"
        c = Client(configured, origin)
        if not c.healthy():
            c.close()
            source = "tilejit.connect" if _explicit else "$TILEJIT_SERVER"
            raise ServiceUnavailableError(
                f"no tilejitd answers at {configured} (from {source}); "
                f"{_how_to_start(configured)}, or unset TILEJIT_SERVER to let tilejit start a "
                "private daemon", configured)
        return c
    default = os.environ.get("TILEJIT_DEFAULT_SERVER", DEFAULT_SERVER)
    if default and _port_open(default):
        c = Client(default, "default")
        if c.healthy():
            return c
        c.close()
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
