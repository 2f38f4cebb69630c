# SPDX-License-Identifier: Apache-2.0
"""The few TVM names TileLang programs reach through `tvm` or `tilelang.tvm`: TVMError (the
base class of tilejit.CompileError), DataType, and the tvm.tir module. tilejit has no TVM;
any other name is an object that raises NotImplementedError naming it when called. The
compatibility directory's `tvm` package is this module."""
from .. import _builtins
from .._dtypes import DataType  # noqa: F401
from ..errors import TVMError  # noqa: F401
from . import tir  # noqa: F401

_builtins.register_module(__name__, "tvm")


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    return _builtins.Unsupported(f"tvm.{name}")
