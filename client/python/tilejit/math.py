# SPDX-License-Identifier: Apache-2.0
"""tilelang.math: integer helpers factories call in CPython."""
from . import _builtins


def next_power_of_2(x):
    """The smallest power of two >= x (x >= 1)."""
    return 1 << (int(x) - 1).bit_length()


def cdiv(a, b):
    """(a + b - 1) // b: the ceiling of a / b for ints (tilelang.cdiv, T.ceildiv)."""
    return -(-a // b)


_builtins.register(cdiv, "T.ceildiv")
