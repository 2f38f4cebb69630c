# SPDX-License-Identifier: Apache-2.0
"""Start and stop a real tilejitd for end-to-end tests.

Daemon(cache_dir).start() launches tilejitd on 127.0.0.1 port 0 (the kernel
picks a free port; the daemon prints the chosen one on stdout)
with a SQLite cache in cache_dir. stop() sends SIGTERM and waits, killing the
process group if the daemon does not drain in time; it is safe to call twice
and is also registered with atexit; the daemon also dies with the test process
(PR_SET_PDEATHSIG), so a failing or killed test never leaks a daemon.

Environment: TILEJITD names the daemon binary.
"""
import atexit
import ctypes
import os
import signal
import subprocess
import threading

TILEJITD = os.environ.get("TILEJITD", "build/server/tilejitd")
_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    # Runs in the child before exec: even if the test process is killed (a CTest timeout
    # sends SIGKILL, which skips every cleanup), the daemon goes with it.
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


class Daemon:
    def __init__(self, cache_dir, *extra_flags):
        self.cache_dir = str(cache_dir)
        self.extra = list(extra_flags)
        self.proc = None
        self.port = None
        self.log_path = os.path.join(self.cache_dir, "tilejitd.log")

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def start(self, timeout=60):
        os.makedirs(self.cache_dir, exist_ok=True)
        log = open(self.log_path, "ab")
        cmd = [TILEJITD, "--listen", "127.0.0.1:0", "--cache-path",
               os.path.join(self.cache_dir, "kernels.sqlite"), "--drain-grace-seconds", "5",
               *self.extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log,
                                     start_new_session=True, preexec_fn=_die_with_parent)
        log.close()
        atexit.register(self.stop)
        port = []
        found = threading.Event()

        def drain():
            # The daemon logs to stdout as well: find the port line, then keep the pipe
            # drained (into the log) so the daemon never blocks on a full pipe.
            with open(self.log_path, "ab") as out:
                for raw in self.proc.stdout:
                    text = raw.decode(errors="replace").strip()
                    if not port and text.startswith("tilejitd listening on port "):
                        port.append(int(text.rsplit(" ", 1)[1]))
                        found.set()
                    out.write(raw)
                    out.flush()
            found.set()

        threading.Thread(target=drain, daemon=True).start()
        found.wait(timeout)
        if not port:
            self.stop()
            raise RuntimeError(f"tilejitd did not start; log:\n{self.log()}")
        self.port = port[0]
        return self

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def stop(self, timeout=30):
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
