# SPDX-License-Identifier: Apache-2.0
# A macro in a second file, imported by closures.py (test_api_e2e.py).
import tilejit.language as T


@T.macro
def add_into(dst, src):
    T.tile.add(dst, dst, src)
    T.barrier_all()
