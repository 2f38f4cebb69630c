# SPDX-License-Identifier: Apache-2.0
"""The `torch.npu` namespace for the simulated npu.

Every npu operation runs synchronously on the host (there is no queue), so synchronize() has
nothing to wait for, events time host wall-clock between their record() calls, and a stream
is the one default stream. Device properties describe the simulated target (tilejit's
Ascend910B2 model: compiler/target/npu_target_data.cc), not the host.
"""

import ctypes
import sys
import time
import types

import torch

from . import _device, _memory

# The simulated target, as compiler/target/npu_target_data.cc's Make910B2 describes it.
_GIB, _MIB = 1 << 30, 1 << 20
_PROPERTIES = {
    "name": "Ascend910B2",
    "total_memory": 64 * _GIB,
    "cube_core_num": 24,
    "vector_core_num": 48,
    "multi_processor_count": 24,
    "l2_cache_size": 192 * _MIB,
    "major": 2,
    "minor": 201,
}


class NpuDeviceProperties:
    """What torch.npu.get_device_properties() returns: the simulated target's figures."""

    def __init__(self):
        for key, value in _PROPERTIES.items():
            setattr(self, key, value)

    def __repr__(self):
        return ("NpuDeviceProperties(name='%s', total_memory=%dMB, cube_core_num=%d, "
                "vector_core_num=%d, l2_cache_size=%dMB)" % (
                    self.name, self.total_memory // _MIB, self.cube_core_num,
                    self.vector_core_num, self.l2_cache_size // _MIB))


def _index(device):
    """Checks a torch.npu function's device argument (None: the current device); returns 0,
    the only npu index."""
    if device is not None and not _device.npu_target(device):
        raise ValueError(f"Expected an npu device, got {device!r}")
    return 0


def synchronize(device=None):
    """Nothing to wait for: npu operations complete before they return."""
    _index(device)


def is_available():
    return True


def device_count():
    return _device.DEVICE_COUNT


def current_device():
    return 0


def set_device(device):
    """Accepts npu:0 in any spelling (there is one device); raises for any other."""
    _index(device)


def get_device_name(device=None):
    _index(device)
    return _PROPERTIES["name"]


def get_device_properties(device=None):
    _index(device)
    return NpuDeviceProperties()


class Stream:
    """The simulated npu's one stream: work on it is already complete when queued."""

    def __init__(self, device=None, priority=0, **kwargs):
        self.device = _device.NpuDevice(_index(device))
        self.priority = priority
        self.npu_stream = 0  # the default stream's handle, as on a real device
        self._as_parameter_ = ctypes.c_void_p(0)

    def synchronize(self):
        pass

    def query(self):
        return True

    def wait_event(self, event):
        pass

    def wait_stream(self, stream):
        pass

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream)

    def __hash__(self):
        return 0

    def __repr__(self):
        return "<torch.npu.Stream device=npu:0 npu_stream=0x0>"


_DEFAULT_STREAM = Stream()


def current_stream(device=None):
    _index(device)
    return _DEFAULT_STREAM


def default_stream(device=None):
    _index(device)
    return _DEFAULT_STREAM


class _StreamContext:
    """`with torch.npu.stream(s):` (one stream: entering it changes nothing)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


def stream(stream_=None):
    return _StreamContext(stream_)


class Event:
    """An npu event: record() notes the host clock; elapsed_time() is milliseconds between."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self._time = None

    def record(self, stream=None):
        self._time = time.perf_counter()

    def query(self):
        return True

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0


class _Config:
    """torch.npu.config: the flags scripts set. Tensors are always plain row-major on the
    simulated npu, so allow_internal_format changes nothing; it only keeps its value."""

    _FIELDS = ("allow_internal_format",)

    def __init__(self):
        object.__setattr__(self, "allow_internal_format", False)

    def __setattr__(self, name, value):
        if name not in self._FIELDS:
            raise AttributeError(f"torch.npu.config.{name} is not supported on the simulated npu")
        object.__setattr__(self, name, value)


class _Hf32Flags:
    """torch.npu.matmul / torch.npu.conv: allow_hf32 is kept; float32 is computed as float32."""

    def __init__(self):
        self.allow_hf32 = False


def _seed(seed):
    torch.manual_seed(seed)


def _unsupported(name):
    raise AttributeError(
        f"torch.npu.{name} is not supported on the simulated npu (tilejit.npu); "
        "see docs/python_npu.md"
    )


def build_module():
    """Creates the `torch.npu` module (also importable as `torch.npu` via sys.modules)."""
    mod = types.ModuleType("torch.npu", "torch.npu for tilejit's simulated npu")
    names = ("synchronize is_available device_count current_device set_device get_device_name"
             " get_device_properties Stream Event current_stream default_stream stream").split()
    for name in names:
        setattr(mod, name, globals()[name])
    mod.NpuDeviceProperties = NpuDeviceProperties
    mod.config = _Config()
    mod.matmul = _Hf32Flags()
    mod.conv = _Hf32Flags()
    mod.manual_seed = mod.manual_seed_all = _seed
    mod.seed = mod.seed_all = torch.seed
    mod.initial_seed = torch.initial_seed
    mod.is_initialized = lambda: True
    mod.init = lambda: None
    mod.empty_cache = lambda: None  # nothing cached: npu memory is host memory, freed at once
    mod.memory_allocated = lambda device=None: (_index(device), _memory.allocated())[1]
    mod.max_memory_allocated = lambda device=None: (_index(device), _memory.peak())[1]
    mod.memory_reserved = mod.memory_allocated
    mod.max_memory_reserved = mod.max_memory_allocated
    mod.reset_peak_memory_stats = lambda device=None: (_index(device), _memory.reset_peak())[1]
    mod.__getattr__ = _unsupported
    return mod


def install_namespace():
    """Sets torch.npu (idempotent: the existing module is kept)."""
    mod = sys.modules.get("torch.npu")
    if mod is None or getattr(torch, "npu", None) is not mod:
        mod = build_module()
        sys.modules["torch.npu"] = mod
        torch.npu = mod
    return mod
