#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/kernels (issue 5, acceptance 5): simulated cycles of the 1024^3 GEMMs (128x256x64
# tiles, fp32 C: gemm_expert with barrier_all, gemm_pingpong_expert, gemm_developer with C in
# accum_dtype, and the seed's fp16-output gemm_developer beside) and the cube/vector overlap
# of flash_attn_developer; ratios against the Expert kernels compiled and run in the same
# process. Then (issue 15) the shared-HBM model: every kernel's cycles against the same
# launch's cycles without it, with elementwise_add_expert's vec_add at its cases.json shape and
# at 4096x4096 fp32 over all cores. Simulated cycles are deterministic: one run is the figure.
# Builds nothing: build kernels_bench first, e.g.
#   cmake --build build-bench --target kernels_bench -j2
# Usage: bench/kernels/run.sh [BUILD_DIR] [--size=M,N,K] [--blocks=1]
#   (default BUILD_DIR: build-bench at the repository top)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${1:-$ROOT/build-bench}"
shift || true
BIN="$BUILD/bench/kernels_bench"
[ -x "$BIN" ] || { echo "missing $BIN: build kernels_bench first" >&2; exit 2; }
KERNELS="$ROOT/../shared/kernels"
[ -f "$KERNELS/cases.json" ] || KERNELS="$ROOT/tests/testdata/kernels"
exec "$BIN" --kernels="$KERNELS" --bench-dir="$ROOT/bench/kernels" "$@"
