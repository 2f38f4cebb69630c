# SPDX-License-Identifier: Apache-2.0
"""The user's private tilejitd: started on first use when no daemon is configured and none
answers on localhost:50051, shared by every process of the user, gone after an idle spell.

    <dir>/tilejitd.sock   the Unix socket it serves (mode 0600, in a 0700 folder)
    <dir>/tilejitd.lock   fcntl lock: one process at a time checks and starts the daemon
    <dir>/tilejitd.log    its stdout and stderr (appended)
    <dir>/tilejitd.pid    its process id (written by the process that started it)

<dir> is $XDG_RUNTIME_DIR/tilejit when that folder exists and is ours, else
$XDG_CACHE_HOME/tilejit (~/.cache/tilejit). The daemon keeps its SQLite cache where tilejitd
keeps it by default (the user's cache folder), and exits after $TILEJIT_IDLE_EXIT_SECONDS
(default 600) without a tilejit.v1 call. Its stdio is detached (a new session, /dev/null in):
it outlives the process that started it. The daemon binary: $TILEJITD, else the build tree's
(tilejit_paths.TILEJITD).
"""
import fcntl
import os
import subprocess
import threading
import time

from .errors import ServiceUnavailableError

_START_TIMEOUT = 60.0
_MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes


def private_dir():
    """The per-user folder of the private daemon (created 0700; refused if not ours)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isdir(runtime) and os.stat(runtime).st_uid == os.getuid():
        base = runtime
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                 ".cache")
    path = os.path.join(base, "tilejit")
    os.makedirs(path, mode=0o700, exist_ok=True)
    st = os.stat(path)
    if st.st_uid != os.getuid():
        raise ServiceUnavailableError(f"{path} belongs to another user; tilejit will not "
                                      "start a private daemon there (set TILEJIT_SERVER)")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path


def daemon_path():
    path = os.environ.get("TILEJITD", "")
    if not path:
        try:
            import tilejit_paths
            path = getattr(tilejit_paths, "TILEJITD", "")
        except ImportError:
            path = ""
    if not path or not os.access(path, os.X_OK):
        raise ServiceUnavailableError(
            "no tilejitd is configured and none answers on localhost:50051, and tilejit cannot "
            f"start a private one: tilejitd not found ({path or 'set $TILEJITD'}); build it "
            "(ninja -C build tilejitd) or set TILEJIT_SERVER")
    return path


def _log_tail(log_path, limit=2000):
    try:
        with open(log_path, errors="replace") as f:
            return f.read()[-limit:]
    except OSError:
        return ""


def ensure_private_daemon():
    """The address ("unix:PATH") of the user's private daemon, started if none answers."""
    from ._client import Client
    folder = private_dir()
    sock = os.path.join(folder, "tilejitd.sock")
    if len(sock) > _MAX_SOCKET_PATH:
        raise ServiceUnavailableError(f"the private daemon's socket path {sock} is longer than "
                                      f"{_MAX_SOCKET_PATH} bytes; set XDG_RUNTIME_DIR to a "
                                      "shorter folder, or TILEJIT_SERVER")
    address = "unix:" + sock
    fd = os.open(os.path.join(folder, "tilejitd.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        probe = Client(address, "private")
        try:
            if os.path.exists(sock) and probe.healthy(timeout=2.0):
                return address
        finally:
            probe.close()
        _start(folder, sock, address)
        return address
    finally:
        os.close(fd)  # releases the lock


def _start(folder, sock, address):
    """Starts tilejitd on `sock` and waits until it answers (the caller holds the lock)."""
    from ._client import Client
    binary = daemon_path()
    try:
        os.unlink(sock)  # a stale socket of a daemon that exited
    except FileNotFoundError:
        pass
    log_path = os.path.join(folder, "tilejitd.log")
    idle = os.environ.get("TILEJIT_IDLE_EXIT_SECONDS", "600")
    with open(log_path, "ab") as log, open(os.devnull, "rb") as null:
        proc = subprocess.Popen([binary, "--listen", address, "--idle-exit-seconds", idle],
                                stdin=null, stdout=log, stderr=log, start_new_session=True,
                                close_fds=True)
    with open(os.path.join(folder, "tilejitd.pid"), "w") as f:
        f.write(f"{proc.pid}\n")
    # Reaped by a thread of ours while we live; init's afterwards.
    threading.Thread(target=proc.wait, name="tilejitd-reaper", daemon=True).start()
    probe = Client(address, "private")
    try:
        deadline = time.monotonic() + _START_TIMEOUT
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise ServiceUnavailableError(
                    f"the private tilejitd ({binary}) exited with status {proc.returncode} at "
                    f"start; its log ({log_path}):\n{_log_tail(log_path)}", address)
            if os.path.exists(sock) and probe.healthy(timeout=1.0):
                return
            time.sleep(0.05)
    finally:
        probe.close()
    raise ServiceUnavailableError(f"the private tilejitd did not answer within "
                                  f"{_START_TIMEOUT:.0f} s; its log ({log_path}):\n"
                                  f"{_log_tail(log_path)}", address)
