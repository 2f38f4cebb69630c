# SPDX-License-Identifier: Apache-2.0
"""Builtins by name: the objects of the T namespace that only mean something inside a
prim_func, and the registry that tells the closure encoder which host objects are tilejit
builtins (sent as their qualified name) and which modules are TileLang modules (sent as their
TileLang path).

`T.copy`, `T.tile.add`, ... are Builtin proxies: they carry the qualified name the daemon's
frontend knows ("T.copy", compiler/frontend/builtins.cc), so `op = T.reduce_sum` in a factory
ships as the builtin "T.reduce_sum", and calling one in CPython raises DeviceOnlyError.
Host helpers that factories call (T.ceildiv, T.min, DataType, ...) are real functions,
registered under the name the daemon knows them by.
"""
from .errors import DeviceOnlyError

_NAMES = {}    # id(object) -> qualified builtin name (the objects live for the process)
_KEEP = []     # keeps registered objects alive, so their ids stay theirs
_MODULES = {}  # module name (tilejit's) -> TileLang path


class Builtin:
    """A T.* name with no meaning in CPython; `qualname` is what the daemon calls it."""
    __slots__ = ("qualname", "__weakref__")

    def __init__(self, qualname):
        self.qualname = qualname

    def __call__(self, *args, **kwargs):
        raise DeviceOnlyError(f"{self.qualname} can only be used inside a @T.prim_func "
                              "(or a @T.macro it calls); it has no meaning in plain Python")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return Builtin(f"{self.qualname}.{name}")

    def __repr__(self):
        return f"<tilejit builtin {self.qualname}>"

    def __reduce__(self):
        return (Builtin, (self.qualname,))

    def __eq__(self, other):
        return type(other) is Builtin and other.qualname == self.qualname

    def __hash__(self):
        return hash(self.qualname)


class Unsupported(Builtin):
    """A TileLang name tilejit does not provide (e.g. tilelang.profiler.do_bench): importing
    it works, calling it raises naming it."""
    __slots__ = ()

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"{self.qualname} is not provided by tilejit")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return Unsupported(f"{self.qualname}.{name}")

    def __repr__(self):
        return f"<tilejit: unsupported {self.qualname}>"


def register(obj, qualname):
    """Marks a host object (a helper function, a class) as the builtin `qualname`."""
    _NAMES[id(obj)] = qualname
    _KEEP.append(obj)
    return obj


def builtin_name(obj):
    """The qualified builtin name of `obj`, or None if it is not a tilejit builtin."""
    if type(obj) is Builtin:
        return obj.qualname
    return _NAMES.get(id(obj))


def register_module(module_name, tilelang_path):
    """Our module `module_name` is sent as the TileLang module `tilelang_path`."""
    _MODULES[module_name] = tilelang_path


_PATH_BY_ID = {}  # id(module) -> path or None, for modules seen (kept alive in _KEEP)


def module_path(module):
    """The TileLang path a module is sent as ("tilelang.language"), or None."""
    key = id(module)
    if key in _PATH_BY_ID:
        return _PATH_BY_ID[key]
    name = getattr(module, "__name__", None)
    path = _MODULES.get(name)
    if path is None and name == "math":
        path = "math"
    _PATH_BY_ID[key] = path
    _KEEP.append(module)
    return path


def proxy_getattr(prefix, cache):
    """A module __getattr__ that makes (and caches in `cache`, the module's globals) a
    Builtin named prefix + name for any public name, as TileLang's T namespace has hundreds."""

    def __getattr__(name):
        if name.startswith("_"):
            raise AttributeError(name)
        value = cache[name] = Builtin(prefix + name)
        return value

    return __getattr__
