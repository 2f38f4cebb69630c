// SPDX-License-Identifier: Apache-2.0
// The copy tile op: checks shared by every path (scopes, the path and its core, attributes,
// shapes, dtypes), then one lowering per hardware path (copy_load.cc, copy_store.cc,
// copy_onchip.cc). The checks report diagnostics rather than CHECK-failing because a Tile IR
// text given directly to the service reaches codegen without the passes that would otherwise
// have rejected it.
#include <string>
#include <variant>
#include <vector>

#include "common/check.h"
#include "compiler/codegen/copy_util.h"
#include "compiler/codegen/ops.h"
#include "compiler/ir/buffer_layout.h"

namespace tilejit::codegen {
namespace {

using internal::CopyArgs;
using internal::Reject;
using target::Mem;

bool BoolAttr(const ir::TileOpNode& op, const char* key) {
  const ir::AttrValue* v = op.FindAttr(key);
  const bool* b = v != nullptr ? std::get_if<bool>(v) : nullptr;
  return b != nullptr && *b;
}

bool IsHardwareScope(ir::MemScope s) {
  return s != ir::MemScope::kShared && s != ir::MemScope::kFragment && s != ir::MemScope::kLocalVar;
}

using ir::ShapeText;

// A GM region [R, 1, C] (unit dims but one leading dim and the last) as R rows of C, its
// leading dim's stride apart (RegionRef::row_dim, row_stride); unchanged when it has another
// shape.
Status FoldGmRows(Emitter& e, RegionRef& ref) {
  const ir::Region& r = *ref.region;
  const std::vector<int64_t>& shape = r.buffer->shape;
  const size_t rank = shape.size();
  if (rank < 3 || r.ranges[rank - 2].extent != 1) return Status::Ok();
  int dim = -1;
  for (size_t d = 0; d + 2 < rank; ++d) {
    if (r.ranges[d].extent == 1) continue;
    if (dim >= 0) return Status::Ok();  // two leading dims span more than one index
    dim = static_cast<int>(d);
  }
  if (dim < 0) return Status::Ok();
  TILEJIT_ASSIGN_OR_RETURN(ref.row_min, e.Int(r.ranges[dim].min));
  ref.batch = 1;
  ref.rows = r.ranges[dim].extent;
  ref.row_dim = dim;
  TILEJIT_ASSIGN_OR_RETURN(ref.row_limit, e.DimSize(*r.buffer, dim));
  ref.row_stride = ref.batch_strides[dim];
  ref.batch_strides.clear();
  ref.layout.batch = 1;
  return Status::Ok();
}

// Equal trimmed shapes (DESIGN.md section 2), or the transposed pair of an L0 load, or a GM
// region whose single rows fold into the on-chip tile's geometry (RegionRef::row_dim).
Status CheckShapes(Emitter& e, const ir::TileOpNode& op, const RegionRef& dst_ref,
                   const RegionRef& src_ref, bool transpose) {
  const ir::Region& dst = *dst_ref.region;
  const ir::Region& src = *src_ref.region;
  if ((dst_ref.row_dim >= 0 || src_ref.row_dim >= 0) && !transpose &&
      dst_ref.batch == src_ref.batch && dst_ref.rows == src_ref.rows &&
      dst_ref.cols == src_ref.cols) {
    return Status::Ok();
  }
  std::vector<int64_t> d = dst.TrimmedShape();
  std::vector<int64_t> s = src.TrimmedShape();
  if (transpose) {
    while (s.size() < 2) s.insert(s.begin(), 1);
    std::swap(s[s.size() - 1], s[s.size() - 2]);
    while (d.size() < s.size()) d.insert(d.begin(), 1);
    while (s.size() < d.size()) s.insert(s.begin(), 1);
  }
  if (d == s) return Status::Ok();
  return Reject(e, op.loc, "copy between regions of different shapes: destination ",
                ShapeText(dst.TrimmedShape()), ", source ", ShapeText(src.TrimmedShape()),
                transpose ? " (transposed)" : "");
}

Status CheckDtypes(Emitter& e, const ir::TileOpNode& op, const ir::BufferNode& dst,
                   const ir::BufferNode& src) {
  if (src.scope == ir::MemScope::kL0C) {
    const bool ok = (src.dtype == ir::DType::kFloat32 &&
                     (dst.dtype == ir::DType::kFloat32 || dst.dtype == ir::DType::kFloat16 ||
                      dst.dtype == ir::DType::kBFloat16)) ||
                    (src.dtype == ir::DType::kInt32 && dst.dtype == ir::DType::kInt32);
    if (ok) return Status::Ok();
    return Reject(e, op.loc, "the fixpipe cannot convert ", ir::DTypeName(src.dtype), " to ",
                  ir::DTypeName(dst.dtype),
                  " (float32 -> float32/float16/bfloat16, int32 -> int32)");
  }
  if (src.dtype == dst.dtype) return Status::Ok();
  return Reject(e, op.loc, "copy from ", ir::DTypeName(src.dtype), " to ", ir::DTypeName(dst.dtype),
                " changes the element type; use T.tile.cast");
}

Status CheckAttrs(Emitter& e, const ir::TileOpNode& op, Mem src, Mem dst, bool transpose, bool relu,
                  bool atomic_add) {
  if (atomic_add && !(dst == Mem::kGM && (src == Mem::kUB || src == Mem::kL0C))) {
    return Reject(e, op.loc, "atomic_add is only supported on copies from UB or L0C to GM");
  }
  if (transpose && !(src == Mem::kL1 && (dst == Mem::kL0A || dst == Mem::kL0B))) {
    return Reject(e, op.loc, "transpose is only supported on copies from L1 to L0A/L0B");
  }
  if (relu && src != Mem::kL0C) {
    return Reject(e, op.loc, "enable_relu is only supported on copies out of L0C");
  }
  return Status::Ok();
}

Status CheckPath(Emitter& e, const ir::TileOpNode& op, Mem src, Mem dst) {
  const target::DataPath* path = target::FindPath(e.target(), src, dst);
  if (path == nullptr) {
    return Reject(e, op.loc, "copy from ", target::MemName(src), " to ", target::MemName(dst),
                  " is not a data path of ", e.target().name);
  }
  if (path->core != e.core()) {
    return Reject(e, op.loc, "copy from ", target::MemName(src), " to ", target::MemName(dst),
                  " runs on the ", target::CoreTypeName(path->core), " but is in the ",
                  target::CoreTypeName(e.core()), " program");
  }
  return Status::Ok();
}

Status Dispatch(Emitter& e, const CopyArgs& a, Mem src, Mem dst) {
  using namespace internal;  // NOLINT: the path lowerings
  switch (src) {
    case Mem::kGM:
      if (dst == Mem::kUB) return EmitGmToUb(e, a);
      if (dst == Mem::kL1) return EmitGmToL1(e, a);
      break;
    case Mem::kUB:
      if (dst == Mem::kGM) return EmitUbToGm(e, a);
      if (dst == Mem::kUB) return EmitUbToUb(e, a);
      break;
    case Mem::kL1:
      if (dst == Mem::kGM) return EmitL1ToGm(e, a);
      if (dst == Mem::kL0A || dst == Mem::kL0B) return EmitL1ToL0(e, a);
      break;
    case Mem::kL0C:
      if (dst == Mem::kGM) return EmitL0cToGm(e, a);
      if (dst == Mem::kL1) return EmitL0cToL1(e, a);
      break;
    default:
      break;
  }
  return Reject(e, a.op->loc, "copy from ", target::MemName(src), " to ", target::MemName(dst),
                " has no instruction in this ISA (stage it through L1)");
}

}  // namespace

Status EmitCopy(Emitter& e, const ir::TileOpNode& op) {
  TILEJIT_CHECK(op.op == ir::TileOpCode::kCopy) << "EmitCopy on " << ir::TileOpName(op.op);
  TILEJIT_CHECK(op.args.size() == 2 && std::holds_alternative<ir::Region>(op.args[0]) &&
                std::holds_alternative<ir::Region>(op.args[1]))
      << "copy needs two region operands";
  const ir::Region& dst = std::get<ir::Region>(op.args[0]);
  const ir::Region& src = std::get<ir::Region>(op.args[1]);
  for (const ir::Region* r : {&dst, &src}) {
    if (!IsHardwareScope(r->buffer->scope)) {
      return Reject(e, op.loc, "copy operand '", r->buffer->name, "' has scope ",
                    ir::MemScopeName(r->buffer->scope), ", which has no memory in codegen");
    }
  }
  const Mem src_mem = ir::MemOf(src.buffer->scope);
  const Mem dst_mem = ir::MemOf(dst.buffer->scope);
  CopyArgs a;
  a.op = &op;
  a.transpose = BoolAttr(op, "transpose");
  a.relu = BoolAttr(op, "enable_relu");
  a.atomic_add = BoolAttr(op, "atomic_add");
  TILEJIT_RETURN_IF_ERROR(CheckPath(e, op, src_mem, dst_mem));
  TILEJIT_RETURN_IF_ERROR(CheckAttrs(e, op, src_mem, dst_mem, a.transpose, a.relu, a.atomic_add));
  TILEJIT_RETURN_IF_ERROR(CheckDtypes(e, op, *dst.buffer, *src.buffer));
  TILEJIT_ASSIGN_OR_RETURN(a.dst, e.RegionAddress(dst));
  TILEJIT_ASSIGN_OR_RETURN(a.src, e.RegionAddress(src));
  if (!a.transpose && dst.TrimmedShape() != src.TrimmedShape()) {
    if (src_mem == Mem::kGM) TILEJIT_RETURN_IF_ERROR(FoldGmRows(e, a.src));
    if (dst_mem == Mem::kGM) TILEJIT_RETURN_IF_ERROR(FoldGmRows(e, a.dst));
  }
  TILEJIT_RETURN_IF_ERROR(CheckShapes(e, op, a.dst, a.src, a.transpose));
  return Dispatch(e, a, src_mem, dst_mem);
}

// fill_l1 per matrix of the region: whole 32-byte rows of each column block, so the region's
// columns must be whole C0 blocks or end at the buffer's last column (its padding).
Status EmitFillL1(Emitter& e, const ir::TileOpNode& op) {
  TILEJIT_CHECK(op.op == ir::TileOpCode::kFill && op.args.size() == 2 &&
                std::holds_alternative<ir::Region>(op.args[0]) &&
                std::holds_alternative<ir::Expr>(op.args[1]))
      << "EmitFillL1 needs fill(region, value)";
  const ir::Region& dst = std::get<ir::Region>(op.args[0]);
  const ir::Expr& value = std::get<ir::Expr>(op.args[1]);
  TILEJIT_CHECK(dst.buffer->scope == ir::MemScope::kL1) << "EmitFillL1 on a non-L1 region";
  TILEJIT_ASSIGN_OR_RETURN(RegionRef l1, e.RegionAddress(dst));
  TILEJIT_RETURN_IF_ERROR(internal::CheckPaddingStaysInside(e, l1, 1, l1.layout.c0, op.loc));
  target::Opnd scalar;
  if (ir::IsFloat(dst.buffer->dtype)) {
    TILEJIT_ASSIGN_OR_RETURN(scalar, e.FloatBits(value));
  } else {
    TILEJIT_ASSIGN_OR_RETURN(scalar, e.Int(value));
  }
  for (int64_t b = 0; b < l1.batch; ++b) {
    internal::FillL1Rows(e, l1, internal::BatchAddress(e, l1, b), target::OpImm(l1.rows), scalar);
  }
  return Status::Ok();
}

}  // namespace tilejit::codegen
