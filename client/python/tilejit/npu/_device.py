# SPDX-License-Identifier: Apache-2.0
"""The simulated npu as a device object, and the `torch.device` that accepts it.

Torch 1.13's C++ device parser knows a fixed list of device types ("npu" is not one of them)
and has no `torch.utils.rename_privateuse1_backend`, so "npu" cannot be registered with torch
itself. Instead `torch.device` is replaced, at the Python level, by a class whose constructor
returns an `NpuDevice` for "npu" spellings and torch's own C device for everything else;
`isinstance(x, torch.device)` holds for both. An `NpuDevice` never reaches torch's C++ code:
every entry point that accepts a device (factories, `.to`, `nn.Module.to`) is wrapped to turn
it into "cpu" plus the npu tensor subclass (see _tensor.py and _patch.py).
"""

import copyreg

import torch

# torch's C device type, kept before torch.device is replaced.
TorchDevice = torch._C.device

DEVICE_COUNT = 1


class NpuDevice:
    """`torch.device("npu")` / `torch.device("npu:0")`: type "npu", an optional index.

    Mirrors torch.device's observable surface: `.type`, `.index`, `str()` ("npu" or "npu:0"),
    `repr()`, equality (an index-less device differs from "npu:0", as in torch), hashing and
    pickling (as a call of `torch.device` with the string, so it unpickles wherever this
    module is installed).
    """

    __slots__ = ("_index",)

    def __init__(self, index=None):
        if index is not None:
            check_index(index)
        self._index = index

    @property
    def type(self):
        return "npu"

    @property
    def index(self):
        return self._index

    def __str__(self):
        return "npu" if self._index is None else f"npu:{self._index}"

    def __repr__(self):
        if self._index is None:
            return "device(type='npu')"
        return f"device(type='npu', index={self._index})"

    def __eq__(self, other):
        return isinstance(other, NpuDevice) and other._index == self._index

    def __hash__(self):
        return hash(("npu", self._index))

    def __reduce__(self):
        return (torch.device, (str(self),))


def check_index(index):
    """Raises for an npu index other than 0: the simulated npu is one device."""
    if not isinstance(index, int) or isinstance(index, bool):
        raise TypeError(f"npu device index must be an int, got {index!r}")
    if not 0 <= index < DEVICE_COUNT:
        raise RuntimeError(
            f"Invalid device npu:{index}: the simulated npu has {DEVICE_COUNT} device (npu:0)"
        )


NPU0 = NpuDevice(0)


def _parse_npu_string(spec):
    """Returns the index of an "npu" / "npu:N" string (None for bare "npu"), or raises."""
    if spec == "npu":
        return None
    text = spec[len("npu:"):]
    if not text.isdigit():
        raise RuntimeError(f"Invalid device string: '{spec}'")
    index = int(text)
    check_index(index)
    return index


def is_npu_spelling(spec):
    """True when `spec` names the simulated npu: an NpuDevice, "npu" or "npu:N"."""
    if isinstance(spec, NpuDevice):
        return True
    return isinstance(spec, str) and (spec == "npu" or spec.startswith("npu:"))


def npu_target(spec, ints_are_npu=True):
    """Classifies a device argument: True for the simulated npu, False for any other device.

    None is neither and gives None. Integers are npu indices (torch_npu makes `device=0`
    mean npu:0 in factories and `.to(0)`); pass ints_are_npu=False where an int means
    something else. Raises for npu indices other than 0.
    """
    if spec is None:
        return None
    if isinstance(spec, NpuDevice):
        return True
    if isinstance(spec, str):
        if is_npu_spelling(spec):
            _parse_npu_string(spec)
            return True
        return False
    if isinstance(spec, int) and not isinstance(spec, bool) and ints_are_npu:
        check_index(spec)
        return True
    return False


def make_device(*args, **kwargs):
    """What `torch.device(...)` returns once installed: an NpuDevice or torch's device.

    Takes torch.device's arguments: (spec), (type, index), type=/index= keywords, or a
    device object.
    """
    spec = args[0] if args else kwargs.get("type")
    if not (isinstance(spec, NpuDevice) or isinstance(spec, str) and is_npu_spelling(spec)):
        return TorchDevice(*args, **kwargs)
    index = args[1] if len(args) > 1 else kwargs.get("index")
    if isinstance(spec, NpuDevice):
        if index is not None:
            raise TypeError("torch.device(device, index): index given twice")
        return spec
    parsed = _parse_npu_string(spec)
    if index is not None:
        if parsed is not None:
            raise RuntimeError(
                "type (string) must not include an index because index was passed "
                f"explicitly: {spec}"
            )
        parsed = index
    return NpuDevice(parsed)


class _DeviceMeta(type):
    """Makes the replacement `torch.device` construct and recognise both kinds of device."""

    def __call__(cls, *args, **kwargs):
        return make_device(*args, **kwargs)

    def __instancecheck__(cls, obj):
        return isinstance(obj, (TorchDevice, NpuDevice))

    def __subclasscheck__(cls, sub):
        return isinstance(sub, type) and issubclass(sub, (TorchDevice, NpuDevice))


class device(metaclass=_DeviceMeta):  # noqa: N801 - it stands in for torch.device
    """torch.device, extended by tilejit.npu with the simulated "npu" device type."""


device.__module__ = "torch"
device.__qualname__ = "device"


def _reduce_torch_device(dev):
    # torch's C device pickles as a call of torch.device; pickle checks that torch.device is
    # the object it names, which stops holding once torch.device is replaced. This reducer
    # names the replacement, whose call builds the same C device (here and in a process
    # without tilejit, where torch.device is the C type again).
    return (torch.device, (str(dev),))


def install_device_type():
    """Replaces torch.device by the npu-aware class (idempotent)."""
    if torch.device is not device:
        torch.device = device
        copyreg.pickle(TorchDevice, _reduce_torch_device)
