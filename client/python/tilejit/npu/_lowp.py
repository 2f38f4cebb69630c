# SPDX-License-Identifier: Apache-2.0
"""The float16/bfloat16 fallback of npu tensors: CPU torch 1.13 lacks many Half kernels.

A call that fails with "... not implemented for 'Half'" (or 'BFloat16', or linalg's "Low
precision dtypes not supported") is retried with its low-precision tensors, and dtype
arguments, upcast to float32, and its floating results are rounded back: the result equals
float32-compute-then-round. The functions here run with __torch_function__ disabled.
"""

import torch
from torch._C import DisableTorchFunction

# Low-precision dtypes the fallback upcasts, keyed by the name torch's errors use.
_LOW_NAMES = {torch.float16: "'Half'", torch.bfloat16: "'BFloat16'"}
_LOW_PRECISION_HINTS = ("Low precision dtypes not supported",)


def map_tensors(obj, fn):
    """Applies fn to every tensor in obj (nested lists, tuples, named tuples and dicts)."""
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(map_tensors(x, fn) for x in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(map_tensors(x, fn) for x in obj)
    if isinstance(obj, dict):
        return {k: map_tensors(v, fn) for k, v in obj.items()}
    return obj


def tensors_in(obj, out):
    """Appends every tensor in obj (as _map walks it) to out; returns out."""
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            tensors_in(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            tensors_in(x, out)
    return out


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


def _retry_in_float(func, args, kwargs, low, inputs):
    """Runs func with `low`-dtype tensors (and dtype arguments) upcast to float32.

    Floating float32 results are rounded back to `low`, unless the caller asked for float32
    explicitly. An upcast copy that func modified in place (in-place methods, out=,
    inplace=True) is copied back into its original, and a result that is such a copy is
    replaced by the original, so in-place semantics survive the detour. A result that is one
    of the `inputs` is returned as it is.
    """
    copies = []  # (original, float32 copy, copy's version right after creation)

    def up(t):
        if t.dtype != low:
            return t
        c = t.float()
        copies.append((t, c, c._version))
        return c

    def up_arg(a):
        return torch.float32 if a is low else map_tensors(a, up)

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
        if any(r is t for t in inputs):
            return r
        if r.dtype == torch.float32 and not keep_float:
            return r.to(low)
        return r

    return map_tensors(result, down)


# (func, dtype) pairs seen failing for want of a low-precision CPU kernel: later calls go
# straight to float32, since building torch's error (with its C++ backtrace) costs
# milliseconds. Computing such a call in float32 is what the fallback promises anyway.
_FLOAT_ONLY = set()


def call(func, args, kwargs, tensors):
    """func under DisableTorchFunction, with the low-precision fallback."""
    with DisableTorchFunction():
        if _FLOAT_ONLY:
            for t in tensors:
                if (func, t.dtype) in _FLOAT_ONLY:
                    return _retry_in_float(func, args, kwargs, t.dtype, tensors)
        try:
            return func(*args, **kwargs)
        except RuntimeError as err:
            low = _low_dtype_of_failure(err, tensors)
            if low is None:
                raise
            result = _retry_in_float(func, args, kwargs, low, tensors)
            _FLOAT_ONLY.add((func, low))
            return result
