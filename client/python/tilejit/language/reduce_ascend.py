# SPDX-License-Identifier: Apache-2.0
"""tilelang.language.reduce_ascend: the module TileLang-Ascend defines its reductions in. Its
public names are the T namespace's (T.reduce_sum, ...): Builtin proxies named "T.<name>"."""
from .. import _builtins

_builtins.register_module(__name__, "tilelang.language")

__getattr__ = _builtins.proxy_getattr("T.", globals())
