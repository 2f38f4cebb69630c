# SPDX-License-Identifier: Apache-2.0
"""What the T namespace's decorators and annotations make in CPython.

A factory runs as plain Python; inside it `@T.prim_func` and `@T.macro` only *mark* a
function (the daemon parses and traces it from its source), and the parameter annotations
`A: T.Tensor((M, K), dtype)` are evaluated at def time, so T.Tensor returns a harmless spec.
None of these objects runs kernel code in CPython: calling one raises DeviceOnlyError.
"""
import sys

from ._source import annotation_names
from .errors import DeviceOnlyError


class _Marked:
    """A user function marked by a T decorator (`func` is the Python function, whose name,
    qualname, module and doc it takes, as functools.update_wrapper would, only cheaper:
    factories make these on every call)."""
    kind = None  # the protocol's ClientFunction kind

    def __init__(self, func):
        if not hasattr(func, "__code__"):
            raise TypeError(f"@{self._decorator} applies to a Python function, not "
                            f"{type(func).__name__}")
        self.func = self.__wrapped__ = func
        self.__name__, self.__qualname__ = func.__name__, func.__qualname__
        self.__module__, self.__doc__ = func.__module__, func.__doc__

    def __repr__(self):
        return f"<{self._decorator} {self.func.__qualname__}>"


class PrimFunc(_Marked):
    """A @T.prim_func: the kernel a factory returns (tilelang.jit and tilelang.compile take
    it). Its parameter annotations (`A: T.Tensor((M, K), dtype)`) were evaluated in the
    defining scope, whose names (M, K, dtype: factory locals the body may never read) are
    gone once the factory returns; the daemon evaluates the annotations again from the
    source, so the values of the names they read are taken from the defining frame when the
    decorator runs (`annotation_env`), and the encoder sends them with the closure."""
    kind = "PRIM_FUNC"
    _decorator = "T.prim_func"

    def __init__(self, func, frame=None):
        super().__init__(func)
        self.annotation_env = {}
        names = annotation_names(func) if frame is not None else ()
        if names:
            local, glob = frame.f_locals, frame.f_globals
            for name in names:
                if name in local:
                    self.annotation_env[name] = local[name]
                elif name in glob:
                    self.annotation_env[name] = glob[name]

    def __call__(self, *args, **kwargs):
        raise DeviceOnlyError(f"prim_func '{self.func.__qualname__}' cannot be called as Python: "
                              "compile it (tilelang.compile, or return it from a "
                              "@tilelang.jit factory) and call the kernel")


class Macro(_Marked):
    """A @T.macro: inlined by the daemon wherever a prim_func (or another macro) calls it."""
    kind = "MACRO"
    _decorator = "T.macro"

    def __call__(self, *args, **kwargs):
        raise DeviceOnlyError(f"macro '{self.func.__qualname__}' can only be used inside a "
                              "@T.prim_func")


def prim_func(func=None, **options):
    """@T.prim_func (bare or with TileLang's keyword options, which have no effect here)."""
    if func is None:
        return lambda f: PrimFunc(f, sys._getframe(1))
    return PrimFunc(func, sys._getframe(1))


def macro(func=None, **options):
    """@T.macro (bare or with keyword options, which have no effect here)."""
    if func is None:
        return lambda f: Macro(f)
    return Macro(func)


class TensorSpec:
    """What `T.Tensor(shape, dtype)` evaluates to in CPython: the annotation's arguments,
    kept for introspection. The daemon evaluates the annotation again from the source."""
    __slots__ = ("shape", "dtype", "options")

    def __init__(self, shape, dtype="float32", **options):
        self.shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
        self.dtype = dtype
        self.options = options

    def __repr__(self):
        return f"T.Tensor({self.shape}, {self.dtype!r})"


class _TensorProxy:
    """T.Tensor / T.Buffer: callable (`T.Tensor(shape, dtype)`) and subscriptable
    (`T.Tensor[shape, dtype]`)."""

    def __init__(self, qualname):
        self.qualname = qualname

    def __call__(self, shape, dtype="float32", **options):
        return TensorSpec(shape, dtype, **options)

    def __getitem__(self, item):
        shape, dtype = (item[0], item[1]) if isinstance(item, tuple) and len(item) == 2 \
            else (item, "float32")
        return TensorSpec(shape, dtype)

    def __repr__(self):
        return f"<tilejit {self.qualname}>"


class _Symbolic:
    """A value known only at launch: a T.symbolic dimension or host arithmetic on one. The
    operators build a SymExpr the daemon evaluates (ints and other symbolic values as
    operands); anything needing a Python value (int(), bool(), comparisons) raises."""
    __slots__ = ()

    def _host(self, *args):
        raise DeviceOnlyError(f"{self!r} has no value in plain Python: it is a T.symbolic "
                              "dimension, bound when the kernel is launched")

    __int__ = __index__ = __bool__ = __lt__ = __le__ = __gt__ = __ge__ = _host
    __truediv__ = __rtruediv__ = __pow__ = _host

    def __add__(self, other):
        return SymExpr.of("+", self, other)

    def __radd__(self, other):
        return SymExpr.of("+", other, self)

    def __sub__(self, other):
        return SymExpr.of("-", self, other)

    def __rsub__(self, other):
        return SymExpr.of("-", other, self)

    def __mul__(self, other):
        return SymExpr.of("*", self, other)

    def __rmul__(self, other):
        return SymExpr.of("*", other, self)

    def __floordiv__(self, other):
        return SymExpr.of("//", self, other)

    def __rfloordiv__(self, other):
        return SymExpr.of("//", other, self)

    def __mod__(self, other):
        return SymExpr.of("%", self, other)

    def __rmod__(self, other):
        return SymExpr.of("%", other, self)

    def __neg__(self):
        return SymExpr.of("-", 0, self)


class Symbol(_Symbolic):
    """A T.symbolic dimension (`M = T.symbolic("M")`): sent to the daemon by name."""
    __slots__ = ("name", "dtype")

    def __init__(self, name, dtype="int32"):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"T.symbolic needs an identifier as its name, not {name!r}")
        self.name, self.dtype = name, dtype

    def __repr__(self):
        return f"T.symbolic({self.name!r})"


class SymExpr(_Symbolic):
    """`a op b` with op one of + - * // % and a T.symbolic operand somewhere inside."""
    __slots__ = ("op", "a", "b")

    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b

    @staticmethod
    def of(op, a, b):
        for x in (a, b):
            if not isinstance(x, (_Symbolic, int)) or isinstance(x, bool):
                return NotImplemented
        return SymExpr(op, a, b)

    def __repr__(self):
        return f"({self.a!r} {self.op} {self.b!r})"


def symbolic(name, dtype="int32"):
    return Symbol(name, dtype)
