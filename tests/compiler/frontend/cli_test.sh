#!/usr/bin/env bash
# CLI test: `tilejit compile` prints IR and keys for the shared kernels, accepts its own IR
# back with --format tile_ir (same key), and reports errors on stderr with exit status 1.
# Usage: cli_test.sh TILEJIT SHARED_KERNELS_DIR TESTDATA_KERNELS_DIR
set -euo pipefail
TJ=$1
K=$2
[ -f "$K/cases.json" ] || K=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

check_case() {  # file entry args...
  local file=$1 entry=$2; shift 2
  local args=()
  for a in "$@"; do args+=(--arg "$a"); done
  "$TJ" compile "$K/$file" --entry "$entry" "${args[@]}" --emit ir >"$tmp/a.ir" \
    || fail "$file did not compile"
  local key1 key2
  key1=$("$TJ" compile "$K/$file" --entry "$entry" "${args[@]}" --emit key)
  [[ "$key1" =~ ^[0-9a-f]{64}$ ]] || fail "bad key '$key1'"
  "$TJ" compile --format tile_ir "$tmp/a.ir" --emit ir >"$tmp/b.ir" || fail "$file IR rejected"
  cmp -s "$tmp/a.ir" "$tmp/b.ir" || fail "$file: print -> parse -> print differs"
  # The file's pass configs are not in the IR: pass them again for an equal key.
  local cfgs=()
  if grep -q "TL_ASCEND_AUTO_SYNC: True" "$K/$file"; then cfgs+=(--config TL_ASCEND_AUTO_SYNC=true); fi
  if grep -q "TL_ASCEND_MEMORY_PLANNING: True" "$K/$file"; then cfgs+=(--config TL_ASCEND_MEMORY_PLANNING=true); fi
  if grep -q "TL_ASCEND_AUTO_CV_COMBINE: True" "$K/$file"; then cfgs+=(--config TL_ASCEND_AUTO_CV_COMBINE=true); fi
  if grep -q "TL_ASCEND_AUTO_CV_SYNC: True" "$K/$file"; then cfgs+=(--config TL_ASCEND_AUTO_CV_SYNC=true); fi
  key2=$("$TJ" compile --format tile_ir "$tmp/a.ir" "${cfgs[@]}" --emit key)
  [ "$key1" = "$key2" ] || fail "$file: tile_ir key differs"
}

check_case gemm_developer.py matmul 256 512 384 128 256 64
check_case gemm_expert.py matmul 256 512 384 128 256 64
check_case gemm_pingpong_expert.py matmul_pingpong 256 256 512 128 128 64
check_case softmax_mixed.py softmax 256 1024 16
check_case elementwise_add_expert.py vec_add 512 1024 64 256
check_case elementwise_add_missing_sync.py vec_add_racy 256 256 64 128
check_case layernorm_mixed.py layer_norm 128 512 16
check_case matmul_add_developer.py matmul_add 256 256 256 64 128 64
check_case flash_attn_developer.py flash_attention 1 2 256 128 64 64

# Config spellings key the same; an effective config changes the key.
g=("$K/gemm_expert.py" --entry matmul --arg 256 --arg 512 --arg 384 --arg 128 --arg 256 --arg 64)
k0=$("$TJ" compile "${g[@]}" --emit key)
k1=$("$TJ" compile "${g[@]}" --config TL_ASCEND_AUTO_SYNC=false --emit key)
k2=$("$TJ" compile "${g[@]}" --config tl.ascend_auto_sync=true --emit key)
k3=$("$TJ" compile "${g[@]}" --config TL_ASCEND_AUTO_SYNC=true --emit key)
[ "$k0" = "$k1" ] || fail "all-false config changed the key"
[ "$k2" = "$k3" ] || fail "enum and string spellings differ"
[ "$k0" != "$k2" ] || fail "auto_sync did not change the key"

# Errors: diagnostics on stderr, nothing on stdout, exit status 1.
if "$TJ" compile "${g[@]}" --config tl.nope=true --emit key >"$tmp/out" 2>"$tmp/err"; then
  fail "unknown config accepted"
fi
[ ! -s "$tmp/out" ] || fail "stdout not empty on error"
grep -q "tl.nope" "$tmp/err" || fail "no diagnostic for unknown config"
if "$TJ" compile "$K/gemm_expert.py" --entry matmul --arg 256 --emit ir 2>"$tmp/err" >/dev/null; then
  fail "missing args accepted"
fi
grep -q "gemm_expert.py:9:1: error: matmul() missing required argument 'N'" "$tmp/err" \
  || fail "bad arity diagnostic: $(cat "$tmp/err")"
# 64.0 as a block size is a float: shapes must be ints.
if "$TJ" compile "$K/gemm_expert.py" --entry matmul --arg 256 --arg 512 --arg 384 --arg 128 \
    --arg 256 --arg 64.0 --emit ir 2>"$tmp/err" >/dev/null; then
  fail "float block size accepted"
fi
grep -q "shapes must be positive ints" "$tmp/err" || fail "no float-shape diagnostic"
echo "cli ok"
