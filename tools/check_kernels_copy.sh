#!/usr/bin/env bash
# The repository keeps a copy of the shared test kernels (tests/testdata/kernels) so that a
# lone clone tests; when the shared set is present beside the repository, they must agree.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared/kernels
if [ ! -d "$shared" ]; then
  echo "no $shared beside the repository; nothing to compare"
  exit 0
fi
if ! diff -r "$shared" tests/testdata/kernels; then
  echo "tests/testdata/kernels is stale: copy $shared over it"
  exit 1
fi
echo "tests/testdata/kernels matches $shared"
