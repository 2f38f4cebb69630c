# SPDX-License-Identifier: Apache-2.0
"""The patches install() applies to torch: factories, Tensor and Module methods, dtypes.

Each patch keeps torch's behaviour for every call that does not involve the npu: a wrapped
function looks at its device argument (and the default device) and calls the original
untouched unless the npu is named.
"""

import functools

import torch

from . import _device
from ._tensor import NpuTensor, adopt, plain, relabel, relabel_parameter, tensor_npu, tensor_to

_state = {"default_npu": False, "native_set_default_device": None}

# torch factories that take device=; *_like ones follow their input, not the default device.
_FACTORIES = (
    "empty zeros ones full rand randn randint randperm arange range linspace logspace eye"
    " tensor empty_strided scalar_tensor tril_indices triu_indices normal hann_window"
    " hamming_window blackman_window bartlett_window kaiser_window"
).split()
_LIKE_FACTORIES = "empty_like zeros_like ones_like full_like rand_like randn_like randint_like".split()
# Factories whose result may share the input's memory on cpu: on the npu they copy.
_ALIASING_FACTORIES = ("as_tensor", "asarray")
_NEW_METHODS = "new_empty new_zeros new_ones new_full new_tensor new_empty_strided".split()


def default_is_npu():
    return _state["default_npu"]


def _make_on_npu(orig, args, kwargs, copy_input):
    """Calls factory `orig` on the cpu and puts the result on the npu."""
    kwargs["device"] = "cpu"
    requires_grad = kwargs.pop("requires_grad", False)
    out = orig(*args, **kwargs)
    if copy_input and args and not isinstance(args[0], NpuTensor):
        out = plain(out).clone()
    out = adopt(out)
    if requires_grad:
        out.requires_grad_(True)
    return out


def _wrap_factory(orig, uses_default, copy_input=False):
    """A factory that also accepts the npu as its device (or as the default device)."""

    @functools.wraps(orig)
    def factory(*args, **kwargs):
        target = _device.npu_target(kwargs.get("device"))
        if target is None and uses_default and _state["default_npu"]:
            target = True
        if not target:
            return orig(*args, **kwargs)
        return _make_on_npu(orig, args, kwargs, copy_input)

    factory.__tilejit_npu_original__ = orig
    return factory


def _wrap_new_method(orig):
    """Tensor.new_* accepting device="npu"; without a device, torch's method (and, on an
    npu tensor, __torch_function__) applies."""

    @functools.wraps(orig)
    def method(self, *args, **kwargs):
        if not _device.npu_target(kwargs.get("device")):
            return orig(self, *args, **kwargs)
        return _make_on_npu(functools.partial(orig, self), args, kwargs, False)

    method.__tilejit_npu_original__ = orig
    return method


def _mentions_npu(args, kwargs):
    """True when Tensor.to's arguments name the npu (or an npu tensor to follow)."""
    first = args[0] if args else None
    if isinstance(first, NpuTensor):
        return True
    if first is not None and not isinstance(first, (torch.dtype, torch.Tensor)):
        if _device.npu_target(first):
            return True
    return bool(_device.npu_target(kwargs.get("device")))


def _wrap_tensor_to(orig):
    @functools.wraps(orig)
    def to(self, *args, **kwargs):
        if isinstance(self, NpuTensor) or _mentions_npu(args, kwargs):
            return tensor_to(self, *args, **kwargs)
        return orig(self, *args, **kwargs)

    to.__tilejit_npu_original__ = orig
    return to


# ---- nn.Module ----------------------------------------------------------------------------

def _relabel_module(module, on_npu):
    """Marks a module's parameters, their grads and its buffers as npu (or cpu) tensors, in
    place: an optimizer built before .npu() still holds the same parameter objects."""
    for m in module.modules():
        for p in m._parameters.values():
            if p is None:
                continue
            relabel_parameter(p, on_npu)
            g = torch._C._TensorBase.grad.__get__(p)
            if g is not None:
                relabel(g, on_npu)
        for b in m._buffers.values():
            if b is not None:
                relabel(b, on_npu)


def _module_to_target(args, kwargs):
    """(target, args, kwargs) for Module.to, with an npu device replaced by "cpu"."""
    args, kwargs = list(args), dict(kwargs)
    target = _device.npu_target(kwargs.get("device"))
    if target:
        kwargs["device"] = "cpu"
    if args and isinstance(args[0], torch.Tensor):
        target = isinstance(args[0], NpuTensor)
    elif args and not isinstance(args[0], torch.dtype):
        target = _device.npu_target(args[0])
        if target:
            args[0] = "cpu"
    return target, args, kwargs


def _wrap_module_to(orig):
    @functools.wraps(orig)
    def to(self, *args, **kwargs):
        target, args, kwargs = _module_to_target(args, kwargs)
        out = orig(self, *args, **kwargs)
        if target is not None:
            _relabel_module(self, target)
        return out

    to.__tilejit_npu_original__ = orig
    return to


