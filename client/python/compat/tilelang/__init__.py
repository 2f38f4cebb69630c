# SPDX-License-Identifier: Apache-2.0
"""`import tilelang` for files and tests written for TileLang-Ascend: tilejit under TileLang's
names, with no change to the files (client/python/compat on PYTHONPATH, before client/python).

`tilelang` *is* the tilejit module, and every `tilelang.X` import resolves to the same module
object as `tilejit.X` (tilelang.language is tilejit.language, so `T` is the same namespace
whichever way a file imports it). TileLang module paths tilejit has no module for
(tilelang.profiler, tilelang.carver, ...) import as stand-ins whose names raise
NotImplementedError naming them when called. The compatibility path also turns on the
simulated npu (tilejit.npu.install()), as `import torch_npu` would on Ascend.
"""
import os
import sys

try:
    import tilejit
except ImportError:
    # compat/ sits inside client/python, which holds the tilejit package.
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    import tilejit

from tilejit import _compat

_compat.install_aliases()
_compat.install_npu()
sys.modules[__name__] = tilejit
