// SPDX-License-Identifier: Apache-2.0
// Static facts about integer expressions: interval bounds (for tail decisions: a GM region
// whose mins are provably in range needs no clipping code), known divisors (for fractal
// alignment of runtime region mins) and whether an expression reads memory.
#include <algorithm>
#include <numeric>

#include "common/check.h"
#include "compiler/codegen/emitter.h"
#include "compiler/codegen/emitter_internal.h"

namespace tilejit::codegen {
namespace {

std::optional<Interval> DTypeRange(ir::DType t) {
  switch (t) {
    case ir::DType::kBool:
      return Interval{0, 1};
    case ir::DType::kInt8:
      return Interval{-128, 127};
    case ir::DType::kUInt8:
      return Interval{0, 255};
    case ir::DType::kInt16:
      return Interval{-32768, 32767};
    case ir::DType::kUInt16:
      return Interval{0, 65535};
    case ir::DType::kInt32:
      return Interval{INT32_MIN, INT32_MAX};
    case ir::DType::kUInt32:
      return Interval{0, UINT32_MAX};
    default:
      return std::nullopt;
  }
}

std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<Interval> MulBounds(Interval a, Interval b) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int64_t x : {a.first, a.second}) {
    for (int64_t y : {b.first, b.second}) {
      auto p = CheckedMul(x, y);
      if (!p) return std::nullopt;
      lo = std::min(lo, *p);
      hi = std::max(hi, *p);
    }
  }
  return Interval{lo, hi};
}

int64_t FloorDivC(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::optional<Interval> BinaryBounds(ir::BinaryOp op, std::optional<Interval> a,
                                     std::optional<Interval> b) {
  if (!a || !b) return std::nullopt;
  int64_t lo, hi;
  switch (op) {
    case ir::BinaryOp::kAdd:
      if (__builtin_add_overflow(a->first, b->first, &lo) ||
          __builtin_add_overflow(a->second, b->second, &hi))
        return std::nullopt;
      return Interval{lo, hi};
    case ir::BinaryOp::kSub:
      if (__builtin_sub_overflow(a->first, b->second, &lo) ||
          __builtin_sub_overflow(a->second, b->first, &hi))
        return std::nullopt;
      return Interval{lo, hi};
    case ir::BinaryOp::kMul:
      return MulBounds(*a, *b);
    case ir::BinaryOp::kDiv:
    case ir::BinaryOp::kFloorDiv:
      if (b->first != b->second || b->first <= 0) return std::nullopt;
      return Interval{FloorDivC(a->first, b->first), FloorDivC(a->second, b->first)};
    case ir::BinaryOp::kFloorMod: {
      if (b->first != b->second || b->first <= 0) return std::nullopt;
      const int64_t k = b->first;
      if (FloorDivC(a->first, k) == FloorDivC(a->second, k))
        return Interval{a->first - FloorDivC(a->first, k) * k,
                        a->second - FloorDivC(a->second, k) * k};
      return Interval{0, k - 1};
    }
    case ir::BinaryOp::kMin:
      return Interval{std::min(a->first, b->first), std::min(a->second, b->second)};
    case ir::BinaryOp::kMax:
      return Interval{std::max(a->first, b->first), std::max(a->second, b->second)};
    default:
      return Interval{0, 1};  // comparisons and logic
  }
}

}  // namespace

std::optional<std::pair<int64_t, int64_t>> Emitter::Bounds(const ir::Expr& e) {
  return state_->BoundsOf(e);
}

