# SPDX-License-Identifier: Apache-2.0
"""tilelang.intrinsics: layout helpers of TileLang-Ascend (make_zn_layout, make_nz_layout,
...). tilejit chooses the physical layouts itself, so these names exist for imports only and
calling one raises NotImplementedError naming it."""
from . import _builtins

make_zn_layout = _builtins.Unsupported("tilelang.intrinsics.make_zn_layout")
make_nz_layout = _builtins.Unsupported("tilelang.intrinsics.make_nz_layout")


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    return _builtins.Unsupported(f"tilelang.intrinsics.{name}")
