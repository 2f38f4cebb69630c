// SPDX-License-Identifier: Apache-2.0
// The operator lowerings of lower_parallel: combining two Values with a binary tile op,
// compare + select, and the slots (destination, in-place temporary, fresh temporary) results
// go to. Every tile op emitted here satisfies the shape rules of compiler/frontend/
// shape_rules.h: the destination and first source have the same shape, and a second source
// is the same shape, a scalar, [R] / [R, 1] per row or [1, C] per column.
#include <string>
#include <utility>

#include "compiler/passes/lower_parallel_internal.h"
#include "compiler/target/tile_layout.h"

namespace tilejit::passes::parallel {
namespace {

using ir::TileOpCode;

bool Commutative(ir::BinaryOp op) {
  return op == ir::BinaryOp::kAdd || op == ir::BinaryOp::kMul || op == ir::BinaryOp::kMin ||
         op == ir::BinaryOp::kMax;
}

std::string ModeOf(ir::BinaryOp op) {
  switch (op) {
    case ir::BinaryOp::kEq:
      return "EQ";
    case ir::BinaryOp::kNe:
      return "NE";
    case ir::BinaryOp::kLt:
      return "LT";
    case ir::BinaryOp::kLe:
      return "LE";
    case ir::BinaryOp::kGt:
      return "GT";
    case ir::BinaryOp::kGe:
      return "GE";
    default:
      return "";
  }
}

std::string SwappedMode(const std::string& m) {
  if (m == "LT") return "GT";
  if (m == "GT") return "LT";
  if (m == "LE") return "GE";
  if (m == "GE") return "LE";
  return m;
}

std::string NegatedMode(const std::string& m) {
  if (m == "EQ") return "NE";
  if (m == "NE") return "EQ";
  if (m == "LT") return "GE";
  if (m == "GE") return "LT";
  if (m == "LE") return "GT";
  return "LE";
}

ir::Operand OperandOf(const Value& v) {
  return v.is_scalar ? ir::Operand(v.scalar) : ir::Operand(v.region);
}

}  // namespace

void StoreLowerer::Emit(ir::TileOpCode op, std::vector<ir::Operand> args,
                        std::vector<ir::Attr> attrs) {
  sink_.Emit(op, std::move(args), std::move(attrs), loc_);
}

ir::Expr StoreLowerer::MinusOne(ir::DType dtype) const {
  return ir::IsFloat(dtype) ? ir::FloatImm(-1.0, ir::DType::kFloat32, loc_)
                            : ir::IntImm(-1, ir::DType::kInt32, loc_);
}

bool StoreLowerer::SameDtype(const Value& a, const Value& b) {
  if (a.is_scalar || b.is_scalar || a.dtype == b.dtype) return true;
  ctx_.diag->Error(loc_) << "T.Parallel combines " << ir::DTypeName(a.dtype) << " and "
                         << ir::DTypeName(b.dtype) << " tiles; cast one of them explicitly";
  return false;
}

Value StoreLowerer::Slot(Cls cls, ir::DType dtype, const ir::Region* into, const Value* a,
                         const Value* b) {
  Value v;
  v.cls = cls;
  v.dtype = dtype;
  if (into != nullptr && cls == Cls::kFull && into->buffer->dtype == dtype) {
    v.region = *into;
    return v;
  }
  for (const Value* x : {a, b}) {
    if (x != nullptr && !x->is_scalar && x->temp && x->cls == cls && x->dtype == dtype) return *x;
  }
  v.region = ir::WholeBuffer(temps_.Acquire(nest_.Shape(cls), dtype, loc_), loc_);
  v.temp = true;
  return v;
}

Value StoreLowerer::Staged(const ir::Region& r, Cls cls, ir::DType dtype) {
  Value v = Slot(cls, dtype, nullptr, nullptr, nullptr);
  Emit(TileOpCode::kCopy, {v.region, r});
  return v;
}

Value StoreLowerer::ToFull(const Value& v) {
  if (v.is_scalar || v.cls == Cls::kFull) return v;
  Value full = Slot(Cls::kFull, v.dtype, nullptr, nullptr, nullptr);
  Emit(TileOpCode::kBroadcast, {full.region, v.region},
       {{"axis", int64_t{v.cls == Cls::kRow ? 1 : 0}}});
  return full;
}

std::optional<Value> StoreLowerer::Combine(ir::BinaryOp op, Value a, Value b,
                                           const ir::Region* into) {
  TILEJIT_CHECK(!(a.is_scalar && b.is_scalar)) << "invariant binary reached Combine";
  if (!SameDtype(a, b)) return std::nullopt;
  const std::optional<TileOpCode> op_code = BinaryTileOp(op);
  TILEJIT_CHECK(op_code.has_value()) << "Combine on a non-element-wise operator";
  const TileOpCode code = *op_code;
  if (!a.is_scalar && (b.is_scalar || b.cls == a.cls || a.cls == Cls::kFull)) {
    Value dst = Slot(a.cls, a.dtype, into, &a, &b);  // b is [R]/[1, C]/scalar or a.cls
    Emit(code, {dst.region, a.region, OperandOf(b)});
    return dst;
  }
  if (!a.is_scalar && b.cls != Cls::kFull) {
    ctx_.diag->Error(loc_) << "T.Parallel combines a per-row and a per-column operand; "
                              "broadcast one of them to the full tile first";
    return std::nullopt;
  }
  // The tile (or the full tile) is the second operand: a scalar or broadcast `a` op b.
  Value dst = Slot(b.cls, b.dtype, into, &b, nullptr);
  if (Commutative(op)) {
    Emit(code, {dst.region, b.region, OperandOf(a)});
  } else if (op == ir::BinaryOp::kSub) {  // a - b = (b - a) * -1
    if (a.is_scalar) {
      Emit(TileOpCode::kMul, {dst.region, b.region, MinusOne(b.dtype)});
      Emit(TileOpCode::kAdd, {dst.region, dst.region, a.scalar});
    } else {
      Emit(TileOpCode::kSub, {dst.region, b.region, a.region});
      Emit(TileOpCode::kMul, {dst.region, dst.region, MinusOne(b.dtype)});
    }
  } else {  // a / b = (1 / b) * a
    Emit(TileOpCode::kReciprocal, {dst.region, b.region});
    Emit(TileOpCode::kMul, {dst.region, dst.region, OperandOf(a)});
  }
  return dst;
}

std::optional<ir::Region> StoreLowerer::EmitMask(Value x, Value y, std::string mode) {
  if (x.is_scalar && y.is_scalar) {
    ctx_.diag->Error(loc_) << "T.Parallel T.if_then_else condition does not depend on the loop "
                              "vars; use an if statement outside the loop";
    return std::nullopt;
  }
  if (x.is_scalar) {  // compare takes a tile first
    std::swap(x, y);
    mode = SwappedMode(mode);
  }
  Value lhs = ToFull(x), rhs = ToFull(y);
  if (!SameDtype(lhs, rhs)) return std::nullopt;
  // The bit-mask contract of codegen/vector_mask.cc: one row of bits per tile row, each row
  // 32-byte aligned.
  const std::vector<int64_t>& ext = nest_.extents;
  const int64_t row_bytes = target::RoundUp(target::CeilDiv(ext.back(), 8), 32);
  std::vector<int64_t> shape = ext.size() == 2 && ext[0] > 1
                                   ? std::vector<int64_t>{ext[0], row_bytes}
                                   : std::vector<int64_t>{row_bytes};
  ir::Region mask = ir::WholeBuffer(temps_.Acquire(shape, ir::DType::kUInt8, loc_), loc_);
  Emit(TileOpCode::kCompare, {mask, lhs.region, OperandOf(rhs)}, {{"mode", mode}});
  return mask;
}

std::optional<Value> StoreLowerer::LowerSelect(const ir::SelectNode& s, const ir::Region* into) {
  const auto* cmp = ir::TryAs<ir::BinaryNode>(s.cond);
  std::string mode = cmp != nullptr ? ModeOf(cmp->op) : "";
  if (mode.empty()) {
    ctx_.diag->Error(loc_) << "T.Parallel T.if_then_else condition must be one comparison (==, "
                              "!=, <, <=, >, >=) to become compare + select";
    return std::nullopt;
  }
  std::optional<Value> x = LowerExpr(cmp->a, nullptr);
  std::optional<Value> y = x ? LowerExpr(cmp->b, nullptr) : std::nullopt;
  std::optional<Value> t = y ? LowerExpr(s.t, nullptr) : std::nullopt;
  std::optional<Value> f = t ? LowerExpr(s.f, nullptr) : std::nullopt;
  if (!f) return std::nullopt;
  if (t->is_scalar && !f->is_scalar) {  // select takes a tile first: swap and negate
    std::swap(t, f);
    mode = NegatedMode(mode);
  }
  std::optional<ir::Region> mask = EmitMask(*x, *y, mode);
  if (!mask) return std::nullopt;
  if (t->is_scalar) {  // both branches scalar: materialise the true value
    ir::DType dt = into != nullptr ? into->buffer->dtype : s.dtype;
    Value filled = Slot(Cls::kFull, dt, nullptr, nullptr, nullptr);
    Emit(TileOpCode::kFill, {filled.region, t->scalar});
    t = filled;
  }
  Value tv = ToFull(*t), fv = ToFull(*f);
  if (!SameDtype(tv, fv)) return std::nullopt;
  Value dst = Slot(Cls::kFull, tv.dtype, into, &tv, &fv);
  Emit(TileOpCode::kSelect, {dst.region, *mask, tv.region, OperandOf(fv)},
       {{"mode",
         std::string(fv.is_scalar ? "VSEL_TENSOR_SCALAR_MODE" : "VSEL_TENSOR_TENSOR_MODE")}});
  return dst;
}

bool StoreLowerer::Finish(const ir::StoreNode& store, const ir::Region& dest, const Value& v) {
  const ir::DType dt = store.buffer->dtype;
  const bool canonical = Trim(dest.TrimmedShape()) == Trim(nest_.Shape(Cls::kFull));
  if (v.is_scalar) {
    Emit(TileOpCode::kFill, {dest, v.scalar});
    return true;
  }
  if (RegionEqual(v.region, dest)) return true;  // computed in place
  Value src = v;
  if (src.dtype != dt) {
    std::string mode = ir::IsFloat(src.dtype) && !ir::IsFloat(dt) ? "CAST_TRUNC" : "CAST_RINT";
    if (src.cls == Cls::kFull && canonical) {
      Emit(TileOpCode::kCast, {dest, src.region}, {{"mode", mode}});
      return true;
    }
    Value c = Slot(src.cls, dt, nullptr, nullptr, nullptr);
    Emit(TileOpCode::kCast, {c.region, src.region}, {{"mode", mode}});
    src = c;
  }
  if (src.cls != Cls::kFull && canonical && nest_.extents.size() == 2) {
    Emit(TileOpCode::kBroadcast, {dest, src.region},
         {{"axis", int64_t{src.cls == Cls::kRow ? 1 : 0}}});
    return true;
  }
  src = ToFull(src);
  Emit(TileOpCode::kCopy, {dest, src.region});
  return true;
}

}  // namespace tilejit::passes::parallel
