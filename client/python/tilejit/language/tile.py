# SPDX-License-Identifier: Apache-2.0
"""T.tile: TileLang-Ascend's tile (vector) operations (T.tile.add, T.tile.exp, ...), every one
a Builtin proxy named "T.tile.<name>" (see tilejit.language)."""
from .. import _builtins

_builtins.register_module(__name__, "tilelang.language.tile")

__getattr__ = _builtins.proxy_getattr("T.tile.", globals())
