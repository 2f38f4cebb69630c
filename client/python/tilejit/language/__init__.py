# SPDX-License-Identifier: Apache-2.0
"""tilejit.language: TileLang's T namespace (`import tilejit.language as T`).

Real in CPython: the decorators T.prim_func and T.macro (they mark functions for the daemon),
the annotations T.Tensor / T.Buffer (a spec object), T.symbolic, the dtype names (T.float16 is
the string "float16"), and the host helpers factories call on ints: T.ceildiv, T.min, T.max.
Every other name (T.copy, T.Kernel, T.serial, T.tile.add, ...) is a Builtin proxy carrying its
qualified name: it can be passed around and closed over (it is sent as that builtin), and
calling it in CPython raises DeviceOnlyError. Which names the daemon supports is its business
(compiler/frontend/builtins.cc); an unknown one is a located compile error.
"""
import builtins as _py

from .. import _builtins
from .._dtypes import DTYPES as _DTYPES
from .._dtypes import DataType
from .._prim import (Macro, PrimFunc, Symbol, TensorSpec, _Symbolic, _TensorProxy, macro, prim_func,
                     symbolic)
from . import tile
from . import reduce_ascend

_builtins.register_module(__name__, "tilelang.language")

Tensor = _TensorProxy("T.Tensor")
Buffer = _TensorProxy("T.Buffer")
globals().update(_DTYPES)
float = _DTYPES["float32"]  # noqa: A001 (TileLang's T.float is float32)


def _is_number(x):
    return isinstance(x, (_py.int, _py.float)) or hasattr(x, "__index__")


class IntImm(_py.int):
    """An int as TVM's constant folding gives it back from T.ceildiv, T.min and T.max: factories
    read it as is or through `.value` (`T.min(n, 4).value`)."""

    @property
    def value(self):
        return _py.int(self)


class FloatImm(_py.float):
    """A float from T.min / T.max, with `.value` like IntImm."""

    @property
    def value(self):
        return _py.float(self)


def _imm(x):
    if isinstance(x, _py.float):
        return FloatImm(x)
    return IntImm(x) if hasattr(x, "__index__") else x


def ceildiv(a, b):
    """(a + b - 1) // b on ints (a factory's tiling arithmetic), or the expression the daemon
    evaluates when an operand is a T.symbolic dimension."""
    if isinstance(a, _Symbolic) or isinstance(b, _Symbolic):
        # (a + (b - 1)) // b folds b - 1 for an int b, as the daemon's T.ceildiv does, so the
        # client's expression is the daemon's (the same IR, the same cache key).
        return (a + (b - 1)) // b
    if not (_is_number(a) and _is_number(b)):
        raise TypeError(f"T.ceildiv({a!r}, {b!r}) in plain Python needs numbers; inside a "
                        "prim_func the daemon evaluates it")
    return _imm(-(-a // b))


def min(*args):  # noqa: A001
    """The smallest of numbers (in a prim_func the daemon evaluates T.min itself)."""
    if not all(_is_number(x) for x in args):
        raise TypeError("T.min in plain Python needs numbers; inside a prim_func the daemon "
                        "evaluates it")
    return _imm(_py.min(*args))


def max(*args):  # noqa: A001
    """The largest of numbers (in a prim_func the daemon evaluates T.max itself)."""
    if not all(_is_number(x) for x in args):
        raise TypeError("T.max in plain Python needs numbers; inside a prim_func the daemon "
                        "evaluates it")
    return _imm(_py.max(*args))


for _name, _obj in (("T.ceildiv", ceildiv), ("T.min", min), ("T.max", max),
                    ("T.prim_func", prim_func), ("T.macro", macro), ("T.Tensor", Tensor),
                    ("T.Buffer", Buffer), ("T.symbolic", symbolic), ("DataType", DataType)):
    _builtins.register(_obj, _name)

__getattr__ = _builtins.proxy_getattr("T.", globals())
