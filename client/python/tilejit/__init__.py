# SPDX-License-Identifier: Apache-2.0
"""tilejit: TileLang-Ascend kernels compiled by tilejitd and run on the simulated NPU.

    import tilejit as tilelang
    import tilejit.language as T

    @tilelang.jit(out_idx=[-1])
    def vec_add(M, N, block_M, block_N, dtype="float"):
        @T.prim_func
        def main(A: T.Tensor((M, N), dtype), ...): ...
        return main

    c = vec_add(512, 1024, 64, 256)(a, b)      # NumPy arrays or torch tensors

Public API: jit, autotune, compile, batch_compile, connect, language (T), cache (clear_cache,
disable_cache, ...), PassConfigKey, DataType, cdiv, next_power_of_2, Kernel (JITKernel),
CompileError (a tvm.TVMError), ClientValueError, ServiceUnavailableError, AuthError,
KernelFindingError. Environment: TILEJIT_SERVER, TILEJIT_TOKEN and TILEJIT_TLS_CA,
TILEJIT_TLS_CERT, TILEJIT_TLS_KEY (a daemon with tokens or TLS; tilejit.connect),
TILEJIT_LAUNCH (local | remote), TILEJIT_CHECK (1: checked launches), TILEJIT_CACHE_DIR /
TILEJIT_CACHE_MAX_BYTES (the local binary cache), TILEJITD and TILEJIT_IDLE_EXIT_SECONDS (the
private daemon). See the README's package section.
"""
import os as _os
import pkgutil as _pkgutil

# The generated wire modules (tilejit.v1, tilejit.health.v1) live in the build tree's
# python/tilejit folder: make it a directory of this package (client/python/CMakeLists.txt).
__path__ = _pkgutil.extend_path(__path__, __name__)
try:
    import tilejit_paths as _paths
    if getattr(_paths, "WIRE_DIR", "") and _paths.WIRE_DIR not in __path__:
        __path__.append(_paths.WIRE_DIR)
except ImportError:
    pass

from . import _builtins  # noqa: E402
from . import language  # noqa: E402
from . import cache  # noqa: E402
from . import intrinsics, math, tvm, utils  # noqa: E402,F401
from ._autotune import AutoTuneFunction, autotune  # noqa: E402
from ._client import connect  # noqa: E402
from ._dtypes import DataType  # noqa: E402
from ._jit import CompileWarning, JitFunction, batch_compile, compile, jit  # noqa: E402,A004
from ._kernel import Kernel, KernelMetadata, KernelParam, LaunchInfo  # noqa: E402
from ._passconfig import PassConfigKey  # noqa: E402
from .cache import disable_cache, enable_cache, is_cache_enabled  # noqa: E402
from .errors import (AuthError, ClientValueError, CompileError, DeviceOnlyError,  # noqa: E402
                     KernelFindingError, ServiceUnavailableError, TVMError)
from .math import cdiv, next_power_of_2  # noqa: E402

JITKernel = Kernel
__version__ = "0.1.0+tilejit"

_builtins.register_module(__name__, "tilelang")
_builtins.register(jit, "tilelang.jit")
_builtins.register(PassConfigKey, "tilelang.PassConfigKey")

if _os.environ.get("TILEJIT_CLEAR_CACHE") == "1" or \
        _os.environ.get("TILELANG_CLEAR_CACHE") == "1":
    cache.clear_cache()

__all__ = ["jit", "autotune", "AutoTuneFunction", "compile", "batch_compile", "connect", "language", "cache", "PassConfigKey",
           "DataType", "cdiv", "next_power_of_2", "Kernel", "JITKernel", "KernelMetadata",
           "KernelParam", "LaunchInfo", "JitFunction", "CompileError", "CompileWarning",
           "ClientValueError", "ServiceUnavailableError", "AuthError", "KernelFindingError",
           "DeviceOnlyError", "TVMError", "disable_cache", "enable_cache", "is_cache_enabled"]
