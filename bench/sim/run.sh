#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds sim_gemm_bench and sim_vector_bench and prints one simulator table:
#   vector-heavy kernels (row softmax and layer norm over 4096 x 4096 fp32, the TileLang
#   kernels softmax_mixed.py and layernorm_mixed.py compiled in process): NumPy's seconds and
#   the simulator's fast-mode seconds on the same computation, best of 3, for the launch alone
#   (as for the GEMM; throughput target >= 0.25x) and for runner::RunKernel (for information:
#   it adds the runner's allocation and the copies in and out), the throughput ratios, and the
#   largest relative error of the output against float64;
#   the 1024^3 fp16 GEMM: throughput vs numpy.matmul (float32, OpenBLAS) timed with timeit in
#   the same run (target >= 0.25x), checked-mode slowdown (target <= 5x fast), simulated
#   efficiency (roofline / span), and peak RSS increase over the pre-launch baseline with
#   trace off and on (target < 2 x GM bytes + 64 MiB).
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
cmake --build "$BUILD" --target sim_gemm_bench sim_vector_bench -j2 >/dev/null
BIN="$BUILD/bench/sim_gemm_bench"
VBIN="$BUILD/bench/sim_vector_bench"
KERNELS="$ROOT/../shared/kernels"
[ -f "$KERNELS/softmax_mixed.py" ] || KERNELS="$ROOT/tests/testdata/kernels"

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
# The simulator's kernels in NumPy (float32 throughout, as the kernels compute), best of 5.
read -r NP_SOFTMAX NP_LAYERNORM < <("$PY" - <<'PYEOF'
import timeit
import numpy as np
rng = np.random.default_rng(1)
x = rng.standard_normal((4096, 4096), dtype=np.float32)
g = rng.standard_normal(4096, dtype=np.float32)
b = rng.standard_normal(4096, dtype=np.float32)
def softmax():
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
def layer_norm():
    d = x - x.mean(axis=1, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5) * g + b
print(*(min(timeit.repeat(f, number=1, repeat=5)) for f in (softmax, layer_norm)))
PYEOF
)
softmax=$("$VBIN" --kernel=softmax --kernels="$KERNELS" --rows=4096 --cols=4096 --reps=3)
layernorm=$("$VBIN" --kernel=layernorm --kernels="$KERNELS" --rows=4096 --cols=4096 --reps=3)

fast=$("$BIN" --mode=fast --reps=3)
checked=$("$BIN" --mode=checked --reps=1)
fast_tr=$("$BIN" --mode=fast --trace=1 --reps=1)
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

F=$(field "$fast" wall_s); C=$(field "$checked" wall_s)
GM=$(field "$fast" gm_mib)
awk -v np="$NUMPY_S" -v f="$F" -v c="$C" -v gm="$GM" \
    -v eff="$(field "$fast" efficiency)" -v cyc="$(field "$fast" kernel_cycles)" \
    -v r0="$(field "$fast" rss_increase_mib)" -v r1="$(field "$fast_tr" rss_increase_mib)" \
    -v rc="$(field "$checked" rss_increase_mib)" -v err="$(field "$fast" max_rel_err)" \
    -v nps="$NP_SOFTMAX" -v sml="$(field "$softmax" launch_s)" -v sms="$(field "$softmax" wall_s)" \
    -v sme="$(field "$softmax" max_rel_err)" -v npl="$NP_LAYERNORM" \
    -v lnl="$(field "$layernorm" launch_s)" -v lns="$(field "$layernorm" wall_s)" \
    -v lne="$(field "$layernorm" max_rel_err)" '
function vec(name, np, launch, run, err) {
  printf "%-44s %14.4f %14s\n", name " 4096x4096 fp32: numpy [s]", np, "-"
  printf "%-44s %14.4f %14s\n", name ": simulator fast mode, launch [s]", launch, "-"
  printf "%-44s %14.3f %14s\n", name ": throughput vs numpy, launch [x]", np / launch, ">= 0.25"
  printf "%-44s %14.4f %14s\n", name ": with runner::RunKernel [s]", run, "-"
  printf "%-44s %14.3f %14s\n", name ": throughput vs numpy, RunKernel [x]", np / run, "-"
  printf "%-44s %14.2e %14s\n", name ": max relative error vs float64", err, "1e-4"
}
BEGIN {
  printf "%-44s %14s %14s\n", "metric", "value", "target"
  vec("softmax", nps, sml, sms, sme)
  vec("layernorm", npl, lnl, lns, lne)
  printf "%-44s %14s %14s\n", "1024^3 fp16 GEMM:", "", ""
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
