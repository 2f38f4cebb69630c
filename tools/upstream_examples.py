#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compiles and runs TileLang-Ascend's examples through tilejit (upstream_examples.sh).

  upstream_examples.py [--spec FILE] [--markdown] [--timeout S] [--only TEXT] [--list] DIR

DIR is a TileLang-Ascend checkout; its files are read in place, never copied. Every call in
DIR/examples/**/*.py of a kernel factory of the same file (a function decorated with
@tilelang.jit, or one returning a @T.prim_func, however the file imports tilelang) is found
statically with `ast`. A call counts when its arguments are literal in the file: literals,
containers of them, arithmetic, comparisons and a few pure builtins (len, max, math.ceil...)
of them, names of the call's own function or of the module bound to such values, argparse
defaults (`args.m` of `args = parser.parse_args()`: the value of a run with no arguments),
and the variables of enclosing loops over literal sequences (one call per iteration, at most
16 per site); positional, keyword, *tuple and **dict arguments alike. Calls made inside a
factory belong to that factory and are not counted. Of the literal calls, those needing
autotune (@tilelang.autotune), T.shmem_* or fp8 dtypes are excluded, with the reason; a
kernel with T.symbolic dimensions runs twice, at two sizes of its symbols (256 and 384, or
the spec file's `symbols`).

Every other call runs in a child process (at most --timeout seconds, default 1200): the
example's module gets only what the factory needs (its imports and defs, and the top-level
statements binding the names they read; never the `if __name__ == "__main__":` block nor a
statement calling a factory or a function that does), the factory is called with the literal
arguments (a plain factory's prim_func is compiled with tilelang.compile and the keywords of
the tilelang.compile call around it, if any), and the kernel is launched once in checked mode
(race detector and bounds checks) on random inputs made from its parameters' shapes and
dtypes; index and mask parameters take the value ranges the spec file
(tools/upstream_examples_spec.toml) gives per example file and parameter name. Needs
TILEJIT_SERVER and the PYTHONPATH of upstream_examples.sh, which starts the daemon.

Prints per call: file:line, call, compiles (or the first line of the diagnostic), checked run
(ok, or the first finding or error) and simulated cycles; then the totals (factory calls,
calls found, excluded per reason, compiled x of y, ran clean), the compile failures and the
findings grouped by their first line, the integer inputs drawn without a spec range and the
excluded calls. --markdown prints the README's tables; --only runs the calls whose file:line
contains TEXT; --list only prints what the discovery found (no daemon needed). Progress goes
to stderr.
"""
import os
import sys

# The package next to this file (tools/ is sys.path[0] when run as a script, not when imported).
_HERE = os.path.dirname(os.path.abspath(__file__))
if not any(os.path.realpath(p or ".") == os.path.realpath(_HERE) for p in sys.path):
    sys.path.insert(0, _HERE)

from upstream_examples_lib import report  # noqa: E402 (after the path it is found on)


def main():
    """The command line (the module docstring above is its usage text)."""
    report.main(__doc__)


if __name__ == "__main__":
    main()
