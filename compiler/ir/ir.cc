// SPDX-License-Identifier: Apache-2.0
#include "compiler/ir/ir.h"

#include <algorithm>
#include <array>

#include "compiler/target/isa.h"
#include "compiler/target/tile_layout.h"

namespace tilejit::ir {

namespace {

constexpr std::array<std::string_view, 9> kScopeNames = {"gm",  "shared", "fragment", "l1", "l0a",
                                                         "l0b", "l0c",    "ub",       "var"};

}  // namespace

std::optional<DType> ParseDType(std::string_view name) {
  if (name == "float") return DType::kFloat32;
  if (name == "half") return DType::kFloat16;
  if (name == "int") return DType::kInt32;  // TVM's spelling, as "float" is float32
  return target::ParseElementType(name);
}

std::string_view MemScopeName(MemScope s) { return kScopeNames[static_cast<size_t>(s)]; }

std::optional<MemScope> ParseMemScope(std::string_view name) {
  for (size_t i = 0; i < kScopeNames.size(); ++i) {
    if (kScopeNames[i] == name) return static_cast<MemScope>(i);
  }
  return std::nullopt;
}

std::string_view BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kFloorDiv:
      return "//";
    case BinaryOp::kFloorMod:
      return "%";
    case BinaryOp::kMin:
      return "min";
    case BinaryOp::kMax:
      return "max";
    case BinaryOp::kEq:
      return "==";
    case BinaryOp::kNe:
      return "!=";
    case BinaryOp::kLt:
      return "<";
    case BinaryOp::kLe:
      return "<=";
    case BinaryOp::kGt:
      return ">";
    case BinaryOp::kGe:
      return ">=";
    case BinaryOp::kAnd:
      return "and";
    case BinaryOp::kOr:
      return "or";
    case BinaryOp::kBitAnd:
      return "&";
    case BinaryOp::kBitOr:
      return "|";
    case BinaryOp::kBitXor:
      return "^";
    case BinaryOp::kShl:
      return "<<";
    case BinaryOp::kShr:
      return ">>";
  }
  return "?";
}

std::string_view ForKindName(ForKind k) {
  switch (k) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kPipelined:
      return "pipelined";
    case ForKind::kParallel:
      return "parallel";
  }
  return "?";
}

std::string_view TileOpName(TileOpCode op) {
  switch (op) {
#define TILEJIT_X(e, s, f) \
  case TileOpCode::e:      \
    return s;
    TILEJIT_TILE_OPS(TILEJIT_X)
#undef TILEJIT_X
  }
  return "?";
}

TileOpFamily TileOpFamilyOf(TileOpCode op) {
  switch (op) {
#define TILEJIT_X(e, s, f) \
  case TileOpCode::e:      \
    return TileOpFamily::f;
    TILEJIT_TILE_OPS(TILEJIT_X)
#undef TILEJIT_X
  }
  return TileOpFamily::kUnary;
}

size_t SortSources(const TileOpNode& op) {
  switch (op.op) {
    case TileOpCode::kSort32:
      return 2;
    case TileOpCode::kMergeSort: {
      const AttrValue* ways = op.FindAttr("ways");
      return ways != nullptr && std::holds_alternative<int64_t>(*ways)
                 ? static_cast<size_t>(std::get<int64_t>(*ways))
                 : 2;
    }
    default:
      return 1;
  }
}

std::optional<size_t> SortScratch(const TileOpNode& op) {
  if (TileOpFamilyOf(op.op) != TileOpFamily::kSort) return std::nullopt;
  const size_t at = 1 + SortSources(op);
  if (op.args.size() != at + 1) return std::nullopt;
  return at;
}

