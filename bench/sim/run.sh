#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds sim_gemm_bench and prints the simulator table for the 1024^3 fp16 GEMM:
#   throughput vs numpy.matmul (float32, OpenBLAS) timed with timeit in the same run
#   (target >= 0.25x), checked-mode slowdown (target <= 5x fast), simulated efficiency
#   (roofline / span), and peak RSS increase over the pre-launch baseline with trace off and
#   on (target < 2 x GM bytes + 64 MiB).
# Usage: bench/sim/run.sh [build-dir]   (default: build-bench next to this repository's top)
# Needs: numpy for the baseline (Debian: apt-get install python3-numpy; used via
# /usr/bin/python3 when the default python3 lacks it).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${1:-$ROOT/build-bench}"
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILEJIT_TESTS=OFF \
    -DTILEJIT_WITH_SERVICE=OFF >/dev/null
fi
cmake --build "$BUILD" --target sim_gemm_bench -j2 >/dev/null
BIN="$BUILD/bench/sim_gemm_bench"

PY=python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then PY=/usr/bin/python3; fi
NUMPY_S=$("$PY" - <<'PYEOF'
import timeit
import numpy as np
rng = np.random.default_rng(1)
a = rng.uniform(-1, 1, (1024, 1024)).astype(np.float16).astype(np.float32)
b = rng.uniform(-1, 1, (1024, 1024)).astype(np.float16).astype(np.float32)
np.matmul(a, b)
print(min(timeit.repeat(lambda: np.matmul(a, b), number=1, repeat=5)))
PYEOF
)

fast=$("$BIN" --mode=fast --reps=3)
checked=$("$BIN" --mode=checked --reps=1)
fast_tr=$("$BIN" --mode=fast --trace=1 --reps=1)
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

F=$(field "$fast" wall_s); C=$(field "$checked" wall_s)
GM=$(field "$fast" gm_mib)
awk -v np="$NUMPY_S" -v f="$F" -v c="$C" -v gm="$GM" \
    -v eff="$(field "$fast" efficiency)" -v cyc="$(field "$fast" kernel_cycles)" \
    -v r0="$(field "$fast" rss_increase_mib)" -v r1="$(field "$fast_tr" rss_increase_mib)" \
    -v rc="$(field "$checked" rss_increase_mib)" -v err="$(field "$fast" max_rel_err)" 'BEGIN {
  printf "%-44s %14s %14s\n", "metric (1024^3 fp16 GEMM)", "value", "target"
  printf "%-44s %14.4f %14s\n", "numpy.matmul float32 [s]", np, "-"
  printf "%-44s %14.4f %14s\n", "simulator fast mode [s]", f, "-"
  printf "%-44s %14.3f %14s\n", "throughput vs numpy [x]", np / f, ">= 0.25"
  printf "%-44s %14.4f %14s\n", "simulator checked mode [s]", c, "-"
  printf "%-44s %14.2f %14s\n", "checked-mode slowdown [x]", c / f, "<= 5"
  printf "%-44s %14d %14s\n", "simulated kernel cycles", cyc, "-"
  printf "%-44s %14.3f %14s\n", "simulated efficiency (roofline/span)", eff, "-"
  printf "%-44s %14.1f %14.1f\n", "peak RSS increase, fast, trace off [MiB]", r0, 2 * gm + 64
  printf "%-44s %14.1f %14.1f\n", "peak RSS increase, fast, trace on [MiB]", r1, 2 * gm + 64
  printf "%-44s %14.1f %14.1f\n", "peak RSS increase, checked [MiB]", rc, 2 * gm + 64
  printf "%-44s %14.2e %14s\n", "max relative error (sampled)", err, "1e-3"
}'
