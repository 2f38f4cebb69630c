# SPDX-License-Identifier: Apache-2.0
"""NpuTensor: a CPU tensor that lives on the simulated npu.

An NpuTensor is a `torch.Tensor` subclass over ordinary CPU memory (so `data_ptr()` is a host
pointer the tilejit runtime can read and write). Its `__torch_function__`:
  - keeps results of operations on npu tensors on the npu (as NpuTensors);
  - rejects a plain CPU tensor of one or more dimensions in the same operation, as torch
    rejects mixing devices (0-dim CPU tensors are allowed, like CPU scalars with CUDA);
  - recomputes in float32, and rounds back, the float16/bfloat16 operations CPU torch 1.13
    does not implement ("... not implemented for 'Half'"), generically: the failing call is
    retried with its low-precision tensors upcast;
  - implements the device movement methods (`.cpu()`, `.to(...)`) and refuses `.numpy()`,
    as torch_npu does.
"""

import copy

import torch
from torch._C import DisableTorchFunction

from . import _device, _memory
from ._lowp import call, map_tensors, tensors_in

_TensorBase = torch._C._TensorBase

# Operations that legitimately take tensors of both devices (copies, indexing with cpu
# indices, `.data =` as in nn.Module.cpu()).
_CROSS_DEVICE = {
    _TensorBase.copy_, _TensorBase.to, _TensorBase.__getitem__, _TensorBase.__setitem__,
    _TensorBase.index_put_, _TensorBase.index_put, _TensorBase.data.__set__,
    torch._has_compatible_shallow_copy_type,
}


class NpuTensor(torch.Tensor):
    """A tensor on the simulated npu (CPU memory); see the module docstring."""

    @property
    def device(self):
        return _device.NPU0

    @property
    def is_npu(self):
        return True

    @property
    def is_cpu(self):
        return False

    def __reduce_ex__(self, proto):
        # Saved as a plain CPU tensor plus "put it on the npu", so torch.save keeps the
        # device and torch.load restores an npu tensor where tilejit.npu is importable. The
        # instance dict carries nn.Parameter's _is_param flag.
        with DisableTorchFunction():
            data = _TensorBase.detach(self)
        return (_rebuild_npu, (data, self.requires_grad, dict(self.__dict__)))

    def __deepcopy__(self, memo):
        # torch's default goes through new_empty() with __torch_function__ disabled, which
        # yields a plain tensor; this copies the memory and keeps the class, flags and grad.
        if id(self) in memo:
            return memo[id(self)]
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment")
        with DisableTorchFunction(), torch.no_grad():
            data = _TensorBase.clone(self, memory_format=torch.preserve_format)
            grad = _TensorBase.grad.__get__(self)
        out = adopt(data.requires_grad_(self.requires_grad))
        memo[id(self)] = out
        out.__dict__.update(copy.deepcopy(self.__dict__, memo))
        if grad is not None:
            out.grad = copy.deepcopy(adopt(grad.clone()), memo)
        return out

    def __repr__(self, *, tensor_contents=None):
        # torch prints subclasses as "NpuTensor(...)" (parameters as "Parameter(NpuTensor(
        # ...))"); torch_npu prints "tensor(..., device='npu:0')", so the prefix and its
        # indentation are rewritten.
        text = torch.Tensor.__repr__(self, tensor_contents=tensor_contents)
        is_param = getattr(self, "_is_param", False)
        if is_param and text.startswith("Parameter(") and text.endswith(")"):
            text = text[len("Parameter("):-1]
        head = type(self).__name__ + "("
        if text.startswith(head):
            pad = " " * (len(head) - len("tensor("))
            text = "tensor(" + text[len(head):].replace("\n" + pad, "\n")
        return "Parameter containing:\n" + text if is_param else text

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return dispatch(func, args, {} if kwargs is None else dict(kwargs))


def _rebuild_npu(tensor, requires_grad, state=None):
    out = adopt(tensor.requires_grad_(requires_grad))
    out.__dict__.update(state or {})
    return out


