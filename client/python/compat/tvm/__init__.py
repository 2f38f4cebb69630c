# SPDX-License-Identifier: Apache-2.0
"""`import tvm` for TileLang programs: tilejit's TVM stand-in (tilejit.tvm), which has
TVMError (the base class of tilejit.CompileError), DataType and tvm.tir; any other name
raises NotImplementedError naming it when called."""
import os
import sys

try:
    import tilejit
except ImportError:
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    import tilejit

from tilejit import _compat

_compat.install_aliases()
sys.modules[__name__] = tilejit.tvm
