# SPDX-License-Identifier: Apache-2.0
"""Start and stop a real tilejitd for end-to-end tests.

Daemon(cache_dir).start() launches tilejitd on 127.0.0.1 port 0 (the kernel
picks a free port; the daemon prints the chosen one on stdout)
with a SQLite cache in cache_dir. stop() sends SIGTERM and waits, killing the
process group if the daemon does not drain in time; it is safe to call twice
and is also registered with atexit; the daemon also dies with the test process
(PR_SET_PDEATHSIG, set by util-linux's setpriv rather than a preexec_fn, under which
subprocess forks and runs gRPC's at-fork handlers in the child), so a failing or killed test
never leaks a daemon, even when a CTest timeout SIGKILLs the test and skips every cleanup.

Daemon(..., listen="0.0.0.0:0") listens elsewhere than 127.0.0.1 (the port line and
`address`, 127.0.0.1:PORT, stay as they are). Daemon(..., metrics=True) also serves Prometheus metrics on a free loopback
port: scrape() returns {series: value}, e.g.
{'tilejit_requests_total{method="Compile",code="OK"}': 3.0}. kill() sends
SIGKILL (a crash: no drain, no clean close of the cache).

Environment: TILEJITD names the daemon binary.
"""
import atexit
import os
import signal
import socket
import subprocess
import threading
import urllib.request

TILEJITD = os.environ.get("TILEJITD", "build/server/tilejitd")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_metrics(text):
    """Prometheus text -> {'name{labels}': value} (comments skipped)."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            series, value = line.rsplit(" ", 1)
            out[series] = float(value)
    return out


class Daemon:
    def __init__(self, cache_dir, *extra_flags, metrics=False, listen="127.0.0.1:0"):
        self.cache_dir = str(cache_dir)
        self.listen = listen
        self.extra = list(extra_flags)
        self.proc = None
        self.port = None
        self.metrics_port = None
        self.metrics = metrics
        self.log_path = os.path.join(self.cache_dir, "tilejitd.log")
        self.cache_path = os.path.join(self.cache_dir, "kernels.sqlite")

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def start(self, timeout=60):
        os.makedirs(self.cache_dir, exist_ok=True)
        log = open(self.log_path, "ab")
        cmd = ["setpriv", "--pdeathsig", "KILL", TILEJITD, "--listen", self.listen, "--cache-path", self.cache_path,
               "--drain-grace-seconds", "5", *self.extra]
        if self.metrics:
            # A port picked here may be taken before the daemon binds it; that is rare on
            # loopback and shows as a clear start-up failure in the log.
            self.metrics_port = _free_port()
            cmd += ["--metrics-port", str(self.metrics_port)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log,
                                     start_new_session=True)
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

    def scrape(self):
        """The metrics endpoint's series, parsed."""
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=30) as r:
            return parse_metrics(r.read().decode())

    def kill(self):
        """SIGKILL: the daemon dies mid-work, as in a crash or an OOM kill."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

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
