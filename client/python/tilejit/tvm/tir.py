# SPDX-License-Identifier: Apache-2.0
"""tvm.tir for TileLang programs: every name is an object that raises NotImplementedError
naming it when called (tilejit builds its IR in the daemon, not with TVM)."""
from .. import _builtins

_builtins.register_module(__name__, "tvm.tir")


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    return _builtins.Unsupported(f"tvm.tir.{name}")
