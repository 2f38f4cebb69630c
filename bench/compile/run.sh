#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/compile (issue 12): the median cold compile (compiler::Compile, source to ELF, in
# process, no cache) of every shared kernel and of flash attention at S = 256, 1024, 8192,
# beside CPython's ast.parse of the same file (bench/frontend/ast_baseline.py), both measured
# in this one run; the slowest compile's top passes; and compile time against flash
# attention's S and the developer GEMM's K steps. Targets (reported, not asserted): <= 20x
# ast.parse per kernel, flash attention <= 20 ms at every S, no growth with S or K steps.
#
#   bash bench/compile/run.sh [BUILD_DIR] [--reps=N]   (default build/; builds compile_bench)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
kernels=../shared/kernels
[ -f "$kernels/cases.json" ] || kernels=tests/testdata/kernels
cmake --build "$build" --target compile_bench -j2 >/dev/null

base=$(mktemp)
trap 'rm -f "$base"' EXIT
# The files of cases.json, each once.
mapfile -t files < <(/usr/bin/python3 -c 'import json, sys
print("\n".join(sorted({c["file"] for c in json.load(open(sys.argv[1]))["cases"]})))' \
  "$kernels/cases.json")
/usr/bin/python3 bench/frontend/ast_baseline.py "${files[@]/#/$kernels/}" > "$base"
"$build/bench/compile_bench" --kernels="$kernels" --baseline="$base" "$@"
