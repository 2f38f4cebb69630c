#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/service (issue 6 item 7): starts a real tilejitd on a random loopback port with a
# temporary cache directory, runs service_bench against it (cold compile per shared kernel;
# cache-hit Compile of the full gemm_expert source vs grpc.health.v1 Health/Check on the same
# channel, p50/p99 and 32-thread throughput; SQLite get/put p50), prints the table, and stops
# the daemon. Builds nothing: build the targets first, e.g.
#   cmake --build build-bench --target tilejitd service_bench -j2
# Usage: bench/service/run.sh [BUILD_DIR]   (default: build-bench at the repository top)
# Extra service_bench flags may follow the build dir (e.g. --calls=500).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${1:-$ROOT/build-bench}"
shift || true
DAEMON="$BUILD/server/tilejitd"
BENCH="$BUILD/bench/service_bench"
for f in "$DAEMON" "$BENCH"; do
  [ -x "$f" ] || { echo "missing $f: build tilejitd and service_bench first" >&2; exit 2; }
done
KERNELS="$ROOT/../shared/kernels"
[ -f "$KERNELS/cases.json" ] || KERNELS="$ROOT/tests/testdata/kernels"

TMP="$(mktemp -d)"
PID=""
cleanup() {
  if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$PID" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT

"$DAEMON" --listen 127.0.0.1:0 --cache-path "$TMP/daemon/kernels.sqlite" \
  --drain-grace-seconds 5 >"$TMP/daemon.out" 2>"$TMP/daemon.err" &
PID=$!
PORT=""
for _ in $(seq 300); do
  PORT="$(sed -n 's/^tilejitd listening on port \([0-9]*\)$/\1/p' "$TMP/daemon.out")"
  [ -n "$PORT" ] && break
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$PORT" ]; then
  echo "tilejitd did not start:" >&2
  tail -20 "$TMP/daemon.err" "$TMP/daemon.out" >&2
  exit 1
fi
echo "tilejitd pid $PID on 127.0.0.1:$PORT, cache in a temporary directory; kernels: $KERNELS"
mkdir -p "$TMP/store"
"$BENCH" --address="127.0.0.1:$PORT" --kernels="$KERNELS" --store-dir="$TMP/store" "$@"
