# SPDX-License-Identifier: Apache-2.0
"""The local binary cache: kernel binaries fetched from tilejitd once (GetKernel), kept per
user on disk so that later processes launch them without fetching again.

    $TILEJIT_CACHE_DIR (default $XDG_CACHE_HOME/tilejit/binaries, ~/.cache/...)/<key>.tjk

One file per cache key (the binary's own, which the runtime reports after loading it, so a
file that does not hold the kernel it is named after is dropped and fetched again). Writes
go to a temporary file renamed into place (atomic; concurrent writers of one key write the
same bytes). A hit touches the file's mtime; when the folder holds more than
$TILEJIT_CACHE_MAX_BYTES (default 1 GiB) after a write, the least recently used files go
first. This is the client's cache only: tilejitd's SQLite cache is the daemon's business and
never touched from here.
"""
import os
import re
import tempfile

_DEFAULT_MAX_BYTES = 1 << 30
_KEY = re.compile(r"^[0-9a-f]{16,128}$")

_disabled = False


def directory():
    path = os.environ.get("TILEJIT_CACHE_DIR", "")
    if not path:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                 ".cache")
        path = os.path.join(base, "tilejit", "binaries")
    return path


def max_bytes():
    try:
        return max(0, int(os.environ.get("TILEJIT_CACHE_MAX_BYTES", _DEFAULT_MAX_BYTES)))
    except ValueError:
        return _DEFAULT_MAX_BYTES


def set_enabled(enabled):
    global _disabled
    _disabled = not enabled


def enabled():
    return not _disabled


def _path(key):
    if not _KEY.match(key):
        raise ValueError(f"not a cache key: {key!r}")
    return os.path.join(directory(), key + ".tjk")


def get(key):
    """The binary stored for `key`, or None."""
    if _disabled:
        return None
    path = _path(key)
    try:
        with open(path, "rb") as f:
            data = f.read()
        os.utime(path)
        return data
    except OSError:
        return None


def put(key, binary):
    """Stores `binary` under `key` (best effort: a full or read-only disk only loses the
    cache), then trims the folder to its size cap."""
    if _disabled:
        return
    folder = directory()
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(binary)
            os.replace(tmp, _path(key))
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        trim(max_bytes())
    except OSError:
        pass


def drop(key):
    try:
        os.unlink(_path(key))
    except OSError:
        pass


def trim(limit):
    """Removes least recently used binaries until the folder holds at most `limit` bytes."""
    folder = directory()
    entries = []
    try:
        with os.scandir(folder) as it:
            for e in it:
                if e.name.endswith(".tjk"):
                    st = e.stat()
                    entries.append((st.st_mtime_ns, st.st_size, e.path))
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= limit:
            break
        try:
            os.unlink(path)
            total -= size
        except OSError:
            pass


def clear():
    """Removes every binary of the local cache."""
    trim(0)
