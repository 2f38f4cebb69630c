#!/usr/bin/env bash
# Fails (listing the files) when any tracked C++ source differs from clang-format's output.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cc' '*.h' | grep -v '^tests/testdata/')
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! clang-format --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "not clang-formatted (run: clang-format -i <file>):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "all ${#files[@]} C++ sources are clang-formatted"
