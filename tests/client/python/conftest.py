# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures of the Python package's tests.

`tilejitd` (session): a real daemon for the test session, on a private Unix socket in a
temporary folder with its own SQLite cache; the package is connected to it and keeps its
local binary cache in the same folder. The daemon is stopped at teardown (SIGTERM, then
SIGKILL), and dies with the test process in any case (PR_SET_PDEATHSIG, set by util-linux's
setpriv: a preexec_fn would make subprocess fork and run gRPC's at-fork handlers in the child,
which exit it with status 64 once a channel has failed), so a failing or killed run never leaks
one.

`kernels_dir`: ../shared/kernels when it exists, else the repository's copy
(tests/testdata/kernels), as the C++ tests choose.

Environment: TILEJITD (the daemon binary; else the build tree's tilejit_paths.TILEJITD),
TILEJIT_KERNELS_DIR (overrides the kernels folder).
"""
import os
import signal
import subprocess
import tempfile
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
PYTHON_DIR = os.path.join(ROOT, "client", "python")
COMPAT_DIR = os.path.join(PYTHON_DIR, "compat")


def tilejitd_path():
    path = os.environ.get("TILEJITD", "")
    if not path:
        import tilejit_paths
        path = tilejit_paths.TILEJITD
    return path


def kernels_dir():
    env = os.environ.get("TILEJIT_KERNELS_DIR")
    if env:
        return env
    shared = os.path.normpath(os.path.join(ROOT, "..", "shared", "kernels"))
    if os.path.isdir(shared):
        return shared
    return os.path.join(ROOT, "tests", "testdata", "kernels")


class Daemon:
    """A tilejitd on unix:<folder>/tilejitd.sock (tcp=True: on a free 127.0.0.1 port, its
    address 127.0.0.1:PORT), started and reaped by its owner."""

    def __init__(self, folder, *flags, tcp=False):
        self.folder = folder
        self.sock = os.path.join(folder, "tilejitd.sock")
        self.address = "unix:" + self.sock
        self.log_path = os.path.join(folder, "tilejitd.log")
        log = open(self.log_path, "ab")
        listen = "127.0.0.1:0" if tcp else self.address
        self.proc = subprocess.Popen(
            ["setpriv", "--pdeathsig", "KILL", tilejitd_path(), "--listen", listen, "--cache-path",
             os.path.join(folder, "kernels.sqlite"), "--drain-grace-seconds", "5", *flags],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        deadline = time.monotonic() + 60
        while not self._listening(tcp):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"tilejitd did not start (exit status {self.proc.returncode}); "
                                   f"log:\n{self.log()}")
            time.sleep(0.02)

    def _listening(self, tcp):
        if not tcp:
            return os.path.exists(self.sock)
        for line in self.log().splitlines():
            if line.startswith("tilejitd listening on port "):
                self.address = "127.0.0.1:" + line.rsplit(" ", 1)[1]
                return True
        return False

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


@pytest.fixture(scope="session")
def session_dir():
    # Short: a Unix socket path holds at most 108 bytes.
    with tempfile.TemporaryDirectory(prefix="tjpy-") as d:
        yield d


@pytest.fixture(scope="session")
def tilejitd(session_dir):
    """The session's daemon, with the package connected to it."""
    folder = os.path.join(session_dir, "d")
    os.makedirs(folder, exist_ok=True)
    daemon = Daemon(folder)
    os.environ["TILEJIT_SERVER"] = daemon.address
    os.environ["TILEJIT_CACHE_DIR"] = os.path.join(session_dir, "binaries")
    import tilejit
    try:
        tilejit.connect(daemon.address)
        yield daemon
    finally:
        daemon.stop()