def _module_npu(self, device=None):
    """Module.npu(): moves parameters and buffers to the simulated npu."""
    return self.to("npu" if device is None else device)


def _wrap_module_cpu(orig):
    @functools.wraps(orig)
    def cpu(self):
        out = orig(self)
        _relabel_module(self, False)
        return out

    cpu.__tilejit_npu_original__ = orig
    return cpu


# ---- torch.load ----------------------------------------------------------------------------

def _relocate(obj, on_npu):
    """Moves every tensor (and nn.Module) in a loaded object to the npu, or off it."""
    if isinstance(obj, torch.nn.Module):
        return obj.npu() if on_npu else obj.cpu()
    if isinstance(obj, torch.Tensor):
        return relabel(obj, on_npu)
    if isinstance(obj, dict):
        for key in list(obj):
            obj[key] = _relocate(obj[key], on_npu)
        return obj
    if isinstance(obj, list):
        obj[:] = [_relocate(x, on_npu) for x in obj]
        return obj
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return tuple(_relocate(x, on_npu) for x in obj)
    return obj


def _wrap_load(orig):
    """torch.load with map_location naming the npu ("npu", "npu:0", torch.device("npu"),
    0): loads on the cpu, then moves the tensors found in the result to the npu. An explicit
    cpu map_location brings tensors saved from the npu back as cpu tensors."""

    @functools.wraps(orig)
    def load(f, map_location=None, *args, **kwargs):
        if isinstance(map_location, (dict,)) or callable(map_location):
            return orig(f, map_location, *args, **kwargs)
        target = _device.npu_target(map_location)
        if target is None:
            return orig(f, map_location, *args, **kwargs)
        loaded = orig(f, "cpu" if target else map_location, *args, **kwargs)
        return _relocate(loaded, target)

    load.__tilejit_npu_original__ = orig
    return load


# ---- default device, dtypes ---------------------------------------------------------------

def set_default_device(device):
    """torch.set_default_device for torch 1.13, which lacks it: "npu" (any spelling) makes
    the factories above create npu tensors; "cpu" or None restores cpu."""
    target = _device.npu_target(device)
    if target is None or not target and torch.device(device).type == "cpu":
        _state["default_npu"] = False
        if _state["native_set_default_device"] is not None:
            _state["native_set_default_device"]("cpu")
        return
    if not target:
        native = _state["native_set_default_device"]
        if native is None:
            raise RuntimeError(
                f"set_default_device({device!r}): torch {torch.__version__} has no default "
                "device; with tilejit.npu only 'npu' and 'cpu' are supported"
            )
        _state["default_npu"] = False
        native(device)
        return
    _state["default_npu"] = True


def get_default_device():
    return _device.NPU0 if _state["default_npu"] else torch.device("cpu")


# Unsigned dtypes torch 1.13 lacks, aliased to same-width signed integers.
_UINT_ALIASES = {"uint16": torch.int16, "uint32": torch.int32, "uint64": torch.int64}


def _patch(owner, name, make):
    """Replaces owner.name by make(original) unless it is already patched."""
    current = getattr(owner, name)
    if getattr(current, "__tilejit_npu_original__", None) is None:
        setattr(owner, name, make(current))


def install_patches():
    """Applies every patch (idempotent: patched attributes are recognised and kept)."""
    for name in _FACTORIES:
        if hasattr(torch, name):
            _patch(torch, name, lambda f: _wrap_factory(f, True))
    for name in _LIKE_FACTORIES:
        _patch(torch, name, lambda f: _wrap_factory(f, False))
    for name in _ALIASING_FACTORIES:
        if hasattr(torch, name):
            _patch(torch, name, lambda f: _wrap_factory(f, True, copy_input=True))
    for name in _NEW_METHODS:
        _patch(torch.Tensor, name, _wrap_new_method)
    _patch(torch.Tensor, "to", _wrap_tensor_to)
    torch.Tensor.npu = tensor_npu
    if not isinstance(getattr(torch.Tensor, "is_npu", None), property):
        torch.Tensor.is_npu = property(lambda self: False, doc="True for npu tensors")
    _patch(torch.nn.Module, "to", _wrap_module_to)
    _patch(torch.nn.Module, "cpu", _wrap_module_cpu)
    torch.nn.Module.npu = _module_npu
    _patch(torch, "load", _wrap_load)
    native = getattr(torch, "set_default_device", None)
    if native is not set_default_device:
        _state["native_set_default_device"] = native
        torch.set_default_device = set_default_device
    if not hasattr(torch, "get_default_device"):
        torch.get_default_device = get_default_device
    for name, dtype in _UINT_ALIASES.items():
        if not hasattr(torch, name):
            setattr(torch, name, dtype)
