// SPDX-License-Identifier: Apache-2.0
// Region addresses per layout (tile_layout.h, docs/isa.md section 3). For the fractal layouts
// the byte offset of a fractal-aligned (row, col) is linear in row and col, so runtime mins
// cost one multiply each; a start inside a fractal has no single address the DMA/cube
// instructions could take, hence the alignment diagnostics.
#include <string>

#include "common/check.h"
#include "compiler/codegen/emitter.h"
#include "compiler/codegen/emitter_internal.h"
#include "compiler/ir/printer.h"

namespace tilejit::codegen {
namespace {

using target::OpImm;
using target::Opnd;

// Checks that a region min is a multiple of `m` (statically, or by the structure of its
// expression when it is a runtime value).
Status CheckAligned(Emitter& e, const ir::Region& region, size_t dim, Opnd value, int64_t m,
                    const char* what) {
  const ir::Expr& min = region.ranges[dim].min;
  const bool ok = value.is_static() ? value.imm % m == 0 : KnownMultiple(min) % m == 0;
  if (ok) return Status::Ok();
  const SourceLoc loc = region.loc.known() ? region.loc : e.loc();
  e.diag().Error(loc) << "region of " << ir::MemScopeName(region.buffer->scope) << " buffer '"
                      << region.buffer->name << "' starts at " << what << " "
                      << (value.is_static() ? std::to_string(value.imm) : ir::PrintExpr(min))
                      << ", which is not a multiple of " << m
                      << " (sub-regions of a fractal layout must start on a fractal boundary)";
  return e.diag().ToStatus();
}

// The byte strides of the region's buffer (RegionRef::row_stride, batch_strides). A GM
// tensor is row-major ND, so each stride is the product of the sizes after it, which for a
// T.symbolic size is its register; on chip the layout's matrix size and pitch hold.
Status ComputeStrides(Emitter& e, const ir::BufferNode& b, RegionRef& ref) {
  const size_t rank = b.shape.size();
  const target::TileLayout& l = ref.layout;
  ref.batch_strides.assign(rank >= 2 ? rank - 2 : 0, OpImm(0));
  ref.row_stride = OpImm(l.pitch);
  if (b.scope != ir::MemScope::kGM || !b.has_symbolic_dims()) {
    int64_t stride = l.matrix_bytes;
    for (size_t d = ref.batch_strides.size(); d-- > 0;) {
      ref.batch_strides[d] = OpImm(stride);
      stride *= b.shape[d];
    }
    return Status::Ok();
  }
  Opnd stride = OpImm(l.elem_bytes);
  for (size_t d = rank; d-- > 1;) {
    TILEJIT_ASSIGN_OR_RETURN(const Opnd size, e.DimSize(b, d));
    stride = e.Mul(stride, size);
    if (d == rank - 1) ref.row_stride = stride;
    if (d <= ref.batch_strides.size()) ref.batch_strides[d - 1] = stride;
  }
  return Status::Ok();
}

}  // namespace

Result<Opnd> Emitter::DimSize(const ir::BufferNode& buffer, size_t d) {
  if (buffer.DimSymbol(d) == nullptr) return OpImm(buffer.shape[d]);
  return Int(ir::Ref(buffer.DimSymbol(d)));
}

Result<RegionRef> Emitter::RegionAddress(const ir::Region& region) {
  TILEJIT_CHECK(region.buffer != nullptr) << "region without a buffer";
  const ir::BufferNode& b = *region.buffer;
  const size_t rank = b.shape.size();
  TILEJIT_CHECK(region.ranges.size() == rank) << "region rank differs from its buffer's";
  if (b.scope == ir::MemScope::kLocalVar) {
    diag().Error(region.loc.known() ? region.loc : loc())
        << "scalar variable '" << b.name << "' has no memory address";
    return diag().ToStatus();
  }
  RegionRef ref;
  ref.region = &region;
  ref.layout = Layout(region.buffer);
  const target::TileLayout& l = ref.layout;

  std::vector<Opnd> mins(rank);
  for (size_t i = 0; i < rank; ++i) {
    TILEJIT_ASSIGN_OR_RETURN(mins[i], Int(region.ranges[i].min));
  }
  TILEJIT_RETURN_IF_ERROR(ComputeStrides(*this, b, ref));
  Opnd offset = OpImm(0);
  for (size_t i = 0; i + 2 < rank; ++i) {
    offset = Add(offset, Mul(mins[i], ref.batch_strides[i]));
    ref.batch *= region.ranges[i].extent;
  }
  ref.rows = rank >= 2 ? region.ranges[rank - 2].extent : 1;
  ref.cols = rank >= 1 ? region.ranges[rank - 1].extent : 1;
  ref.row_min = rank >= 2 ? mins[rank - 2] : OpImm(0);
  ref.col_min = rank >= 1 ? mins[rank - 1] : OpImm(0);
  const size_t row_dim = rank - 2;  // only used when rank >= 2
  const size_t col_dim = rank - 1;
  const int64_t es = l.elem_bytes;

  switch (l.kind) {
    case target::LayoutKind::kND:
      offset = Add(offset, Add(Mul(ref.row_min, ref.row_stride), Scaled(ref.col_min, es)));
      break;
    case target::LayoutKind::kZN:  // ((c / C0) * P + r) * C0 * es with c % C0 == 0
      if (rank >= 1)
        TILEJIT_RETURN_IF_ERROR(CheckAligned(*this, region, col_dim, ref.col_min, l.c0, "column"));
      offset = Add(offset, Add(Scaled(ref.col_min, l.pitch * es), Scaled(ref.row_min, l.c0 * es)));
      break;
    case target::LayoutKind::kZZ: {  // ((r / 16) * kf + c / C0) * 512, both fractal-aligned
      if (rank >= 2)
        TILEJIT_RETURN_IF_ERROR(CheckAligned(*this, region, row_dim, ref.row_min, 16, "row"));
      if (rank >= 1)
        TILEJIT_RETURN_IF_ERROR(CheckAligned(*this, region, col_dim, ref.col_min, l.c0, "column"));
      const int64_t kf = target::CeilDiv(l.cols, l.c0);
      offset = Add(offset, Add(Scaled(ref.row_min, kf * 32), Scaled(ref.col_min, 16 * es)));
      break;
    }
    case target::LayoutKind::kNZ: {  // ((r / C0) * nf + c / 16) * 512, both fractal-aligned
      if (rank >= 2)
        TILEJIT_RETURN_IF_ERROR(CheckAligned(*this, region, row_dim, ref.row_min, l.c0, "row"));
      if (rank >= 1)
        TILEJIT_RETURN_IF_ERROR(CheckAligned(*this, region, col_dim, ref.col_min, 16, "column"));
      const int64_t nf = target::CeilDiv(l.cols, 16);
      offset = Add(offset, Add(Scaled(ref.row_min, nf * 16 * es), Scaled(ref.col_min, 32)));
      break;
    }
    case target::LayoutKind::kRegister:
      TILEJIT_UNREACHABLE();
  }

  ref.row_limit = OpImm(l.rows);
  ref.col_limit = OpImm(l.cols);
  if (rank >= 2 && b.DimSymbol(row_dim) != nullptr) {
    TILEJIT_ASSIGN_OR_RETURN(ref.row_limit, DimSize(b, row_dim));
  }
  if (rank >= 1 && b.DimSymbol(col_dim) != nullptr) {
    TILEJIT_ASSIGN_OR_RETURN(ref.col_limit, DimSize(b, col_dim));
  }
  if (b.scope == ir::MemScope::kGM) {
    ref.address = Add(ParamBase(region.buffer), offset);
  } else {
    if (!b.address.has_value()) {
      diag().Error(b.loc.known() ? b.loc : loc())
          << ir::MemScopeName(b.scope) << " buffer '" << b.name
          << "' has no address (memory planning did not place it)";
      return diag().ToStatus();
    }
    ref.address = Add(OpImm(*b.address), offset);
  }
  return ref;
}

Result<Opnd> Emitter::State::ElementAddress(const ir::Buffer& buffer,
                                            const std::vector<ir::Expr>& idx, SourceLoc loc) {
  if (buffer->scope != ir::MemScope::kGM && buffer->scope != ir::MemScope::kUB) {
    e->diag().Error(loc) << "scalar access to " << ir::MemScopeName(buffer->scope) << " buffer '"
                         << buffer->name << "' (only GM, UB and alloc_var scalars are addressable "
                         << "by the scalar unit)";
    return e->diag().ToStatus();
  }
  if (buffer->scope == ir::MemScope::kUB && e->core() != target::CoreType::kAiv) {
    e->diag().Error(loc) << "scalar access to UB buffer '" << buffer->name
                         << "' in cube-core code (UB belongs to the vector cores)";
    return e->diag().ToStatus();
  }
  TILEJIT_CHECK(idx.size() == buffer->shape.size()) << "element access with wrong index count";
  ir::Region region;
  region.buffer = buffer;
  region.loc = loc;
  for (const auto& i : idx) region.ranges.push_back(ir::Range{i, 1});
  TILEJIT_ASSIGN_OR_RETURN(RegionRef ref, e->RegionAddress(region));
  return ref.address;
}

}  // namespace tilejit::codegen
