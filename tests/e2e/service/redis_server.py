# SPDX-License-Identifier: Apache-2.0
"""A real redis-server for end-to-end tests, and a fake one that answers garbage.

RedisServer(dir).start() runs Debian's redis-server on a free loopback port with no
persistence; it dies with the test process (setpriv --pdeathsig) and stop() is also
registered with atexit. pause()/resume() send SIGSTOP/SIGCONT (a server that stalls);
kill() stops it at once. command(...) sends one command over RESP and returns the reply
(bytes, int, list, or an Exception for an error reply), for tests that look at or tamper
with what the daemons stored, as an outside agent would.

GarbageServer() accepts connections on a free loopback port (or `port`) and answers every
read with bytes that are not RESP. `python3 redis_server.py garbage PORT` runs one until killed
(bench/cluster/run.sh).
"""
import atexit
import os
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon import _free_port as free_port  # noqa: E402

REDIS_SERVER = os.environ.get("REDIS_SERVER", "/usr/bin/redis-server")


def _read_reply(f):
    line = f.readline()
    if not line:
        raise ConnectionError("redis closed the connection")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest
    if kind == b"-":
        return Exception(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)
        return data[:-2]
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [_read_reply(f) for _ in range(n)]
    raise ValueError(f"not RESP: {line!r}")


class RedisServer:
    def __init__(self, directory, port=None):
        self.dir = str(directory)
        self.port = port or free_port()
        self.proc = None

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}"

    def start(self, timeout=30):
        os.makedirs(self.dir, exist_ok=True)
        log = open(os.path.join(self.dir, f"redis-{self.port}.log"), "ab")
        self.proc = subprocess.Popen(
            ["setpriv", "--pdeathsig", "KILL", REDIS_SERVER, "--port", str(self.port),
             "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", self.dir,
             "--maxmemory", "256mb", "--maxmemory-policy", "volatile-lru"],
            stdout=log, stderr=log, start_new_session=True)
        log.close()
        atexit.register(self.stop)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.command("PING") == b"PONG":
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not start")

    def command(self, *args):
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            out = b"*%d\r\n" % len(args)
            for a in args:
                a = a if isinstance(a, bytes) else str(a).encode()
                out += b"$%d\r\n%s\r\n" % (len(a), a)
            s.sendall(out)
            with s.makefile("rb") as f:
                return _read_reply(f)

    def pause(self):
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self):
        os.kill(self.proc.pid, signal.SIGCONT)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.kill()
            self.proc.wait()

    kill = stop

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class GarbageServer:
    """Answers every request with bytes that are not RESP."""

    def __init__(self, port=0):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = False
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}"

    def _serve(self):
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    @staticmethod
    def _answer(conn):
        with conn:
            try:
                while conn.recv(65536):
                    conn.sendall(b"%garbage\x00\xff not resp\r\n")
            except OSError:
                pass

    def close(self):
        self._stop = True
        self.sock.close()


if __name__ == "__main__" and sys.argv[1:2] == ["garbage"]:
    GarbageServer(int(sys.argv[2]))
    threading.Event().wait()
