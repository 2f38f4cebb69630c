# SPDX-License-Identifier: Apache-2.0
"""Bytes held by npu tensors, for torch.npu.memory_allocated() and its peak.

Every NpuTensor object made by tilejit.npu is registered here by the storage it views; a
storage counts once (views share it) while at least one npu tensor object on it is alive.
This is host memory counted by storage size, not a device allocator: a CPU tensor's memory
that an npu tensor aliases counts while the npu tensor lives, and a storage resized in place
keeps the size it had when first seen.
"""

import collections
import threading
import weakref

import torch
from torch._C import DisableTorchFunction

_lock = threading.Lock()
_live = {}  # storage data_ptr -> [npu tensor objects alive on it, nbytes]
_finalizers = {}  # id of a tracked tensor object -> its weakref.finalize
# Storages released by finalizers, not yet subtracted. Finalizers run whenever the garbage
# collector does, possibly inside a locked section on the same thread, so they only append
# here (and drop their own key); the locked functions drain it.
_pending = collections.deque()
_state = {"allocated": 0, "peak": 0}


def _storage_of(t):
    with DisableTorchFunction():
        s = torch._C._TensorBase._storage(t)
    return s.data_ptr(), s.nbytes()


def _release(ptr, key):
    _finalizers.pop(key, None)
    _pending.append(ptr)


def _drain():
    """Subtracts released storages; the caller holds _lock."""
    while _pending:
        ptr = _pending.popleft()
        entry = _live.get(ptr)
        if entry is None:
            continue
        entry[0] -= 1
        if entry[0] == 0:
            del _live[ptr]
            _state["allocated"] -= entry[1]


def track(t):
    """Counts t's storage while t (or another npu tensor on the same storage) is alive."""
    try:
        ptr, nbytes = _storage_of(t)
    except (RuntimeError, NotImplementedError):
        return  # no storage (a tensor subclass without one): nothing to count
    if ptr == 0:
        return
    with _lock:
        _drain()
        if id(t) in _finalizers:
            return
        entry = _live.get(ptr)
        if entry is None:
            _live[ptr] = [1, nbytes]
            _state["allocated"] += nbytes
            _state["peak"] = max(_state["peak"], _state["allocated"])
        else:
            entry[0] += 1
        _finalizers[id(t)] = weakref.finalize(t, _release, ptr, id(t))


def untrack(t):
    """Stops counting t (it left the npu while alive)."""
    fin = _finalizers.get(id(t))
    if fin is not None:
        fin()  # runs _release now; a finalizer runs at most once


def allocated():
    with _lock:
        _drain()
        return _state["allocated"]


def peak():
    return _state["peak"]


def reset_peak():
    with _lock:
        _drain()
        _state["peak"] = _state["allocated"]
