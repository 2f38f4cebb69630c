#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/service (issue 6 item 7): starts a real tilejitd on a random loopback port with a
# temporary cache directory, runs service_bench against it (cold compile per shared kernel;
# cache-hit Compile of the full gemm_expert source vs grpc.health.v1 Health/Check on the same
# channel, p50/p99 and 32-thread throughput; SQLite get/put p50), prints the table, and stops
# the daemon. A second tilejitd, started with --auth-tokens and a random compile token, gives
# the cost of authorization per call (issue 16: the same hit with and without a token,
# interleaved) and the hit/health ratios with tokens on. Builds nothing: build the targets
# first, e.g.
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
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$TMP"
}
trap cleanup EXIT

# start_daemon NAME [FLAGS...]: tilejitd with its cache in $TMP/NAME; sets PORT.
start_daemon() {
  local name="$1"
  shift
  "$DAEMON" --listen 127.0.0.1:0 --cache-path "$TMP/$name/kernels.sqlite" \
    --drain-grace-seconds 5 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
  local pid=$!
  PIDS+=("$pid")
  PORT=""
  for _ in $(seq 300); do
    PORT="$(sed -n 's/^tilejitd listening on port \([0-9]*\)$/\1/p' "$TMP/$name.out")"
    [ -n "$PORT" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$PORT" ]; then
    echo "tilejitd ($name) did not start:" >&2
    tail -20 "$TMP/$name.err" "$TMP/$name.out" >&2
    exit 1
  fi
  echo "tilejitd ($name) pid $pid on 127.0.0.1:$PORT, cache in a temporary directory"
}

start_daemon plain
PLAIN_PORT="$PORT"
TOKEN="bench-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
printf 'compile %s bench\n' "$(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1)" >"$TMP/tokens.txt"
start_daemon tokened --auth-tokens "$TMP/tokens.txt"
echo "kernels: $KERNELS"
mkdir -p "$TMP/store"
"$BENCH" --address="127.0.0.1:$PLAIN_PORT" --kernels="$KERNELS" --store-dir="$TMP/store" \
  --auth-address="127.0.0.1:$PORT" --token="$TOKEN" "$@"
