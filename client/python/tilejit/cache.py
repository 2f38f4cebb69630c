# SPDX-License-Identifier: Apache-2.0
"""tilelang.cache: this process's kernel memo and the local binary cache (never tilejitd's
own cache: that is the daemon's, shared by every client; `tilejit cache` administers it)."""
from . import _localcache
from ._jit import clear_cache, is_cache_enabled, set_cache_enabled

__all__ = ["clear_cache", "enable_cache", "disable_cache", "is_cache_enabled",
           "get_cache_dir", "set_cache_dir"]


def enable_cache():
    set_cache_enabled(True)


def disable_cache():
    """Every call compiles through the daemon again (its cache still answers) and binaries
    are fetched again: nothing of this process is reused."""
    set_cache_enabled(False)


def get_cache_dir():
    """The local binary cache's folder."""
    return _localcache.directory()


def set_cache_dir(path):
    """Moves the local binary cache to `path` for this process (and its children)."""
    import os
    os.environ["TILEJIT_CACHE_DIR"] = str(path)
