#!/usr/bin/env bash
# Runs reflection_test.js with its npm dependencies installed (exactly the locked versions,
# `npm ci`) into WORK_DIR, outside the source tree. A re-run reuses the installation while
# package-lock.json is unchanged, so only the first run needs the npm registry.
#   run_reflection_test.sh WORK_DIR   (TILEJITD and TILEJIT_KERNELS_DIR in the environment)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$1
mkdir -p "$work"
if ! cmp -s "$here/package-lock.json" "$work/package-lock.json" || [ ! -d "$work/node_modules" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$work/"
  (cd "$work" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
fi
cp "$here/reflection_test.js" "$work/"
exec node "$work/reflection_test.js"
