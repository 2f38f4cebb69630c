# SPDX-License-Identifier: Apache-2.0
# Sourced by tools/upstream_suite.sh and tools/upstream_examples.sh (not run on its own):
# start_tilejitd NAME starts $BUILD_DIR/server/tilejitd on a free loopback port with a cache
# in a new temporary folder $WORK, points the compatibility path at it (TILEJIT_SERVER and
# PYTHONPATH: client/python/compat, client/python, the build's generated Python) and stops it
# and removes $WORK when the calling script exits. NAME prefixes its messages.
start_tilejitd() {
  local name=$1
  WORK=$(mktemp -d)
  DAEMON=""
  trap 'stop_tilejitd' EXIT
  "$BUILD_DIR/server/tilejitd" --listen 127.0.0.1:0 --cache-path "$WORK/kernels.sqlite" \
    --log-level warn --drain-grace-seconds 2 > "$WORK/daemon.out" 2> "$WORK/daemon.log" &
  DAEMON=$!
  local port=""
  for _ in $(seq 1 200); do
    port=$(sed -n 's/^tilejitd listening on port \([0-9]*\)$/\1/p' "$WORK/daemon.out")
    [ -n "$port" ] && break
    kill -0 "$DAEMON" 2>/dev/null || { cat "$WORK/daemon.log" >&2; exit 1; }
    sleep 0.05
  done
  [ -n "$port" ] || { echo "$name: tilejitd did not start" >&2; exit 1; }
  export TILEJIT_SERVER="127.0.0.1:$port"
  export PYTHONPATH="$ROOT/client/python/compat:$ROOT/client/python:$BUILD_DIR/python${PYTHONPATH:+:$PYTHONPATH}"
}

stop_tilejitd() {
  if [ -n "$DAEMON" ]; then
    kill -TERM "$DAEMON" 2>/dev/null || true
    wait "$DAEMON" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
