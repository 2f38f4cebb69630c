# SPDX-License-Identifier: Apache-2.0
"""Host tensors for kernel calls: NumPy arrays and torch tensors (on the CPU, or on the
simulated npu of tilejit.npu, whose memory is host memory), their allocation from a kernel's
parameter metadata, the checks of a given tensor against a parameter, and the bytes of the
remote Launch RPC.
"""
import sys

from ._dtypes import numpy_dtype, torch_dtype


def is_torch(x):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


_plain = set()


def plain_types():
    """The types the runtime takes as they are (numpy.ndarray, torch.Tensor), once imported."""
    if len(_plain) < 2:
        for module, name in (("numpy", "ndarray"), ("torch", "Tensor")):
            m = sys.modules.get(module)
            if m is not None:
                _plain.add(getattr(m, name))
    return _plain


def launchable(x):
    """What the runtime takes for `x`: npu tensors as plain CPU tensors over the same memory
    (the runtime reads CPU tensors only), everything else as it is."""
    if type(x).__name__ == "NpuTensor":
        from .npu import plain
        return plain(x)
    return x


def allocate(param, like, shape=None):
    """An uninitialised tensor for `param` (of `shape`, default param.shape, which must then
    be static) of the kind of `like` (torch: torch.empty on
    like's device, which may be the npu; otherwise NumPy). With no `like` (a kernel that
    takes no inputs) it is an npu tensor once the simulated npu is installed (the compatibility
    path: TileLang's kernels return device tensors), otherwise NumPy."""
    device = like.device if like is not None and is_torch(like) else None
    npu = sys.modules.get("tilejit.npu")
    if like is None and npu is not None and npu.is_installed():
        device = "npu"
    if device is not None:
        import torch
        dtype = torch_dtype(param.dtype)
        if dtype is None:
            raise TypeError(f"parameter '{param.name}' is {param.dtype}, which torch "
                            f"{torch.__version__} has no dtype for")
        return torch.empty(shape or param.shape, dtype=dtype, device=device)
    import numpy
    return numpy.empty(shape or param.shape, dtype=numpy_dtype(param.dtype))


def dtype_of(x):
    """The canonical dtype name of a tensor ("float16"), or None."""
    if is_torch(x):
        return str(x.dtype).rpartition(".")[2]
    dtype = getattr(x, "dtype", None)
    return getattr(dtype, "name", None)


def check(kernel_name, position, param, x, written):
    """Why `x` cannot be passed for `param` (argument `position`), or None: type, dtype,
    shape, contiguity, device, writability. Messages name the parameter."""
    what = f"kernel '{kernel_name}' argument {position} (parameter '{param.name}', {param.role})"
    torch_x = is_torch(x)
    if not torch_x and not (hasattr(x, "__array_interface__") and hasattr(x, "flags")):
        return f"{what} is a {type(x).__name__}, not a NumPy array or torch tensor"
    dtype = dtype_of(x)
    ok_dtype = dtype == param.dtype or (param.dtype == "bfloat16" and dtype == "uint16")
    if not ok_dtype:
        return f"{what} has dtype {dtype}; the kernel expects {param.dtype}"
    shape, want = tuple(x.shape), tuple(param.shape)
    if len(shape) != len(want) or any(w != n for w, n in zip(want, shape)
                                      if not isinstance(w, str)):
        expects = "(" + ", ".join(map(str, want)) + ("," if len(want) == 1 else "") + ")"
        return f"{what} has shape {shape}; the kernel expects {expects}"
    if torch_x:
        if x.device.type not in ("cpu", "npu"):
            return f"{what} is on device {x.device}; tilejit runs on the CPU or the simulated npu"
        if not x.is_contiguous():
            return f"{what} is not contiguous"
        if written and x.requires_grad and x.is_leaf:
            return f"{what} requires grad; an output is written in place"
    else:
        if not x.flags.c_contiguous:
            return f"{what} is not C-contiguous"
        if written and not x.flags.writeable:
            return f"{what} is read-only; an output is written in place"
    return None


def to_wire(pb, x, dtype):
    """A tilejit.v1.Tensor holding a copy of `x`'s bytes."""
    if is_torch(x):
        import torch
        t = x.detach()
        if type(t).__name__ == "NpuTensor":
            t = launchable(t)
        t = t.contiguous()
        if t.dtype == torch.bfloat16:
            t = t.view(torch.int16)
        data = t.numpy().tobytes()
    else:
        import numpy
        data = numpy.ascontiguousarray(x).tobytes()
    return pb.Tensor(dtype=dtype, shape=list(x.shape), data=data)


def from_wire(t, out):
    """Copies the bytes of tilejit.v1.Tensor `t` into the tensor `out`."""
    import numpy
    arr = numpy.frombuffer(t.data, dtype=numpy_dtype(t.dtype)).reshape(tuple(t.shape))
    if is_torch(out):
        import torch
        target = launchable(out)
        if target.dtype == torch.bfloat16:
            target = target.view(torch.int16)
            arr = arr.view(numpy.int16)
        with torch.no_grad():
            target.copy_(torch.from_numpy(arr.copy()))
    else:
        out[...] = arr
