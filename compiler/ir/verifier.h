// SPDX-License-Identifier: Apache-2.0
// Structural checks on a Kernel: run between passes (debug builds, tests) to catch compiler
// bugs at the pass that made them, and after parsing `format: tile_ir` input. It checks
//   - every node present (no null child where one is required);
//   - every Var used is defined in an enclosing scope (launch cid/vid, for var, let var) and
//     no Var is re-bound inside its own scope;
//   - every buffer referenced is a param or allocated once in the kernel;
//   - region rank == buffer rank, extents positive, constant regions and indices in bounds;
//   - tile-op operand counts and kinds (region or scalar) per TileOpCode, and attributes are
//     known keys of that op with values of the right type (KnownTileOpAttrs);
//   - flag pipe pairs are real and distinct, cross-flag modes 0..2, launch threads 0..2;
//   - scalar calls are known intrinsics; out_idx/workspace_idx name distinct params.
// It does not check semantics a pass is entitled to leave open (scopes resolved, shapes of
// tile-op operands agreeing, sync correctness): those belong to the passes and verify_sync.
//
// Pure; thread-safe on distinct DiagnosticEngines.
#pragma once

#include <span>
#include <string_view>

#include "common/diagnostic.h"
#include "common/status.h"
#include "compiler/ir/ir.h"

namespace tilejit::ir {

// Reports every finding as an error at the offending node's SourceLoc to `diag` (when not
// null) and returns OK, or kInvalidArgument whose message is the first finding.
Status Verify(const Kernel& kernel, DiagnosticEngine* diag = nullptr);

// The value type an attribute must have.
enum class AttrType : uint8_t {
  kBool,
  kInt,
  kString,
  kBoolOrExpr,  // a static flag or a runtime condition (gemm init)
  kNumber,      // int64, double or Expr (pad values)
};

struct AttrSpec {
  std::string_view key;
  AttrType type;
};

// The attributes tile op `op` accepts (the frontend and passes must only emit these).
std::span<const AttrSpec> KnownTileOpAttrs(TileOpCode op);

// The scalar intrinsics a CallNode may name: cast, exp, log, sqrt, rsqrt, abs.
bool IsKnownScalarCall(std::string_view op);

}  // namespace tilejit::ir
