#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/upstream_suite.sh DIR [pytest args...]
#
# Runs TileLang-Ascend's language tests (DIR/testing/python/language of a checkout; its files
# are read in place, never copied here) through tilejit's compatibility path
# (client/python/compat: `import tilelang` is tilejit) against a tilejitd this script starts on
# a free loopback port with a temporary cache, and stops. Prints passed / failed / errors /
# skipped per file and overall, the pass rate, and every failing case under its cause
# (tools/upstream_report.py reads pytest's JUnit XML; the causes are tools/upstream_causes.toml).
# A developer-run measure: CI runs the project's own tests.
#
#   BUILD_DIR=build (default)   the build tree: tilejitd, libtilejit_runtime.so, generated Python
#   TIMEOUT=300 (default)       per-test timeout in seconds (pytest-timeout)
#   KEEP_XML=FILE               also keep pytest's JUnit XML there (for upstream_report.py)
#   MARKDOWN=1                  print the report as the README's tables
# The checkout: the public repository tile-ai/tilelang-ascend at commit 95acbd7f.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR=${1:?usage: tools/upstream_suite.sh DIR [pytest args...]}
shift
BUILD_DIR=$(cd "${BUILD_DIR:-$ROOT/build}" && pwd)
TESTS="$DIR/testing/python/language"
[ -d "$TESTS" ] || { echo "upstream_suite: no $TESTS (a TileLang-Ascend checkout?)" >&2; exit 2; }
[ -x "$BUILD_DIR/server/tilejitd" ] || {
  echo "upstream_suite: no $BUILD_DIR/server/tilejitd: build it first" \
    "(cmake --build $BUILD_DIR --target tilejitd tilejit_runtime)" >&2
  exit 2
}
if [ -d "$DIR/.git" ]; then
  echo "upstream checkout: $(git -C "$DIR" log --oneline -1)"
fi

# shellcheck source=tools/upstream_daemon.sh
source "$ROOT/tools/upstream_daemon.sh"
start_tilejitd upstream_suite
status=0
(cd "$TESTS" && /usr/bin/python3 -m pytest -q -p no:cacheprovider --timeout="${TIMEOUT:-300}" \
  --junitxml="$WORK/junit.xml" "$@" .) > "$WORK/pytest.log" 2>&1 || status=$?
tail -n 3 "$WORK/pytest.log"
if [ ! -s "$WORK/junit.xml" ]; then
  cat "$WORK/pytest.log" >&2
  exit 1
fi
[ -z "${KEEP_XML:-}" ] || cp "$WORK/junit.xml" "$KEEP_XML"
/usr/bin/python3 "$ROOT/tools/upstream_report.py" --causes "$ROOT/tools/upstream_causes.toml" \
  ${MARKDOWN:+--markdown} "$WORK/junit.xml"
exit 0
