#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/upstream_examples.sh DIR
#
# Compiles every kernel factory call of TileLang-Ascend's examples (DIR/examples/**/*.py of a
# checkout; its files are read in place, never copied here) whose arguments are literal in the
# file, through tilejit's compatibility path (client/python/compat: `import tilelang` is
# tilejit), and runs each compiled kernel once in checked mode (race detector and bounds
# checks) on random inputs, index and mask tensors within the ranges of
# tools/upstream_examples_spec.toml (a kernel with T.symbolic dims twice, at two sizes).
# Calls needing autotune, T.shmem_* or fp8 are excluded and counted per reason. The tilejitd it talks to is started here on a free
# loopback port with a temporary cache, and stopped. Prints one row per call (compiles,
# checked run, cycles) and the totals (tools/upstream_examples.py does the work); progress on
# stderr. A developer-run measure: CI runs the project's own tests.
#
#   BUILD_DIR=build (default)   the build tree: tilejitd, libtilejit_runtime.so, generated Python
#   TIMEOUT=1200 (default)      per-call timeout in seconds (compile and checked run)
#   ONLY=TEXT                   run only the calls whose file:line contains TEXT
#   MARKDOWN=1                  print the report as the README's tables
# The checkout: the public repository tile-ai/tilelang-ascend at commit 95acbd7f.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR=${1:?usage: tools/upstream_examples.sh DIR}
DIR=$(cd "$DIR" && pwd)
BUILD_DIR=$(cd "${BUILD_DIR:-$ROOT/build}" && pwd)
[ -d "$DIR/examples" ] || {
  echo "upstream_examples: no $DIR/examples (a TileLang-Ascend checkout?)" >&2
  exit 2
}
[ -x "$BUILD_DIR/server/tilejitd" ] || {
  echo "upstream_examples: no $BUILD_DIR/server/tilejitd: build it first" \
    "(cmake --build $BUILD_DIR --target tilejitd tilejit_runtime)" >&2
  exit 2
}
if [ -d "$DIR/.git" ]; then
  echo "upstream checkout: $(git -C "$DIR" log --oneline -1)"
fi

# shellcheck source=tools/upstream_daemon.sh
source "$ROOT/tools/upstream_daemon.sh"
start_tilejitd upstream_examples
export TILEJIT_CACHE_DIR="$WORK/binaries"
/usr/bin/python3 "$ROOT/tools/upstream_examples.py" \
  --spec "$ROOT/tools/upstream_examples_spec.toml" --timeout "${TIMEOUT:-1200}" \
  ${ONLY:+--only "$ONLY"} ${MARKDOWN:+--markdown} "$DIR"
