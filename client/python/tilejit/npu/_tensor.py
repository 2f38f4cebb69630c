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

_TensorBase = torch._C._TensorBase

# Low-precision dtypes the fallback upcasts, keyed by the name torch's errors use.
_LOW_NAMES = {torch.float16: "'Half'", torch.bfloat16: "'BFloat16'"}
_LOW_PRECISION_HINTS = ("Low precision dtypes not supported",)

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
        return (_rebuild_npu, (plain(self), self.requires_grad, dict(self.__dict__)))

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
        out = to_npu(data, requires_grad=self.requires_grad)
        memo[id(self)] = out
        out.__dict__.update(copy.deepcopy(self.__dict__, memo))
        if grad is not None:
            out.grad = copy.deepcopy(to_npu(grad), memo)
        return out

    def __repr__(self, *, tensor_contents=None):
        # torch prints subclasses as "NpuTensor(...)"; torch_npu's tensors print as
        # "tensor(..., device='npu:0')", so the prefix and its indentation are rewritten.
        text = torch.Tensor.__repr__(self, tensor_contents=tensor_contents)
        head = type(self).__name__ + "("
        if not text.startswith(head):
            return text
        pad = " " * (len(head) - len("tensor("))
        return "tensor(" + text[len(head):].replace("\n" + pad, "\n")

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return dispatch(func, args, {} if kwargs is None else dict(kwargs))


def _rebuild_npu(tensor, requires_grad, state=None):
    out = to_npu(tensor, requires_grad=requires_grad)
    out.__dict__.update(state or {})
    return out


def plain(t):
    """The same tensor (same memory, same autograd history) as a plain torch.Tensor."""
    with DisableTorchFunction():
        return _TensorBase.as_subclass(t, torch.Tensor)


def to_npu(t, requires_grad=None):
    """`t` as an NpuTensor sharing its memory; NpuTensors are returned as they are.

    A leaf that requires grad stays a leaf (made with _make_subclass, as nn.Parameter
    does), so factories' requires_grad=True gives a tensor whose .grad is filled.
    """
    if isinstance(t, NpuTensor):
        return t
    with DisableTorchFunction():
        if requires_grad is None:
            requires_grad = t.requires_grad and t.grad_fn is None
        if requires_grad:
            out = torch.Tensor._make_subclass(NpuTensor, t, True)
        else:
            out = _TensorBase.as_subclass(t, NpuTensor)
    _memory.track(out)
    return out


def _map(obj, fn):
    """Applies fn to every tensor in obj (nested lists, tuples, named tuples and dicts)."""
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_map(x, fn) for x in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map(x, fn) for x in obj)
    if isinstance(obj, dict):
        return {k: _map(v, fn) for k, v in obj.items()}
    return obj


