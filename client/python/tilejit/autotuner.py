# SPDX-License-Identifier: Apache-2.0
"""tilelang.autotuner: the autotune decorator under TileLang's module path (_autotune.py)."""
from ._autotune import AutoTuneFunction, TuneResult, autotune

__all__ = ["autotune", "AutoTuneFunction", "TuneResult"]