std::optional<Interval> Emitter::State::BoundsOf(const ir::Expr& x) {
  if (x == nullptr || ir::IsFloat(x->dtype)) return std::nullopt;
  switch (x->kind) {
    case ir::ExprKind::kIntImm: {
      const int64_t v = ir::As<ir::IntImmNode>(x).value;
      return Interval{v, v};
    }
    case ir::ExprKind::kFloatImm:
      return std::nullopt;
    case ir::ExprKind::kVarRef: {
      auto it = vars.find(ir::As<ir::VarRefNode>(x).var.get());
      if (it == vars.end()) return std::nullopt;
      return it->second.range;
    }
    case ir::ExprKind::kBinary: {
      const auto& b = ir::As<ir::BinaryNode>(x);
      if (CmpModeOf(b.op) || b.op == ir::BinaryOp::kAnd || b.op == ir::BinaryOp::kOr)
        return Interval{0, 1};
      return BinaryBounds(b.op, BoundsOf(b.a), BoundsOf(b.b));
    }
    case ir::ExprKind::kUnary: {
      const auto& u = ir::As<ir::UnaryNode>(x);
      if (u.op == ir::UnaryOp::kNot) return Interval{0, 1};
      if (u.op == ir::UnaryOp::kBitNot) return std::nullopt;
      auto a = BoundsOf(u.a);
      if (!a || a->first == INT64_MIN) return std::nullopt;
      return Interval{-a->second, -a->first};
    }
    case ir::ExprKind::kSelect: {
      const auto& s = ir::As<ir::SelectNode>(x);
      auto c = BoundsOf(s.cond);
      if (c && c->first == c->second) return BoundsOf(c->first != 0 ? s.t : s.f);
      auto t = BoundsOf(s.t), f = BoundsOf(s.f);
      if (!t || !f) return std::nullopt;
      return Interval{std::min(t->first, f->first), std::max(t->second, f->second)};
    }
    case ir::ExprKind::kLoad:
      return DTypeRange(x->dtype);
    case ir::ExprKind::kCall: {
      const auto& c = ir::As<ir::CallNode>(x);
      auto range = DTypeRange(c.dtype);
      if (c.op != "cast" || c.args.size() != 1) return range;
      auto inner = BoundsOf(c.args[0]);
      if (!inner) return range;
      if (!range || (inner->first >= range->first && inner->second <= range->second)) return inner;
      return range;
    }
  }
  return std::nullopt;
}

bool HasLoad(const ir::Expr& x) {
  if (x == nullptr) return false;
  switch (x->kind) {
    case ir::ExprKind::kLoad: {
      // alloc_var reads are register reads, safe to evaluate speculatively.
      const auto& l = ir::As<ir::LoadNode>(x);
      if (l.buffer->scope != ir::MemScope::kLocalVar) return true;
      return std::any_of(l.indices.begin(), l.indices.end(), HasLoad);
    }
    case ir::ExprKind::kBinary: {
      const auto& b = ir::As<ir::BinaryNode>(x);
      return HasLoad(b.a) || HasLoad(b.b);
    }
    case ir::ExprKind::kUnary:
      return HasLoad(ir::As<ir::UnaryNode>(x).a);
    case ir::ExprKind::kSelect: {
      const auto& s = ir::As<ir::SelectNode>(x);
      return HasLoad(s.cond) || HasLoad(s.t) || HasLoad(s.f);
    }
    case ir::ExprKind::kCall: {
      const auto& c = ir::As<ir::CallNode>(x);
      return std::any_of(c.args.begin(), c.args.end(), HasLoad);
    }
    default:
      return false;
  }
}

int64_t KnownMultiple(const ir::Expr& x) {
  if (x == nullptr) return 1;
  if (auto c = ir::AsConstInt(x)) return *c == INT64_MIN ? 1 : std::abs(*c);
  const auto* b = ir::TryAs<ir::BinaryNode>(x);
  if (b == nullptr) {
    const auto* u = ir::TryAs<ir::UnaryNode>(x);
    if (u != nullptr && u->op == ir::UnaryOp::kNeg) return KnownMultiple(u->a);
    return 1;
  }
  switch (b->op) {
    case ir::BinaryOp::kAdd:
    case ir::BinaryOp::kSub:
      return std::gcd(KnownMultiple(b->a), KnownMultiple(b->b));
    case ir::BinaryOp::kMul: {
      auto p = CheckedMul(KnownMultiple(b->a), KnownMultiple(b->b));
      return p ? *p : 1;
    }
    default:
      return 1;
  }
}

}  // namespace tilejit::codegen
