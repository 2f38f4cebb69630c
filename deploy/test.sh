#!/usr/bin/env bash
# The quick start's test command: installs what is missing, builds tilejit (normal and
# ASan+UBSan trees) and runs the whole test suite. Idempotent; re-runs build incrementally.
#
#   JOBS=2 (default) parallel build and test jobs
#   TILEJIT_SKIP_ASAN=1 skips the sanitizer tree (local iteration only; CI never sets it)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}

bash deploy/install_deps.sh

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$JOBS"

status=0
if [ "${TILEJIT_SKIP_ASAN:-0}" != 1 ]; then
  # Sanitizers over every module without gRPC: unit and heavy labels. The generated-kernel
  # suite runs whole in the normal tree below (500 kernels); under the sanitizers (10x
  # slower) one shard of 50. Only the normal tree runs the sync-deletion experiment (hundreds
  # of launches of the same compiler code) and the repository checks (clang-format, the
  # kernel copy), which do not depend on the build.
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTILEJIT_SANITIZE=ON \
    -DTILEJIT_WITH_SERVICE=OFF -DTILEJIT_BENCH=OFF
  cmake --build build-asan -j"$JOBS"
  ctest --test-dir build-asan -L 'unit|heavy' -j"$JOBS" --output-on-failure \
    -E 'Shards/DeveloperRandom\..*/[1-9]$|EveryCompilerSyncIsNeededOrProvedRedundant|^repo\.' \
    || status=$?
fi

ctest --test-dir build -j"$JOBS" --output-on-failure || status=$?
exit $status
