// SPDX-License-Identifier: Apache-2.0
// Helpers of the copy and cube lowerings. The tail clip is computed with the Emitter's
// folding arithmetic so that a region that provably stays inside its tensor costs nothing,
// and the fills are expressed as 32-byte-granular bursts because that is what the on-chip
// sides of every DMA (and fill_ub/fill_l1) require.
#include "compiler/codegen/copy_util.h"

#include <algorithm>
#include <bit>
#include <sstream>
#include <variant>

#include "common/check.h"

namespace tilejit::codegen::internal {

using target::Instr;
using target::Opcode;
using target::OpImm;
using target::Opnd;
using target::OpReg;

Opnd BatchAddress(Emitter& e, const RegionRef& ref, int64_t b) {
  const auto& ranges = ref.region->ranges;
  Opnd address = ref.address;
  for (size_t d = ref.batch_strides.size(); d-- > 0;) {
    const int64_t ext = ranges[d].extent;
    address = e.Add(address, e.Scaled(ref.batch_strides[d], b % ext));
    b /= ext;
  }
  return address;
}

std::string Describe(const RegionRef& ref) {
  const ir::BufferNode& b = *ref.region->buffer;
  std::ostringstream s;
  s << ir::MemScopeName(b.scope) << " " << ir::DTypeName(b.dtype) << "[";
  for (size_t i = 0; i < b.shape.size(); ++i) s << (i ? ", " : "") << b.shape[i];
  s << "] '" << b.name << "'";
  return s.str();
}

namespace {
size_t EmitBranch(Emitter& e, Opcode op, Opnd cond) {
  Instr in{.op = op};
  if (op != Opcode::kJmp) in.rs1 = e.InReg(cond);
  const size_t at = e.size();
  e.Emit(in);
  return at;
}
}  // namespace

size_t EmitBranchIfZero(Emitter& e, Opnd cond) { return EmitBranch(e, Opcode::kBz, cond); }
size_t EmitBranchIfNonZero(Emitter& e, Opnd cond) { return EmitBranch(e, Opcode::kBnz, cond); }
size_t EmitJump(Emitter& e) { return EmitBranch(e, Opcode::kJmp, OpImm(0)); }
void Land(Emitter& e, size_t branch) { e.PatchBranch(branch, e.size()); }

Opnd EqualTo(Emitter& e, Opnd a, int64_t b) {
  if (a.is_static()) return OpImm(a.imm == b ? 1 : 0);
  const uint8_t t = e.Temp();
  Instr in{.op = Opcode::kCmp};
  in.rd = t;
  in.rs1 = a.reg;
  in.src2 = OpImm(b - a.imm);
  in.cmp = target::CmpMode::kEq;
  e.Emit(in);
  return OpReg(t);
}

void EmitBurstGroups(Emitter& e, Instr in, int64_t nburst) {
  const bool has_src = target::UsesField(in.op, target::FieldId::src);
  for (int64_t first = 0; first < nburst; first += kMaxBursts) {
    Instr part = in;
    part.nburst = OpImm(std::min(kMaxBursts, nburst - first));
    part.dst = e.Add(in.dst, e.Scaled(in.dst_stride, first));
    if (has_src) part.src = e.Add(in.src, e.Scaled(in.src_stride, first));
    e.Emit(part);
  }
}

Clip ClipGm(Emitter& e, const RegionRef& gm) {
  const ir::Region& r = *gm.region;
  const size_t rank = r.ranges.size();
  auto may_clip = [&](size_t dim, int64_t extent, Opnd size) {
    const auto b = e.Bounds(r.ranges[dim].min);
    return !size.is_static() || !b.has_value() || b->second + extent > size.imm;
  };
  auto valid = [&](Opnd min, int64_t extent, Opnd size) {
    return e.Max(e.Min(OpImm(extent), e.Sub(size, min)), OpImm(0));
  };
  Clip c;
  c.rows = OpImm(gm.rows);
  c.cols = OpImm(gm.cols);
  const size_t row_dim = gm.row_dim >= 0 ? static_cast<size_t>(gm.row_dim) : rank - 2;
  if (rank >= 2 && may_clip(row_dim, gm.rows, gm.row_limit)) {
    c.rows_may_clip = true;
    c.rows = valid(gm.row_min, gm.rows, gm.row_limit);
  }
  if (rank >= 1 && may_clip(rank - 1, gm.cols, gm.col_limit)) {
    c.cols_may_clip = true;
    c.cols = valid(gm.col_min, gm.cols, gm.col_limit);
  }
  return c;
}

Opnd ClipIsFull(Emitter& e, const Clip& c, const RegionRef& gm) {
  return EqualTo(e, e.Add(c.rows, c.cols), gm.rows + gm.cols);
}

Opnd ClipIsEmpty(Emitter& e, const Clip& c) { return e.Min(c.rows, c.cols); }

Result<Opnd> PadScalar(Emitter& e, const ir::TileOpNode& op, ir::DType dtype, bool* is_zero) {
  *is_zero = true;
  const ir::AttrValue* v = op.FindAttr("pad_value");
  if (v == nullptr) return OpImm(0);
  const bool as_float = ir::IsFloat(dtype);
  Opnd s;
  if (const auto* i = std::get_if<int64_t>(v)) {
    s = as_float ? OpImm(std::bit_cast<uint32_t>(static_cast<float>(*i))) : OpImm(*i);
  } else if (const auto* d = std::get_if<double>(v)) {
    if (!as_float && !(*d >= INT32_MIN && *d <= UINT32_MAX)) {
      return Reject(e, op.loc, "pad_value ", *d, " is not a value of ", ir::DTypeName(dtype));
    }
    s = as_float ? OpImm(std::bit_cast<uint32_t>(static_cast<float>(*d)))
                 : OpImm(static_cast<int64_t>(*d));
  } else if (const auto* b = std::get_if<bool>(v)) {
    s = as_float ? OpImm(std::bit_cast<uint32_t>(*b ? 1.0f : 0.0f)) : OpImm(*b ? 1 : 0);
  } else if (const auto* x = std::get_if<ir::Expr>(v)) {
    if (as_float) {
      TILEJIT_ASSIGN_OR_RETURN(s, e.FloatBits(*x));
    } else {
      TILEJIT_ASSIGN_OR_RETURN(s, e.Int(*x));
    }
  } else {
    return Reject(e, op.loc, "pad_value must be a number or a scalar expression");
  }
  if (!as_float && s.is_static() && (s.imm < INT32_MIN || s.imm > UINT32_MAX)) {
    return Reject(e, op.loc, "pad_value ", s.imm, " does not fit the 32-bit fill operand");
  }
  *is_zero = s.is_static() && s.imm == 0;
  return s;
}

Status FillUbRegion(Emitter& e, const RegionRef& ub, Opnd scalar, SourceLoc loc) {
  const target::TileLayout& l = ub.layout;
  const int64_t row_bytes = ub.cols * l.elem_bytes;
  int64_t len = row_bytes;
  if (row_bytes % target::kBlockBytes != 0) {
    const auto& ranges = ub.region->ranges;
    const auto min = ranges.empty() ? std::optional<int64_t>(0) : ir::AsConstInt(ranges.back().min);
    if (!min.has_value() || *min + ub.cols != l.cols) {
      return Reject(e, loc, "cannot pad ", Describe(ub), ": a UB region whose rows are ", row_bytes,
                    " bytes (not a multiple of 32) must end at the buffer's last column");
    }
    len = target::RoundUp(row_bytes, target::kBlockBytes);
  }
  for (int64_t b = 0; b < ub.batch; ++b) {
    Instr in{.op = Opcode::kFillUb};
    in.dst = BatchAddress(e, ub, b);
    in.scalar = scalar;
    in.dtype = IsaDType(ub.region->buffer->dtype);
    if (ub.rows == 1 || l.pitch == len) {
      // Contiguous rows: one burst per kMaxBurstLen bytes.
      const int64_t total = ub.rows * len;
      for (int64_t done = 0; done < total; done += kMaxBurstLen) {
        Instr part = in;
        part.dst = e.Add(in.dst, OpImm(done));
        part.nburst = OpImm(1);
        part.len = OpImm(std::min(kMaxBurstLen, total - done));
        e.Emit(part);
      }
    } else {
      in.len = OpImm(len);
      in.dst_stride = OpImm(l.pitch);
      EmitBurstGroups(e, in, ub.rows);
    }
  }
  return Status::Ok();
}

void FillL1Rows(Emitter& e, const RegionRef& l1, Opnd first_row_addr, Opnd nrows, Opnd scalar) {
  const target::TileLayout& l = l1.layout;
  Instr in{.op = Opcode::kFillL1};
  in.dst = first_row_addr;
  in.len = e.Scaled(nrows, target::kBlockBytes);
  in.dst_stride = OpImm(l.pitch * target::kBlockBytes);
  in.scalar = scalar;
  in.dtype = IsaDType(l1.region->buffer->dtype);
  EmitBurstGroups(e, in, target::CeilDiv(l1.cols, l.c0));
}

Status EmitRowBursts(Emitter& e, Instr in, Opnd nrows, int64_t max_rows, SourceLoc loc) {
  if (nrows.is_static()) {
    EmitBurstGroups(e, in, nrows.imm);
    return Status::Ok();
  }
  if (max_rows > kMaxBursts) {
    return Reject(e, loc, "a clipped copy of ", max_rows, " rows exceeds the DMA limit of ",
                  kMaxBursts, " bursts");
  }
  in.nburst = nrows;
  e.Emit(in);
  return Status::Ok();
}

Status CheckPaddingStaysInside(Emitter& e, const RegionRef& ref, int64_t row_gran, int64_t col_gran,
                               SourceLoc loc) {
  const auto& ranges = ref.region->ranges;
  const size_t rank = ranges.size();
  auto ends_at_edge = [&](size_t dim, int64_t extent, int64_t size) {
    const auto min = ir::AsConstInt(ranges[dim].min);
    return min.has_value() && *min + extent == size;
  };
  if (rank >= 2 && ref.rows % row_gran != 0 && !ends_at_edge(rank - 2, ref.rows, ref.layout.rows)) {
    return Reject(e, loc, "the destination ", Describe(ref), " region has ", ref.rows,
                  " rows, not a multiple of ", row_gran,
                  ", and does not end at the buffer's last row: the fractal padding written "
                  "with it would overwrite other rows of the buffer");
  }
  if (rank >= 1 && ref.cols % col_gran != 0 && !ends_at_edge(rank - 1, ref.cols, ref.layout.cols)) {
    return Reject(e, loc, "the destination ", Describe(ref), " region has ", ref.cols,
                  " columns, not a multiple of ", col_gran,
                  ", and does not end at the buffer's last column: the fractal padding written "
                  "with it would overwrite other columns of the buffer");
  }
  return Status::Ok();
}

// The zN checks of an L1 destination: padding stays inside (rows to 16, columns to C0) and
// the rows padded from an unaligned first row still fit the column block.
Status CheckL1Destination(Emitter& e, const RegionRef& l1, SourceLoc loc) {
  TILEJIT_RETURN_IF_ERROR(CheckPaddingStaysInside(e, l1, 16, l1.layout.c0, loc));
  const auto& ranges = l1.region->ranges;
  if (ranges.size() >= 2 && l1.rows % 16 != 0) {
    const auto min = ir::AsConstInt(ranges[ranges.size() - 2].min);
    if (min.has_value() && *min + target::RoundUp(l1.rows, 16) > l1.layout.pitch) {
      return Reject(e, loc, "the destination ", Describe(l1), " region starts at row ", *min,
                    " with ", l1.rows,
                    " rows; its fractal padding would run past the column "
                    "block (",
                    l1.layout.pitch, " rows)");
    }
  }
  return Status::Ok();
}

}  // namespace tilejit::codegen::internal