def plain(t):
    """t as a plain torch.Tensor: itself if it is one, else a view of the same memory with
    the same autograd history."""
    if type(t) is torch.Tensor:
        return t
    with DisableTorchFunction():
        return _TensorBase.as_subclass(t, torch.Tensor)


def relabel(t, on_npu):
    """Moves a tensor object between cpu and npu in place by changing its class (plain
    torch.Tensor <-> NpuTensor; same memory, same autograd node, same identity). Other
    classes are left alone. Returns t."""
    if on_npu and type(t) is torch.Tensor:
        t.__class__ = NpuTensor
        _memory.track(t)
    elif not on_npu and type(t) is NpuTensor:
        _memory.untrack(t)
        t.__class__ = torch.Tensor
    return t


def relabel_parameter(p, on_npu):
    """relabel() for an nn.Parameter: on the npu it becomes an NpuTensor flagged _is_param
    (torch 1.13's mark of a parameter of a tensor subclass); back on the cpu, nn.Parameter.
    Parameters of other classes are left alone."""
    if on_npu and type(p) is torch.nn.Parameter:
        p.__class__ = NpuTensor
        p._is_param = True
        _memory.track(p)
    elif not on_npu and type(p) is NpuTensor:
        _memory.untrack(p)
        p.__class__ = torch.nn.Parameter
    return p


def adopt(t):
    """A tensor nobody else holds (an op's fresh result) as an NpuTensor, in place.

    Relabelling the object itself, rather than viewing it through as_subclass, keeps its
    grad_fn (no AliasBackward node), its leaf-ness and requires_grad, and `.grad is .grad`.
    """
    if isinstance(t, NpuTensor):
        return t
    if type(t) is torch.Tensor:
        return relabel(t, True)
    return to_npu(t)


def to_npu(t):
    """A view of t's memory as an NpuTensor (t itself when it is one already); t is not
    changed. A leaf that requires grad gives a leaf (as nn.Parameter is made)."""
    if isinstance(t, NpuTensor):
        return t
    with DisableTorchFunction():
        if t.requires_grad and t.grad_fn is None:
            out = torch.Tensor._make_subclass(NpuTensor, t, True)
        else:
            out = _TensorBase.as_subclass(t, NpuTensor)
    _memory.track(out)
    return out


def _name(func):
    name = getattr(func, "__name__", None) or repr(func)
    if name == "__get__" and hasattr(func, "__self__"):
        return getattr(func.__self__, "__name__", name)
    return name


def _check_same_device(func, tensors):
    """Raises like torch when an npu tensor meets a CPU tensor of one or more dimensions."""
    if func in _CROSS_DEVICE:
        return
    if not any(isinstance(t, NpuTensor) for t in tensors):
        return
    for t in tensors:
        if not isinstance(t, NpuTensor) and t.dim() > 0:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two "
                f"devices, npu:0 and cpu! (in {_name(func)}; move the cpu tensor with .npu())"
            )


def _pop_device(kwargs):
    """Removes a `device=` keyword; returns True (npu), False (another device) or None."""
    if "device" not in kwargs:
        return None
    target = _device.npu_target(kwargs["device"])
    if target:
        kwargs["device"] = "cpu"
    return target


def _wrap_result(ret, inputs, to_device):
    """Puts op results on the npu (to_device True) or returns them plain (False).

    An object that is one of the inputs (in-place methods return self; out= tensors) is
    returned as it is, whatever its class.
    """

    def wrap(r):
        for t in inputs:
            if r is t:
                return r
        if to_device:
            return adopt(r)
        return plain(r) if isinstance(r, NpuTensor) else r

    if isinstance(ret, torch.Tensor):
        return wrap(ret)
    if isinstance(ret, (list, tuple, dict)) and not isinstance(ret, torch.Size):
        return map_tensors(ret, wrap)
    return ret


def _grad_get(t):
    """`t.grad` for an npu tensor: autograd stores plain grads; they become npu tensors in
    place, so the grad is the same object on every access."""
    with DisableTorchFunction():
        g = _TensorBase.grad.__get__(t)
    return g if g is None else adopt(g)