int64_t SortScratchElements(const TileOpNode& op) {
  auto elements = [&](size_t i) {
    const auto* r = std::get_if<Region>(&op.args[i]);
    return r == nullptr ? 0 : r->num_elements();
  };
  switch (op.op) {
    case TileOpCode::kSort:
    case TileOpCode::kTopK: {
      const AttrValue* count = op.FindAttr("count");
      if (count == nullptr || !std::holds_alternative<int64_t>(*count)) return 0;
      return 6 * target::RoundUp(std::get<int64_t>(*count), target::kSortGroup);
    }
    case TileOpCode::kMergeSort: {
      const size_t ways = SortSources(op);
      if (ways < 3 || op.args.size() < 1 + ways) return 0;
      // The second merged pair of a 4-way merge starts on a 32-byte block (4 proposals).
      const int64_t first = elements(1) + elements(2);
      return ways == 3
                 ? first
                 : target::RoundUp(first, target::kBlockBytes / 4) + elements(3) + elements(4);
    }
    default:
      return 0;
  }
}

std::optional<TileOpCode> ParseTileOp(std::string_view name) {
#define TILEJIT_X(e, s, f) \
  if (name == s) return TileOpCode::e;
  TILEJIT_TILE_OPS(TILEJIT_X)
#undef TILEJIT_X
  return std::nullopt;
}

Var MakeVar(std::string name, DType dtype, SourceLoc loc) {
  return std::make_shared<const VarNode>(VarNode{std::move(name), dtype, loc});
}

bool BufferNode::has_symbolic_dims() const {
  for (const Var& v : dim_symbols)
    if (v != nullptr) return true;
  return false;
}

const Var& BufferNode::DimSymbol(size_t d) const {
  static const Var kNone;
  return d < dim_symbols.size() ? dim_symbols[d] : kNone;
}

int64_t BufferNode::num_elements() const {
  TILEJIT_CHECK(!has_symbolic_dims())
      << "element count of '" << name << "', which has symbolic dims";
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Buffer MakeBuffer(BufferNode node) { return std::make_shared<const BufferNode>(std::move(node)); }

// ---------------------------------------------------------------------------------------------
// Expression builders

Expr IntImm(int64_t v, DType t, SourceLoc loc) { return std::make_shared<IntImmNode>(v, t, loc); }

Expr FloatImm(double v, DType t, SourceLoc loc) {
  return std::make_shared<FloatImmNode>(v, t, loc);
}

Expr BoolImm(bool v, SourceLoc loc) { return IntImm(v ? 1 : 0, DType::kBool, loc); }

Expr Ref(const Var& v, SourceLoc loc) {
  TILEJIT_CHECK(v != nullptr) << "reference to a null var";
  return std::make_shared<VarRefNode>(v, loc.known() ? loc : v->loc);
}

namespace {

bool IsLogicalOrCompare(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
    case BinaryOp::kAnd:
    case BinaryOp::kOr:
      return true;
    default:
      return false;
  }
}

DType ArithResultType(DType a, DType b) {
  if (a == b) return a == DType::kBool ? DType::kInt32 : a;
  if (IsFloat(a) || IsFloat(b)) return DType::kFloat32;
  return DTypeBits(a) >= DTypeBits(b) ? (a == DType::kBool ? DType::kInt32 : a) : b;
}

}  // namespace

Expr Binary(BinaryOp op, Expr a, Expr b, SourceLoc loc) {
  TILEJIT_CHECK(a != nullptr && b != nullptr) << "null operand of " << BinaryOpName(op);
  DType t = IsLogicalOrCompare(op) ? DType::kBool : ArithResultType(a->dtype, b->dtype);
  if (op == BinaryOp::kDiv) t = IsFloat(t) ? t : DType::kFloat32;
  if (op == BinaryOp::kShl || op == BinaryOp::kShr) t = a->dtype;
  return std::make_shared<BinaryNode>(op, std::move(a), std::move(b), t, loc);
}

Expr Unary(UnaryOp op, Expr a, SourceLoc loc) {
  TILEJIT_CHECK(a != nullptr) << "null unary operand";
  DType t = op == UnaryOp::kNot ? DType::kBool : a->dtype;
  return std::make_shared<UnaryNode>(op, std::move(a), t, loc);
}

