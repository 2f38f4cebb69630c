# SPDX-License-Identifier: Apache-2.0
"""tilelang.utils: the helpers TileLang-Ascend's tests import (utils.target)."""
from . import target  # noqa: F401
