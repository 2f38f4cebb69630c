# SPDX-License-Identifier: Apache-2.0
"""The closure encoder: a prim_func made by the user's own Python -> the PRIM_FUNC request's
source map and function table (docs/prim_func_requests.md), as canonical hashable tuples.

For each shipped function: its position (_source.locate), and the values of every name its
body reads that Python does not provide: free variables (co_freevars with __closure__'s cells)
and globals (LOAD_GLOBAL names of the code and of the code objects nested in it, looked up in
__globals__; names found only in Python's builtins are left out). Values are encoded exactly
typed: bool before int, floats by their hex form (so 1, 1.0 and True, and 0.0 and -0.0,
differ), IntEnum and other Enum members as their values, NumPy scalars as Python ones,
dtypes (torch, NumPy, T.float16, DataType) as their names, tilejit builtins by qualified name,
TileLang modules by path, user functions / lambdas / macros as further table entries (by
index, so recursion needs no copies), T.symbolic dimensions by name; anything else is a
ClientValueError naming the variable, its type and the function reading it.

The result's `key` is the request's identity for the per-process memo: the file snapshots
and the whole table. A changed closure value or global therefore changes the key, and the
repeat call of an unchanged factory costs only this walk (code analyses and positions are
cached per code object). Not thread-safe per Encoder; encode() makes one per call.
"""
import dis
import enum
import sys
import types

from . import _builtins, _source
from ._dtypes import DataType
from ._prim import Macro, PrimFunc, SymExpr, Symbol
from .errors import ClientValueError

MAX_VALUES = 65536  # in the whole request (the daemon's limit)
MAX_DEPTH = 16      # nesting of lists, tuples and dicts
_INT64 = (-(1 << 63), (1 << 63) - 1)
_GLOBAL_OPS = frozenset(("LOAD_GLOBAL", "LOAD_NAME", "DELETE_GLOBAL", "STORE_GLOBAL"))
_CONST_TYPES = {type(None): None, bool: "b", int: "i", float: "f", str: "s"}


class Encoded:
    """A shipped prim_func: `files` (FileSnapshots, in table order of first use), `table`
    (function tuples: file, line, column, qualname, kind, closure, defaults, kwdefaults),
    `key` (hashable: file serials and the table) and `unsupported`: the names bound to
    TileLang objects tilejit does not provide (tilelang.intrinsics.make_zn_layout, ...), which
    are not sent, so that only a kernel that really uses one fails (the daemon then says the
    name has no value; CompileError adds what it was)."""
    __slots__ = ("files", "table", "key", "unsupported")

    def __init__(self, files, table, unsupported):
        self.files, self.table = tuple(files), tuple(table)
        self.key = (tuple(f.serial for f in self.files), self.table)
        self.unsupported = unsupported


_global_names = {}  # code object -> tuple of global names its code (and nested code) reads


def _globals_read(code):
    names = _global_names.get(code)
    if names is None:
        found, stack = set(), [code]
        while stack:
            c = stack.pop()
            for ins in dis.get_instructions(c):
                if ins.opname in _GLOBAL_OPS:
                    found.add(ins.argval)
            stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        names = _global_names[code] = tuple(sorted(found))
    return names


def _describe(v):
    t = type(v)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