def _tensors(obj, out):
    """Appends every tensor in obj (as _map walks it) to out; returns out."""
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _tensors(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            _tensors(x, out)
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


def _low_dtype_of_failure(err, tensors):
    """The low-precision dtype a RuntimeError says CPU torch lacks a kernel for, or None."""
    msg = str(err)
    for dtype, name in _LOW_NAMES.items():
        if f"not implemented for {name}" in msg:
            return dtype
    if any(hint in msg for hint in _LOW_PRECISION_HINTS):
        for t in tensors:
            if t.dtype in _LOW_NAMES:
                return t.dtype
    return None


def _retry_in_float(func, args, kwargs, low):
    """Runs func with `low`-dtype tensors (and dtype arguments) upcast to float32.

    Floating float32 results are rounded back to `low`, unless the caller asked for float32
    explicitly. An upcast copy that func modified in place (in-place methods, out=,
    inplace=True) is copied back into its original, and a result that is such a copy is
    replaced by the original, so in-place semantics survive the detour.
    """
    copies = []  # (original, float32 copy, copy's version right after creation)

    def up(t):
        if t.dtype != low:
            return t
        c = t.float()
        copies.append((t, c, c._version))
        return c

    def up_arg(a):
        return torch.float32 if a is low else _map(a, up)

    fargs = [up_arg(a) for a in args]
    fkwargs = {k: up_arg(v) for k, v in kwargs.items()}
    keep_float = kwargs.get("dtype") is torch.float32
    result = func(*fargs, **fkwargs)
    for orig, c, version in copies:
        if c._version != version:
            orig.copy_(c)

    def down(r):
        for orig, c, _ in copies:
            if r is c:
                return orig
        if r.dtype == torch.float32 and not keep_float:
            return r.to(low)
        return r

    return _map(result, down)


# (func, dtype) pairs seen failing for want of a low-precision CPU kernel: later calls go
# straight to float32, since building torch's error (with its C++ backtrace) costs
# milliseconds. Computing such a call in float32 is what the fallback promises anyway.
_FLOAT_ONLY = set()


def _call(func, args, kwargs, tensors):
    """func under DisableTorchFunction, with the low-precision fallback."""
    with DisableTorchFunction():
        if _FLOAT_ONLY:
            for t in tensors:
                if (func, t.dtype) in _FLOAT_ONLY:
                    return _retry_in_float(func, args, kwargs, t.dtype)
        try:
            return func(*args, **kwargs)
        except RuntimeError as err:
            low = _low_dtype_of_failure(err, tensors)
            if low is None:
                raise
            result = _retry_in_float(func, args, kwargs, low)
            _FLOAT_ONLY.add((func, low))
            return result


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
            return to_npu(r)
        return plain(r) if isinstance(r, NpuTensor) else r

    if isinstance(ret, torch.Tensor):
        return wrap(ret)
    if ret is None or isinstance(ret, (bool, int, float)):
        return ret
    return _map(ret, wrap)


def _grad_get(t):
    """`t.grad` for an npu tensor: autograd stores plain grads; they are moved (once) to npu."""
    with DisableTorchFunction():
        g = _TensorBase.grad.__get__(t)
        if g is None or isinstance(g, NpuTensor):
            return g
        g = to_npu(g)
        _TensorBase.grad.__set__(t, g)
        return g


def dispatch(func, args, kwargs):
    """NpuTensor.__torch_function__: see the module docstring."""
    special = _SPECIAL.get(func)
    if special is not None:
        return special(*args, **kwargs)
    target = _pop_device(kwargs)
    tensors = _tensors(kwargs, _tensors(args, []))
    _check_same_device(func, tensors)
    ret = _call(func, args, kwargs, tensors)
    if func in _NO_WRAP:
        return ret
    return _wrap_result(ret, tensors, target is not False)


# ---- device movement ----------------------------------------------------------------------

def tensor_cpu(self, memory_format=torch.preserve_format):
    """npu -> cpu: a plain tensor holding a copy (new memory, as a real device copy)."""
    with DisableTorchFunction():
        return plain(_TensorBase.clone(self, memory_format=memory_format))


def tensor_npu(self, device=None, non_blocking=False, memory_format=torch.preserve_format):
    """Tensor.npu(): a copy on the npu, or self when already there (torch_npu's semantics)."""
    if device is not None and not _device.npu_target(device):
        raise RuntimeError(f"Tensor.npu(device={device!r}): not an npu device")
    if isinstance(self, NpuTensor):
        return self
    with DisableTorchFunction():
        return to_npu(_TensorBase.clone(self, memory_format=memory_format))


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
            return out if out is self else (to_npu(out) if src_npu else out)
        if target and not src_npu:
            kwargs["copy"] = True  # a new tensor on the npu, not the cpu one relabelled
            return to_npu(_TensorBase.to(self, *args, **kwargs))
        if not target and src_npu:
            kwargs["copy"] = True
            return plain(_TensorBase.to(self, *args, **kwargs))
        out = _TensorBase.to(self, *args, **kwargs)
        return out if out is self else (to_npu(out) if src_npu else out)


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
