# SPDX-License-Identifier: Apache-2.0
"""tilelang.transform: where TileLang defines PassConfigKey."""
from ._passconfig import PassConfigKey  # noqa: F401
