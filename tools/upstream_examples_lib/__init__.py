# SPDX-License-Identifier: Apache-2.0
"""The parts of tools/upstream_examples.py (its usage text is that file's docstring): discovery
(the factory calls of TileLang-Ascend's examples, found with `ast`, and the exclusions),
literals (the values of their arguments that are literal in the file), inputs (the spec file's
value ranges and the random inputs drawn per kernel parameter), child (the child process that
loads an example, compiles one call and launches it in checked mode) and report (the parent:
one child per call, the results, totals and tables, and main)."""