def dispatch(func, args, kwargs):
    """NpuTensor.__torch_function__: see the module docstring."""
    special = _SPECIAL.get(func)
    if special is not None:
        return special(*args, **kwargs)
    target = _pop_device(kwargs)
    tensors = tensors_in(kwargs, tensors_in(args, []))
    _check_same_device(func, tensors)
    ret = call(func, args, kwargs, tensors)
    if func in _NO_WRAP:
        return ret
    return _wrap_result(ret, tensors, target is not False)


# ---- device movement ----------------------------------------------------------------------

def tensor_cpu(self, memory_format=torch.preserve_format):
    """npu -> cpu: a plain tensor holding a copy (new memory, as a real device copy)."""
    with DisableTorchFunction():
        return _TensorBase.clone(self, memory_format=memory_format)


def tensor_npu(self, device=None, non_blocking=False, memory_format=torch.preserve_format):
    """Tensor.npu(): a copy on the npu, or self when already there (torch_npu's semantics)."""
    if device is not None and not _device.npu_target(device):
        raise RuntimeError(f"Tensor.npu(device={device!r}): not an npu device")
    if isinstance(self, NpuTensor):
        return self
    with DisableTorchFunction():
        return adopt(_TensorBase.clone(self, memory_format=memory_format))


def _parse_to(args, kwargs):
    """Splits Tensor.to's arguments into (npu target, plain-torch args, kwargs).

    The target is True (npu), False (another device) or None (no device given); an npu
    device is replaced by "cpu" so plain torch can do the dtype/copy part.
    """
    args, kwargs = list(args), dict(kwargs)
    target = _pop_device(kwargs)
    if args and isinstance(args[0], torch.Tensor):
        other = args.pop(0)
        target = isinstance(other, NpuTensor)
        kwargs.setdefault("dtype", other.dtype)
        kwargs.update(zip(("non_blocking", "copy"), args))  # to(other, non_blocking, copy)
        args = []
    elif args and not isinstance(args[0], torch.dtype):
        target = _device.npu_target(args[0])
        args[0] = "cpu" if target else args[0]
    return target, args, kwargs


def tensor_to(self, *args, **kwargs):
    """Tensor.to for every spelling of a device, npu included, on npu and cpu tensors."""
    target, args, kwargs = _parse_to(args, kwargs)
    src_npu = isinstance(self, NpuTensor)
    with DisableTorchFunction():
        if target is None:
            out = _TensorBase.to(self, *args, **kwargs)
            return out if out is self else (adopt(out) if src_npu else out)
        if target and not src_npu:
            kwargs["copy"] = True  # a new tensor on the npu, not the cpu one relabelled
            return adopt(_TensorBase.to(self, *args, **kwargs))
        if not target and src_npu:
            kwargs["copy"] = True
            return _TensorBase.to(self, *args, **kwargs)
        out = _TensorBase.to(self, *args, **kwargs)
        return out if out is self else (adopt(out) if src_npu else out)


def _numpy(self, *args, **kwargs):
    raise TypeError(
        "can't convert npu:0 device type tensor to numpy. Use Tensor.cpu() to copy the "
        "tensor to host memory first."
    )


def _get_device(self):
    return 0


def _format(self, format_spec):
    # torch formats 0-dim tensors by value only when their class is exactly Tensor.
    if self.dim() == 0:
        return self.item().__format__(format_spec)
    return object.__format__(self, format_spec)


_NO_WRAP = {_TensorBase._base.__get__, _TensorBase._grad.__get__}

_SPECIAL = {
    _TensorBase.cpu: tensor_cpu,
    _TensorBase.to: tensor_to,
    _TensorBase.numpy: _numpy,
    torch.Tensor.__array__: _numpy,
    _TensorBase.get_device: _get_device,
    torch.Tensor.__format__: _format,
    _TensorBase.grad.__get__: _grad_get,
}
