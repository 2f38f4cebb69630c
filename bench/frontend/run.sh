#!/usr/bin/env bash
# bench/frontend: for each case in the shared kernels' cases.json, the median time of tilejit's
# whole frontend (parse + evaluate + trace + print + hash) beside the median time of CPython's
# ast.parse on the same file text, both measured in this one run. Target: at most 2x
# ast.parse for the seed's developer GEMM.
#
#   bash bench/frontend/run.sh [BUILD_DIR]   (default build/; builds frontend_bench first)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
kernels=../shared/kernels
[ -d "$kernels" ] || kernels=tests/testdata/kernels
cmake --build "$build" --target frontend_bench -j2 >/dev/null

ours=$(mktemp); base=$(mktemp)
trap 'rm -f "$ours" "$base"' EXIT
"$build/bench/frontend_bench" "$kernels" > "$ours"
files=$(awk '{print $1}' "$ours" | sort -u | sed "s|^|$kernels/|")
# shellcheck disable=SC2086
python3 bench/frontend/ast_baseline.py $files > "$base"

printf '%-34s %-18s %12s %12s %8s\n' file entry "tilejit us" "ast.parse us" ratio
while read -r file entry secs; do
  ref=$(awk -v f="$kernels/$file" '$1 == f {print $2}' "$base")
  awk -v f="$file" -v e="$entry" -v a="$secs" -v b="$ref" \
    'BEGIN { printf "%-34s %-18s %12.1f %12.1f %7.2fx\n", f, e, a*1e6, b*1e6, a/b }'
done < "$ours"
