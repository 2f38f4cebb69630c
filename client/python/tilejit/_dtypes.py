# SPDX-License-Identifier: Apache-2.0
"""Element types on the host: TileLang's dtype names, `T.float16`-like objects, DataType, and
the conversion of torch and NumPy dtypes to the canonical names of the kernel metadata.

Factories compute with dtypes in CPython (`DataType(dtype).bits`, `dtype=torch.float16`);
what reaches the daemon is always a dtype *name* (a string), whatever object held it.
"""
import sys

from .errors import DeviceOnlyError

# TileLang's spelling -> the canonical name of the kernel metadata ("float" is float32).
_CANONICAL = {
    "float": "float32", "float16": "float16", "half": "float16", "float32": "float32",
    "float64": "float64", "double": "float64", "bfloat16": "bfloat16", "bool": "bool",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64", "int": "int32",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "e4m3_float8": "e4m3_float8", "e5m2_float8": "e5m2_float8",
}
_BITS = {"bool": 8, "int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "float16": 16,
         "bfloat16": 16, "int32": 32, "uint32": 32, "float32": 32, "int64": 64, "uint64": 64,
         "float64": 64, "e4m3_float8": 8, "e5m2_float8": 8}


class DTypeName(str):
    """A dtype as the T namespace names it (`T.float16`): the string "float16" itself, so it
    works wherever a dtype string does (and is sent as one). Calling it (`T.float16(0)`) makes
    an IR constant, which only a prim_func body can do."""

    def __call__(self, *args, **kwargs):
        raise DeviceOnlyError(f"T.{self}(...) can only be used inside a @T.prim_func")


def dtype_name(dtype):
    """The name of a dtype given as a string, DTypeName, DataType, torch dtype or NumPy
    dtype / scalar type ("float16", ...); TypeError for anything else."""
    if isinstance(dtype, str):
        return str(dtype)
    if isinstance(dtype, DataType):
        return dtype.name
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(dtype, torch.dtype):
        return str(dtype).rpartition(".")[2]
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        if isinstance(dtype, numpy.dtype):
            return dtype.name
        if isinstance(dtype, type) and issubclass(dtype, numpy.generic):
            return numpy.dtype(dtype).name
    raise TypeError(f"{dtype!r} is not a dtype (a string such as 'float16', a torch dtype or "
                    "a NumPy dtype)")


def canonical(dtype):
    """The kernel metadata's name for a dtype ("float" -> "float32"); ValueError if unknown."""
    name = dtype_name(dtype)
    try:
        return _CANONICAL[name]
    except KeyError:
        raise ValueError(f"unknown dtype '{name}' (known: {', '.join(sorted(_CANONICAL))})") \
            from None


class DataType:
    """tvm's DataType on the host: `DataType("float16").bits == 16`, `.lanes`, `.name`,
    str() the dtype's name. Factories use it in CPython; a prim_func body that calls it is
    evaluated by the daemon (the name is sent as the builtin "DataType")."""
    __slots__ = ("name", "bits", "lanes")

    def __init__(self, dtype):
        self.name = dtype_name(dtype)
        self.lanes = 1
        base = canonical(self.name)
        self.bits = _BITS.get(base, 0)

    @property
    def type_code(self):
        base = canonical(self.name)
        if base.startswith(("float", "bfloat", "e4m3", "e5m2")):
            return "float"
        return "uint" if base.startswith("uint") or base == "bool" else "int"

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"DataType({self.name!r})"

    def __eq__(self, other):
        try:
            return canonical(self) == canonical(other)
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self):
        return hash(canonical(self.name))


def torch_dtype(name):
    """The torch dtype of a canonical name (torch imported by the caller); None if torch has
    none."""
    torch = sys.modules.get("torch")
    return getattr(torch, name, None) if torch is not None else None


def numpy_dtype(name):
    """The NumPy dtype of a canonical name; bfloat16 (NumPy has none) is uint16 bit patterns."""
    import numpy
    return numpy.dtype("uint16" if name == "bfloat16" else name)


# The T namespace's dtype objects.
DTYPES = {name: DTypeName(name) for name in (
    "float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8",
    "uint16", "uint32", "uint64", "bool", "e4m3_float8", "e5m2_float8")}