Expr Select(Expr cond, Expr t, Expr f, SourceLoc loc) {
  TILEJIT_CHECK(cond && t && f) << "null operand of select";
  DType ty = ArithResultType(t->dtype, f->dtype);
  if (t->dtype == f->dtype) ty = t->dtype;
  return std::make_shared<SelectNode>(std::move(cond), std::move(t), std::move(f), ty, loc);
}

Expr Load(Buffer b, std::vector<Expr> indices, SourceLoc loc) {
  TILEJIT_CHECK(b != nullptr) << "load from a null buffer";
  return std::make_shared<LoadNode>(std::move(b), std::move(indices), loc);
}

Expr Call(std::string op, std::vector<Expr> args, DType t, SourceLoc loc) {
  return std::make_shared<CallNode>(std::move(op), std::move(args), t, loc);
}

std::optional<int64_t> AsConstInt(const Expr& e) {
  if (const auto* imm = TryAs<IntImmNode>(e)) return imm->value;
  return std::nullopt;
}

namespace {

using Bound = std::optional<int64_t>;

// `op` on two known bounds; unknown when either is unknown or the result overflows int64 (a
// kernel's constants are the user's, so overflow must not be undefined behaviour here).
template <typename Op>
Bound Checked(Bound p, Bound q, Op op) {
  int64_t r = 0;
  if (!p || !q || op(*p, *q, &r)) return std::nullopt;
  return r;
}
bool AddOverflows(int64_t p, int64_t q, int64_t* r) { return __builtin_add_overflow(p, q, r); }
bool SubOverflows(int64_t p, int64_t q, int64_t* r) { return __builtin_sub_overflow(p, q, r); }
bool MulOverflows(int64_t p, int64_t q, int64_t* r) { return __builtin_mul_overflow(p, q, r); }

// min/max of two bounds where one known side already bounds the result (the upper bound of a
// min, the lower bound of a max) and where both must be known (the other side).
Bound EitherMin(Bound p, Bound q) { return p && q ? std::min(*p, *q) : p ? p : q; }
Bound EitherMax(Bound p, Bound q) { return p && q ? std::max(*p, *q) : p ? p : q; }
Bound BothMin(Bound p, Bound q) { return p && q ? Bound(std::min(*p, *q)) : std::nullopt; }
Bound BothMax(Bound p, Bound q) { return p && q ? Bound(std::max(*p, *q)) : std::nullopt; }

Bound FloorDiv(Bound p, int64_t q) {  // q > 0
  if (!p) return std::nullopt;
  return *p / q - (*p % q != 0 && *p < 0 ? 1 : 0);
}

// A comparison is 1 or 0; decided when the operands' ranges do not overlap.
IntBounds CompareBounds(BinaryOp op, const IntBounds& x, const IntBounds& y) {
  const bool lt = op == BinaryOp::kLt || op == BinaryOp::kLe;
  const bool strict = op == BinaryOp::kLt || op == BinaryOp::kGt;
  const IntBounds& lo_side = lt ? x : y;  // the side claimed smaller
  const IntBounds& hi_side = lt ? y : x;
  if (lo_side.hi && hi_side.lo &&
      (strict ? *lo_side.hi < *hi_side.lo : *lo_side.hi <= *hi_side.lo)) {
    return {1, 1};
  }
  if (lo_side.lo && hi_side.hi &&
      (strict ? *lo_side.lo >= *hi_side.hi : *lo_side.lo > *hi_side.hi)) {
    return {0, 0};
  }
  return {0, 1};
}

}  // namespace

