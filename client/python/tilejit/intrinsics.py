# SPDX-License-Identifier: Apache-2.0
"""tilelang.intrinsics: the layout helpers of TileLang-Ascend. make_zn_layout(buf) and
make_nz_layout(buf) are builtins of the daemon, used inside T.annotate_layout({...}); other
names of the module import as stand-ins that raise NotImplementedError naming them."""
from . import _builtins

make_zn_layout = _builtins.Builtin("tilelang.intrinsics.make_zn_layout")
make_nz_layout = _builtins.Builtin("tilelang.intrinsics.make_nz_layout")

_builtins.register_module(__name__, "tilelang.intrinsics")


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    return _builtins.Unsupported(f"tilelang.intrinsics.{name}")