class Encoder:
    def __init__(self):
        self._index = {}    # id(function) -> table index
        self._keep = []     # the functions indexed (ids stay theirs during the walk)
        self._table = []
        self._files = []
        self._file_index = {}  # FileSnapshot -> index
        self._values = 0
        self._unsupported = {}  # name -> qualified name of an Unsupported stand-in

    def encode(self, prim):
        if not isinstance(prim, PrimFunc):
            raise TypeError(f"expected a @T.prim_func, got {_describe(prim)}")
        self.function(prim.func, "PRIM_FUNC", prim.annotation_env)
        return Encoded(self._files, self._table, self._unsupported)

    def function(self, func, kind, extra=None):
        """The table index of `func` (entered on first sight; its closure after, so recursion
        finds the index)."""
        index = self._index.get(id(func))
        if index is not None:
            return index
        qualname = getattr(func, "__qualname__", "?")
        snap, line, column = _source.locate(func, qualname)
        file = self._file_index.get(snap)
        if file is None:
            file = self._file_index[snap] = len(self._files)
            self._files.append(snap)
        index = self._index[id(func)] = len(self._table)
        self._keep.append(func)
        self._table.append(None)
        code = func.__code__
        closure = []
        bind = self._bind
        for name, cell in zip(code.co_freevars, func.__closure__ or ()):
            try:
                v = cell.cell_contents
            except ValueError:  # not assigned yet: the daemon reports the name where used
                continue
            bind(closure, name, v, qualname)
        g = func.__globals__
        for name in _globals_read(code):
            if name in g:
                bind(closure, name, g[name], qualname)
        if extra:  # names only the prim_func's annotations read (PrimFunc.annotation_env)
            bound = {name for name, _ in closure}
            for name, v in extra.items():
                if name not in bound:
                    bind(closure, name, v, qualname)
        closure.sort()  # names are unique: tuples compare by name
        defaults = tuple(self.value(v, f"a default of '{qualname}'", qualname)
                         for v in (func.__defaults__ or ()))
        kwdefaults = tuple(sorted(
            (k, self.value(v, k, qualname)) for k, v in (func.__kwdefaults__ or {}).items()))
        self._table[index] = (file, line, column, qualname, kind, tuple(closure), defaults,
                              kwdefaults)
        return index

    def _bind(self, closure, name, v, where):
        if type(v) is _builtins.Unsupported:
            self._unsupported[name] = v.qualname
            return
        closure.append((name, self.value(v, name, where)))

    def value(self, v, name, where, depth=0):
        """The canonical encoding of `v`, the value of `name` read by function `where`."""
        self._values += 1
        if self._values > MAX_VALUES:
            raise ClientValueError(f"'{where}' reads more than {MAX_VALUES} values (in all "
                                   "its closures and globals); tilejitd takes at most that many")
        t = type(v)
        if t is str:
            return ("s", v)
        if t is int:
            if _INT64[0] <= v <= _INT64[1]:
                return ("i", v)
            return self._constant("i", v, name, where)
        tag = _CONST_TYPES.get(t, "")
        if tag != "":
            return self._constant(tag, v, name, where)
        qualified = _builtins.builtin_name(v)
        if qualified is not None:
            return ("B", qualified)
        if t is list or t is tuple:
            self._depth(depth, name, where)
            items = tuple(self.value(x, name, where, depth + 1) for x in v)
            return ("l" if t is list else "t", items)
        if t is dict:
            self._depth(depth, name, where)
            return ("d", tuple((self.value(k, name, where, depth + 1),
                                self.value(x, name, where, depth + 1)) for k, x in v.items()))
        if t is types.FunctionType:
            return ("F", self.function(v, "PLAIN"))
        if t is Macro or t is PrimFunc:
            return ("F", self.function(v.func, v.kind))
        if t is types.ModuleType:
            path = _builtins.module_path(v)
            if path is None:
                raise ClientValueError(
                    f"'{name}' (read by '{where}') is the module {v.__name__}, which tilejitd "
                    "does not provide (modules a kernel may use: tilelang / tilejit, "
                    "tilelang.language, math)")
            return ("m", path)
        if t is Symbol:
            return ("S", v.name)
        if t is SymExpr:
            self._depth(depth, name, where)
            return ("E", v.op, (self.value(v.a, name, where, depth + 1),
                                self.value(v.b, name, where, depth + 1)))
        return self._other(v, name, where, depth)

    def _other(self, v, name, where, depth):
        """Subclasses and foreign types: enums, str/int/float subclasses, NumPy and torch."""
        if isinstance(v, enum.Enum):
            return self.value(v.value, name, where, depth)
        if isinstance(v, bool):
            return ("b", bool(v))
        if isinstance(v, str):
            return ("s", str(v))
        if isinstance(v, int):
            return self._constant("i", int(v), name, where)
        if isinstance(v, float):
            return self._constant("f", float(v), name, where)
        if isinstance(v, DataType):
            return ("s", v.name)
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            if isinstance(v, numpy.bool_):
                return ("b", bool(v))
            if isinstance(v, numpy.integer):
                return self._constant("i", int(v), name, where)
            if isinstance(v, numpy.floating):
                return self._constant("f", float(v), name, where)
            if isinstance(v, numpy.dtype):
                return ("s", v.name)
            if isinstance(v, type) and issubclass(v, numpy.generic):
                return ("s", numpy.dtype(v).name)
        if isinstance(v, _builtins.Unsupported):
            raise ClientValueError(f"'{name}' (read by '{where}') holds {v.qualname}, which "
                                   "tilejit does not provide")
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(v, torch.dtype):
            return ("s", str(v).rpartition(".")[2])
        if isinstance(v, (list, tuple)):  # subclasses (namedtuples, torch.Size)
            self._depth(depth, name, where)
            return ("t" if isinstance(v, tuple) else "l",
                    tuple(self.value(x, name, where, depth + 1) for x in v))
        raise ClientValueError(
            f"'{name}' (read by '{where}') is a {_describe(v)}, which cannot be sent to "
            "tilejitd: a kernel may read None, bool, int, float, str, dtypes, lists, tuples and "
            "dicts of them, T.* builtins, TileLang modules, and functions, lambdas and "
            "@T.macro's defined in files")

    def _constant(self, tag, v, name, where):
        if tag is None:
            return ("n",)
        if tag == "i" and not _INT64[0] <= v <= _INT64[1]:
            raise ClientValueError(f"'{name}' (read by '{where}') is {v}, outside the 64-bit "
                                   "range tilejitd's integers have")
        if tag == "f":
            return ("f", v.hex())
        return (tag, v)

    def _depth(self, depth, name, where):
        if depth >= MAX_DEPTH:
            raise ClientValueError(f"the value of '{name}' (read by '{where}') is nested more "
                                   f"than {MAX_DEPTH} deep")


def encode(prim):
    """The Encoded form of a PrimFunc (see the module docstring)."""
    return Encoder().encode(prim)


def encode_constant(v, name):
    """A pass-config value or another setting: constants only (None, bool, int, float, str,
    lists and tuples of them)."""
    enc = Encoder()
    out = enc.value(v, name, "the decorator's settings")
    if enc._table or not _is_constant(out):
        raise ClientValueError(f"setting '{name}' is {_describe(v)}; settings must be None, "
                               "bool, int, float, str or lists of them")
    return out


def _is_constant(e):
    tag = e[0]
    if tag in ("n", "b", "i", "f", "s"):
        return True
    if tag in ("l", "t"):
        return all(_is_constant(x) for x in e[1])
    return False
