#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/cluster (issue 17, acceptance 4 and 7). Starts a redis-server on a free loopback port
# and runs cluster_bench:
#   1. store: the Redis tier's hit beside a local (SQLite) hit and a raw Redis GET of the same
#      size, for 4 KiB, 64 KiB and 1 MiB entries; target: Redis hit < 2x (raw GET + local hit).
#   2. hits: a cache-hit Compile through a tilejitd with --redis (timeout 100 ms) while Redis is
#      healthy, stopped, paused (SIGSTOP) and replaced by a server answering garbage, beside
#      the bound the issue sets: the healthy hit p99 plus the configured timeout.
# Builds nothing: cmake --build BUILD --target tilejitd cluster_bench
# Usage: bench/cluster/run.sh [BUILD_DIR]   (default: build at the repository top)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${1:-$ROOT/build}"
DAEMON="$BUILD/server/tilejitd"
BENCH="$BUILD/bench/cluster_bench"
for f in "$DAEMON" "$BENCH" /usr/bin/redis-server; do
  [ -x "$f" ] || { echo "missing $f: build tilejitd and cluster_bench first" >&2; exit 2; }
done
TIMEOUT_MS=100
TMP="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do
    kill -CONT "$pid" 2>/dev/null || true
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$TMP"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_redis() {  # start_redis PORT: sets REDIS_PID
  /usr/bin/redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly no \
    --dir "$TMP" >"$TMP/redis-$1.log" 2>&1 &
  REDIS_PID=$!
  PIDS+=("$REDIS_PID")
  for _ in $(seq 100); do
    redis-cli -p "$1" ping >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "redis-server did not start" >&2
  exit 1
}

start_daemon() {  # start_daemon NAME REDIS_URL: sets PORT
  "$DAEMON" --listen 127.0.0.1:0 --cache-path "$TMP/$1.sqlite" --redis "$2" \
    --cluster-key-file "$TMP/key" --redis-timeout-ms "$TIMEOUT_MS" --log-level warn \
    >"$TMP/$1.out" 2>"$TMP/$1.err" &
  PIDS+=("$!")
  PORT=""
  for _ in $(seq 300); do
    PORT="$(sed -n 's/^tilejitd listening on port \([0-9]*\)$/\1/p' "$TMP/$1.out")"
    [ -n "$PORT" ] && return 0
    sleep 0.1
  done
  echo "tilejitd ($1) did not start:" >&2
  tail -20 "$TMP/$1.err" >&2
  exit 1
}

openssl rand -hex 32 >"$TMP/key"
chmod 600 "$TMP/key"
REDIS_PORT="$(free_port)"
start_redis "$REDIS_PORT"

echo "## Redis tier hit vs local hit and raw GET (one redis-server on loopback)"
echo
"$BENCH" store --redis-port "$REDIS_PORT" --dir "$TMP" || STORE_STATUS=$?

echo
echo "## Cache-hit Compile through tilejitd under Redis faults (--redis-timeout-ms $TIMEOUT_MS)"
echo
echo "| Redis | hit p50 us | hit p99 us |"
echo "|---|---|---|"
KERNELS="$ROOT/tests/testdata/kernels"
start_daemon a "redis://127.0.0.1:$REDIS_PORT"
A=127.0.0.1:$PORT
"$BENCH" hits --server "$A" --label healthy --kernels "$KERNELS" | tee "$TMP/healthy"
kill -STOP "$REDIS_PID"
"$BENCH" hits --server "$A" --label "paused (SIGSTOP)" --kernels "$KERNELS"
kill -CONT "$REDIS_PID"
kill -KILL "$REDIS_PID"
wait "$REDIS_PID" 2>/dev/null || true
"$BENCH" hits --server "$A" --label stopped --kernels "$KERNELS"
GARBAGE_PORT="$(free_port)"
python3 "$ROOT/tests/e2e/service/redis_server.py" garbage "$GARBAGE_PORT" &
PIDS+=("$!")
sleep 0.3
start_daemon g "redis://127.0.0.1:$GARBAGE_PORT"
"$BENCH" hits --server "127.0.0.1:$PORT" --label "garbage server" --kernels "$KERNELS"
HEALTHY_P99="$(awk -F'|' '{gsub(/ /,"",$4); print $4}' "$TMP/healthy")"
echo
echo "bound (healthy hit p99 + timeout): $((HEALTHY_P99 + TIMEOUT_MS * 1000)) us"
exit "${STORE_STATUS:-0}"
