#!/usr/bin/env bash
# The quick start's run command: installs what is missing, builds tilejitd, the tilejit CLI
# and what the tilejit Python package loads (libtilejit_runtime.so and the generated wire
# modules; with the service, -j2 by default), prints the PYTHONPATH line for the package, and
# runs tilejitd in the foreground on 127.0.0.1:50051 with its embedded SQLite cache (under
# $XDG_CACHE_HOME or ~/.cache).
# Idempotent: a re-run builds incrementally. Ctrl-C (SIGINT) or SIGTERM drains and stops it.
#
#   JOBS=2 (default)       parallel build jobs
#   BUILD_DIR=build        the build tree (shared with deploy/test.sh)
#   extra arguments go to tilejitd, e.g. `bash deploy/run.sh --metrics-port 9464`
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
BUILD_DIR=${BUILD_DIR:-build}

bash deploy/install_deps.sh

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILEJIT_WITH_SERVICE=ON
cmake --build "$BUILD_DIR" -j"$JOBS" --target tilejitd tilejit tilejit_runtime tilejit_python_wire

echo "run: the Python package (import tilejit as tilelang):" \
  "export PYTHONPATH=$(pwd)/client/python:$(cd "$BUILD_DIR" && pwd)/python"
echo "run: starting tilejitd on 127.0.0.1:50051 (CLI: $BUILD_DIR/client/tilejit --server" \
  "localhost:50051 ...)"
exec "$BUILD_DIR/server/tilejitd" --listen 127.0.0.1:50051 "$@"
