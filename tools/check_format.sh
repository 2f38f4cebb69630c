#!/usr/bin/env bash
# Fails (listing the files) when any tracked C++ source differs from clang-format's output.
# One clang-format process for every file (its diagnostics name the files that differ).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cc' '*.h' |
  grep -v '^tests/testdata/' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
out=$(clang-format --style=file --dry-run --Werror "${files[@]}" 2>&1) && rc=0 || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "not clang-formatted (run: clang-format -i <file>):"
  # Diagnostics look like "path:line:col: error: code should be clang-formatted [...]".
  bad=$(grep -oE '^[^:]+:[0-9]+:[0-9]+: error' <<<"$out" | cut -d: -f1 | sort -u)
  if [ -n "$bad" ]; then printf '  %s\n' $bad; else echo "$out"; fi
  exit 1
fi
echo "all ${#files[@]} C++ sources are clang-formatted"