// Interval arithmetic over the integer operators; a VarRef or anything else is unbounded.
IntBounds IntBoundsOf(const Expr& e) {
  if (const std::optional<int64_t> c = AsConstInt(e)) return {c, c};
  if (e->kind != ExprKind::kBinary) return {};
  const auto& b = As<BinaryNode>(e);
  const IntBounds x = IntBoundsOf(b.a);
  const IntBounds y = IntBoundsOf(b.b);
  const Bound c = AsConstInt(b.b);
  switch (b.op) {
    case BinaryOp::kAdd:
      return {Checked(x.lo, y.lo, AddOverflows), Checked(x.hi, y.hi, AddOverflows)};
    case BinaryOp::kSub:
      return {Checked(x.lo, y.hi, SubOverflows), Checked(x.hi, y.lo, SubOverflows)};
    case BinaryOp::kFloorMod:
      if (c && *c > 0) return {0, *c - 1};
      return {};
    case BinaryOp::kFloorDiv:
      if (!c || *c <= 0) return {};
      return {FloorDiv(x.lo, *c), FloorDiv(x.hi, *c)};
    case BinaryOp::kMul:
      if (!c || *c < 0) return {};
      return {Checked(x.lo, c, MulOverflows), Checked(x.hi, c, MulOverflows)};
    case BinaryOp::kMin:
      return {BothMin(x.lo, y.lo), EitherMin(x.hi, y.hi)};
    case BinaryOp::kMax:
      return {EitherMax(x.lo, y.lo), BothMax(x.hi, y.hi)};
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
      return CompareBounds(b.op, x, y);
    default:
      return {};
  }
}

// ---------------------------------------------------------------------------------------------
// Regions

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::vector<int64_t> Region::TrimmedShape() const {
  std::vector<int64_t> shape;
  for (const Range& r : ranges) {
    if (shape.empty() && r.extent == 1) continue;
    shape.push_back(r.extent);
  }
  if (shape.empty()) shape.push_back(1);
  return shape;
}

int64_t Region::num_elements() const {
  int64_t n = 1;
  for (const Range& r : ranges) n *= r.extent;
  return n;
}

Region WholeBuffer(const Buffer& b, SourceLoc loc) {
  Region r{b, {}, loc.known() ? loc : b->loc};
  for (int64_t d : b->shape) r.ranges.push_back(Range{IntImm(0), d});
  return r;
}

// ---------------------------------------------------------------------------------------------
// Statements

TileOpNode::TileOpNode(TileOpCode o, std::vector<Operand> a, std::vector<Attr> at, SourceLoc l)
    : StmtNode(StmtKind::kTileOp, l), op(o), args(std::move(a)), attrs(std::move(at)) {
  std::sort(attrs.begin(), attrs.end(), [](const Attr& x, const Attr& y) { return x.key < y.key; });
}

const AttrValue* TileOpNode::FindAttr(std::string_view key) const {
  for (const Attr& a : attrs) {
    if (a.key == key) return &a.value;
  }
  return nullptr;
}

Stmt Seq(std::vector<Stmt> stmts, SourceLoc loc) {
  return std::make_shared<SeqNode>(std::move(stmts), loc);
}

Stmt FlatSeq(const std::vector<Stmt>& stmts, SourceLoc loc) {
  std::vector<Stmt> flat;
  for (const Stmt& c : stmts) {
    if (c != nullptr && c->kind == StmtKind::kSeq) {
      const auto& inner = static_cast<const SeqNode&>(*c).stmts;
      flat.insert(flat.end(), inner.begin(), inner.end());
    } else {
      flat.push_back(c);
    }
  }
  return flat.size() == 1 ? flat.front() : Seq(std::move(flat), loc);
}

Stmt MakeTileOp(TileOpCode op, std::vector<Operand> args, std::vector<Attr> attrs, SourceLoc loc) {
  return std::make_shared<TileOpNode>(op, std::move(args), std::move(attrs), loc);
}

SyncOrigin SyncOriginOf(const StmtNode& s) {
  switch (s.kind) {
    case StmtKind::kBarrier:
      return static_cast<const BarrierNode&>(s).origin;
    case StmtKind::kSetFlag:
    case StmtKind::kWaitFlag:
      return static_cast<const FlagNode&>(s).origin;
    case StmtKind::kSetCrossFlag:
    case StmtKind::kWaitCrossFlag:
      return static_cast<const CrossFlagNode&>(s).origin;
    default:
      return SyncOrigin::kAuthor;
  }
}

}  // namespace tilejit::ir
