// SPDX-License-Identifier: Apache-2.0
// gather_mask(dst, src) {mode}: the elements of a contiguous source that a built-in pattern
// keeps (target/gather_pattern.h), packed into the start of a contiguous destination. A
// source with padded rows would interleave padding with data, so it is refused rather than
// compacted row by row. Pieces of 65280 elements (a multiple of every period) keep each
// piece's output 32-byte aligned.
#include <algorithm>

#include "compiler/codegen/vector_internal.h"
#include "compiler/target/gather_pattern.h"

namespace tilejit::codegen::vec {
Status EmitGatherMask(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src, "source"));
  const std::string mode = v.StringAttr("mode");
  const auto pattern = target::GatherPatternNamed(mode);
  if (!pattern) return v.Error("gather_mask: unknown pattern \"" + mode + "\"");
  TILEJIT_RETURN_IF_ERROR(CheckContiguous(v, src, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckContiguous(v, dst, "destination"));
  const int64_t n = src.rows * src.cols;
  const int64_t kept = target::GatherKept(*pattern, n);
  if (kept > dst.rows * dst.cols) {
    return v.Error("gather_mask: pattern " + mode + " keeps " + std::to_string(kept) +
                   " elements of the source but the destination holds " +
                   std::to_string(dst.rows * dst.cols));
  }
  target::Instr in{.op = target::Opcode::kVgathermask};
  in.dtype = dst.dtype;
  in.scalar = target::OpImm(pattern->code);
  in.repeat = target::OpImm(1);
  int64_t out = 0;
  for (int64_t c0 = 0; c0 < n; c0 += kMaxVectorCount) {
    const int64_t count = std::min(kMaxVectorCount, n - c0);
    in.src = Off(src.addr, c0 * src.es);
    in.dst = Off(dst.addr, out * dst.es);
    in.count = target::OpImm(count);
    TILEJIT_RETURN_IF_ERROR(v.Emit(in));
    out += target::GatherKept(*pattern, count);
  }
  return Status::Ok();
}

}  // namespace tilejit::codegen::vec
