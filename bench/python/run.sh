#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/python (issue 13, acceptance 5): the per-call overhead of a tilejit kernel called from
# Python (local runtime, binary cached) over the same launch made from C through
# libtilejit_runtime.so, beside a tiny torch.add, and the cost of calling a @tilelang.jit
# factory again with the same arguments. Prints a table (bench/python/python_launch.py).
# Starts its own tilejitd on a private socket (in-memory cache) unless TILEJIT_SERVER is set.
# Usage: bench/python/run.sh [build-dir]   (default: build; builds tilejitd,
#        runtime_launch_bench and the Python wire modules there first)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${1:-$ROOT/build}"
cmake --build "$BUILD" --target tilejitd runtime_launch_bench tilejit_runtime \
  tilejit_python_wire -j2 >/dev/null
export PYTHONPATH="$ROOT/client/python:$BUILD/python${PYTHONPATH:+:$PYTHONPATH}"
exec /usr/bin/python3 "$ROOT/bench/python/python_launch.py" \
  --tilejitd "$BUILD/server/tilejitd" --c-bench "$BUILD/bench/runtime_launch_bench" "${@:2}"
