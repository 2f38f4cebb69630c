# SPDX-License-Identifier: Apache-2.0
"""The compatibility directory's machinery (client/python/compat): TileLang's module paths
as aliases of tilejit's.

install_aliases() puts a finder first on sys.meta_path that resolves `tilelang.X` to the
module object `tilejit.X` and `tvm.X` to `tilejit.tvm.X` (the same objects, never second
copies: one T namespace, one CompileError class). TileLang module paths tilejit has no
module for (STANDINS) resolve to stand-in modules whose every public name raises
NotImplementedError naming it when called, so files that import them but never use them
run. Any other path is not found, as usual.
"""
import importlib
import importlib.abc
import importlib.machinery
import sys
import types

from . import _builtins

ALIASES = (("tilelang", "tilejit"), ("tvm", "tilejit.tvm"))
STANDINS = frozenset((
    "tilelang.profiler", "tilelang.carver", "tilelang.carver.arch",
    "tilelang.carver.arch.ascend", "tilelang.engine",
    "tilelang.layout", "tilelang.contrib", "tilelang.primitives", "tilelang.quantize",
    "tilelang.testing", "tilelang.tools", "tilelang.env", "tilelang.libinfo",
    "tilelang.version", "tilelang.common",
))


class StandIn(types.ModuleType):
    """A TileLang module tilejit does not provide: names resolve, calls raise."""

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _builtins.Unsupported(f"{self.__name__}.{name}")


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, real):
        self.real = real  # the module object, or None for a stand-in

    def create_module(self, spec):
        if self.real is None:
            return StandIn(spec.name, f"{spec.name}: not provided by tilejit (a stand-in)")
        self._real_spec = self.real.__spec__
        return self.real

    def exec_module(self, module):
        if self.real is not None:
            module.__spec__ = self._real_spec  # module_from_spec replaced it with the alias's


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        for alias, real in ALIASES:
            if not fullname.startswith(alias + "."):
                continue
            real_name = real + fullname[len(alias):]
            try:
                module = importlib.import_module(real_name)
            except ImportError:
                module = None
            if module is None and fullname not in STANDINS:
                return None
            is_package = module is None or hasattr(module, "__path__")
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module),
                                                  is_package=is_package)
        return None


def install_aliases():
    """Idempotent."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())


def install_npu():
    """tilejit.npu.install() when torch is there (scripts for Ascend call .npu())."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return
    from . import npu
    npu.install()
