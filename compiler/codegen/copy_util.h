// SPDX-License-Identifier: Apache-2.0
// Internal helpers shared by the data-movement and cube lowerings (copy*.cc, cube.cc): ISA
// element types, diagnostics at an op, per-matrix offsets of batched regions, branches over
// runtime conditions, burst splitting past the DMA field limits, the runtime tail clip of a GM
// region, and constant fills of on-chip regions. Not part of the codegen contract (ops.h).
//
// Thread safety: as Emitter.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "common/status.h"
#include "compiler/codegen/emitter.h"
#include "compiler/codegen/emitter_internal.h"  // IsaDType
#include "compiler/ir/ir.h"
#include "compiler/target/isa.h"

namespace tilejit::codegen::internal {

// DMA descriptor limits (docs/isa.md section 11: nburst, len, rows, cols).
inline constexpr int64_t kMaxBursts = 65535;
inline constexpr int64_t kMaxBurstLen = 2097152;
inline constexpr int64_t kMaxMatrixDim = 65535;

// Reports an error at `loc` (the emitter's current statement when unknown) built from
// `parts` and returns the diagnostic status.
template <typename... Parts>
Status Reject(Emitter& e, SourceLoc loc, const Parts&... parts) {
  {
    auto b = e.diag().Error(loc.known() ? loc : e.loc());
    (b << ... << parts);
  }
  return e.diag().ToStatus();
}

// The address of matrix `b` (0 <= b < ref.batch, row-major over the region's leading dims).
target::Opnd BatchAddress(Emitter& e, const RegionRef& ref, int64_t b);

// Whether `o` is the immediate `v`.
inline bool IsStatic(target::Opnd o, int64_t v) { return o.is_static() && o.imm == v; }

// "gm float32[200, 64]"-style description of a region's buffer for messages.
std::string Describe(const RegionRef& ref);

// Forward branches. Emit* returns the branch's index for Land(), which makes it jump to the
// next instruction emitted.
size_t EmitBranchIfZero(Emitter& e, target::Opnd cond);
size_t EmitBranchIfNonZero(Emitter& e, target::Opnd cond);
size_t EmitJump(Emitter& e);
void Land(Emitter& e, size_t branch);

// A register holding (a == b ? 1 : 0).
target::Opnd EqualTo(Emitter& e, target::Opnd a, int64_t b);

// Emits `in` once per group of at most kMaxBursts bursts of a static burst count, advancing
// src/dst by the strides. Fields other than the burst ones are taken from `in` as is.
void EmitBurstGroups(Emitter& e, target::Instr in, int64_t nburst);

// The valid part of a GM region clipped at its tensor's bounds: rows/cols are static when
// the region provably stays inside (decided with Emitter::Bounds on the mins); otherwise
// registers holding max(0, min(extent, dim - min)).
struct Clip {
  bool rows_may_clip = false;
  bool cols_may_clip = false;
  target::Opnd rows;
  target::Opnd cols;
  bool may_clip() const { return rows_may_clip || cols_may_clip; }
};
Clip ClipGm(Emitter& e, const RegionRef& gm);
// A register that is nonzero when the clip leaves the whole region (no tail this time).
target::Opnd ClipIsFull(Emitter& e, const Clip& c, const RegionRef& gm);
// A register that is zero when the clip leaves nothing (the region is entirely outside).
target::Opnd ClipIsEmpty(Emitter& e, const Clip& c);

// The value of a copy's pad_value attribute as the `scalar` operand of a fill for elements of
// `dtype` (fp32 bits for float types, the integer otherwise); 0 when absent. `is_zero` tells
// whether it is statically zero.
Result<target::Opnd> PadScalar(Emitter& e, const ir::TileOpNode& op, ir::DType dtype,
                               bool* is_zero);

// Fills every element of an on-chip ND (UB) or zN (L1) region with `scalar` (fill_ub /
// fill_l1 on MTE2). UB rows whose byte width is not a multiple of 32 are filled up to the
// row's 32-byte padding, which needs the region to end at its buffer's last column; the zN
// form fills whole 32-byte rows of each column block (the C0 padding included) and
// `fill_rows` rows from the region's first row.
Status FillUbRegion(Emitter& e, const RegionRef& ub, target::Opnd scalar, SourceLoc loc);
void FillL1Rows(Emitter& e, const RegionRef& l1, target::Opnd first_row_addr, target::Opnd nrows,
                target::Opnd scalar);

// Emits a burst-form `in` whose burst count is `nrows` (static: split past kMaxBursts;
// runtime: at most `max_rows`, which must not exceed kMaxBursts).
Status EmitRowBursts(Emitter& e, target::Instr in, target::Opnd nrows, int64_t max_rows,
                     SourceLoc loc);

// Checks that writing the fractal padding of a `row_gran` x `col_gran` grid around an on-chip
// destination region stays inside the region or the buffer's own padding: each of the last
// two extents is a multiple of its granule or the region ends at the buffer's edge.
Status CheckPaddingStaysInside(Emitter& e, const RegionRef& ref, int64_t row_gran, int64_t col_gran,
                               SourceLoc loc);

// CheckPaddingStaysInside for a zN (L1) destination (rows to 16, columns to C0), plus: the
// rows padded from an unaligned first row still fit the column block.
Status CheckL1Destination(Emitter& e, const RegionRef& l1, SourceLoc loc);

// ---- the copy paths (copy_load.cc, copy_store.cc, copy_onchip.cc) ---------------------------
struct CopyArgs {
  const ir::TileOpNode* op = nullptr;
  RegionRef dst;
  RegionRef src;
  bool transpose = false;
  bool relu = false;
  bool atomic_add = false;  // ub -> gm and l0c -> gm: the store accumulates in GM
};
Status EmitGmToUb(Emitter& e, const CopyArgs& a);
Status EmitGmToL1(Emitter& e, const CopyArgs& a);
Status EmitUbToGm(Emitter& e, const CopyArgs& a);
Status EmitL1ToGm(Emitter& e, const CopyArgs& a);
Status EmitL0cToGm(Emitter& e, const CopyArgs& a);
Status EmitUbToUb(Emitter& e, const CopyArgs& a);
Status EmitL1ToL0(Emitter& e, const CopyArgs& a);
Status EmitL0cToL1(Emitter& e, const CopyArgs& a);

}  // namespace tilejit::codegen::internal
