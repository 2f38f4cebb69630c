// SPDX-License-Identifier: Apache-2.0
// Operand resolution for the vector ops: UB regions as tiles, scalar operands, attributes and
// checked emission. Every user-visible problem becomes a diagnostic at the op, so a kernel the
// ISA cannot express never reaches the encoder (where it would be an internal error).
#include <algorithm>
#include <cmath>
#include <string>
#include <variant>

#include "compiler/codegen/emitter_internal.h"  // IsaDType
#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen::vec {
namespace {

// Byte offsets of the matrices of `r` (its leading dims, all but the last two) from its first
// matrix: RegionRef gives the first matrix only.
std::vector<int64_t> MatrixOffsets(const ir::Region& r, const target::TileLayout& layout) {
  const auto& shape = r.buffer->shape;
  const size_t lead = shape.size() > 2 ? shape.size() - 2 : 0;
  std::vector<int64_t> out{0};
  int64_t stride = 1;  // in matrices
  for (size_t d = lead; d-- > 0;) {
    std::vector<int64_t> next;
    for (int64_t k = 0; k < r.ranges[d].extent; ++k) {
      for (int64_t base : out) next.push_back(base + k * stride * layout.matrix_bytes);
    }
    out = std::move(next);
    stride *= shape[d];
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::optional<target::DType> TargetDType(ir::DType t) {
  // The vector unit has no 64-bit unsigned form; every other type maps as for scalars.
  if (t == ir::DType::kUInt64) return std::nullopt;
  return IsaDType(t);
}

Status VecOp::Error(const std::string& msg) {
  e_.diag().Error(op_.loc) << msg;
  return e_.diag().ToStatus();
}

const ir::Region* VecOp::RegionArg(size_t i) const {
  if (i >= op_.args.size()) return nullptr;
  return std::get_if<ir::Region>(&op_.args[i]);
}

const ir::Expr* VecOp::ScalarArg(size_t i) const {
  if (i >= op_.args.size()) return nullptr;
  const ir::Expr* e = std::get_if<ir::Expr>(&op_.args[i]);
  return e != nullptr && *e != nullptr ? e : nullptr;
}

Result<Tile> VecOp::TileArg(size_t i, std::string_view role) {
  const ir::Region* r = RegionArg(i);
  if (r == nullptr) {
    return Error(std::string(name()) + ": the " + std::string(role) + " must be a UB region");
  }
  const ir::BufferNode& b = *r->buffer;
  if (b.scope != ir::MemScope::kUB) {
    return Error(std::string(name()) + ": the " + std::string(role) + " '" + b.name + "' is in " +
                 std::string(ir::MemScopeName(b.scope)) + "; vector ops work on UB buffers");
  }
  auto dt = TargetDType(b.dtype);
  if (!dt) {
    return Error(std::string(name()) + ": element type " + std::string(ir::DTypeName(b.dtype)) +
                 " is not supported by the vector unit");
  }
  TILEJIT_ASSIGN_OR_RETURN(RegionRef ref, e_.RegionAddress(*r));
  Tile t{r,
         ref.address,
         *dt,
         target::DTypeBytes(*dt),
         ref.rows,
         ref.cols,
         ref.layout.pitch,
         MatrixOffsets(*r, ref.layout)};
  if (t.pitch == 0) t.pitch = t.cols * t.es;
  const auto col_min = ir::AsConstInt(r->ranges.back().min);
  if ((col_min && (*col_min * t.es) % target::kBlockBytes != 0) ||
      (t.addr.is_static() && t.addr.imm % target::kBlockBytes != 0)) {
    return Error(std::string(name()) + ": the " + std::string(role) + " region of '" + b.name +
                 "' does not start on a 32-byte block" +
                 (col_min ? " (it starts at column " + std::to_string(*col_min) + ")" : "") +
                 "; vector operands must be 32-byte aligned");
  }
  return t;
}

int64_t VecOp::IntAttr(std::string_view key, int64_t dflt) const {
  const ir::AttrValue* v = op_.FindAttr(key);
  if (v == nullptr) return dflt;
  if (const auto* i = std::get_if<int64_t>(v)) return *i;
  if (const auto* e = std::get_if<ir::Expr>(v)) return ir::AsConstInt(*e).value_or(dflt);
  return dflt;
}

bool VecOp::BoolAttr(std::string_view key, bool dflt) const {
  const ir::AttrValue* v = op_.FindAttr(key);
  if (v == nullptr) return dflt;
  if (const auto* b = std::get_if<bool>(v)) return *b;
  if (const auto* i = std::get_if<int64_t>(v)) return *i != 0;
  return dflt;
}

std::string VecOp::StringAttr(std::string_view key) const {
  const ir::AttrValue* v = op_.FindAttr(key);
  if (v == nullptr) return "";
  const auto* s = std::get_if<std::string>(v);
  return s != nullptr ? *s : "";
}

Status VecOp::Emit(const target::Instr& in) {
  Status s = target::Validate(in);
  if (!s.ok()) return Error(std::string(name()) + " cannot be lowered: " + s.message());
  e_.Emit(in);
  return Status::Ok();
}

void VecOp::Barrier() {
  target::Instr in{.op = target::Opcode::kBarrier};
  in.pipe = target::Pipe::kV;
  e_.Emit(in);
}

Result<target::Opnd> VecOp::ScalarBits(const ir::Expr& value, target::DType dtype) {
  if (target::IsFloatDType(dtype)) {
    if (!ir::IsFloat(value->dtype)) {
      return e_.FloatBits(ir::Call("cast", {value}, ir::DType::kFloat32, value->loc));
    }
    return e_.FloatBits(value);
  }
  // A whole-number float constant (upstream's fill(int_tile, 0.0)) is that integer.
  if (const auto* f = ir::TryAs<ir::FloatImmNode>(value);
      f != nullptr && std::trunc(f->value) == f->value && std::fabs(f->value) < 9.0e15) {
    return target::OpImm(static_cast<int64_t>(f->value));
  }
  if (ir::IsFloat(value->dtype)) {
    return Error(std::string(name()) + ": a float scalar cannot be combined with integer " +
                 std::string(target::DTypeName(dtype)) + " elements");
  }
  return e_.Int(value);
}

Result<std::optional<target::Opnd>> VecOp::UbElementAddress(const ir::Expr& value,
                                                            target::DType dtype) {
  const auto* load = ir::TryAs<ir::LoadNode>(value);
  if (load == nullptr || load->buffer->scope != ir::MemScope::kUB ||
      TargetDType(load->buffer->dtype) != dtype ||
      load->indices.size() != load->buffer->shape.size()) {
    return std::optional<target::Opnd>();
  }
  ir::Region element{load->buffer, {}, load->loc};
  for (const ir::Expr& idx : load->indices) element.ranges.push_back(ir::Range{idx, 1});
  TILEJIT_ASSIGN_OR_RETURN(RegionRef ref, e_.RegionAddress(element));
  return std::optional<target::Opnd>(ref.address);
}

}  // namespace tilejit::codegen::vec
