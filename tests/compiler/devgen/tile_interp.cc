// SPDX-License-Identifier: Apache-2.0
// The interpreter's control flow, scalar expressions and region resolution. Every element
// carries a written bit, so a generated kernel that read something it never wrote is caught
// here, in the reference, rather than blamed on the compiler.
#include "tile_interp.h"

#include <cmath>

#include "runner/sim/half.h"
#include "tile_interp_internal.h"

namespace tilejit::devgen {
namespace internal {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

Scalar Int(int64_t v) { return {false, v, 0}; }
Scalar Float(double v) { return {true, 0, v}; }

Result<Scalar> Combine(ir::BinaryOp op, Scalar a, Scalar b) {
  using B = ir::BinaryOp;
  const bool fl = a.is_float || b.is_float || op == B::kDiv;
  const double x = a.AsDouble(), y = b.AsDouble();
  switch (op) {
    case B::kAdd:
      return fl ? Float(x + y) : Int(a.i + b.i);
    case B::kSub:
      return fl ? Float(x - y) : Int(a.i - b.i);
    case B::kMul:
      return fl ? Float(x * y) : Int(a.i * b.i);
    case B::kDiv:
      return Float(x / y);
    case B::kFloorDiv:
      if (fl) return Float(std::floor(x / y));
      if (b.i == 0) return InvalidArgument("integer division by zero");
      return Int(FloorDiv(a.i, b.i));
    case B::kFloorMod:
      if (fl) return Float(x - std::floor(x / y) * y);
      if (b.i == 0) return InvalidArgument("integer modulo by zero");
      return Int(a.i - FloorDiv(a.i, b.i) * b.i);
    case B::kMin:
      return fl ? Float(std::min(x, y)) : Int(std::min(a.i, b.i));
    case B::kMax:
      return fl ? Float(std::max(x, y)) : Int(std::max(a.i, b.i));
    case B::kEq:
      return Int(x == y);
    case B::kNe:
      return Int(x != y);
    case B::kLt:
      return Int(x < y);
    case B::kLe:
      return Int(x <= y);
    case B::kGt:
      return Int(x > y);
    case B::kGe:
      return Int(x >= y);
    case B::kAnd:
      return Int(x != 0 && y != 0);
    case B::kOr:
      return Int(x != 0 || y != 0);
    case B::kBitAnd:
    case B::kBitOr:
    case B::kBitXor:
    case B::kShl:
    case B::kShr:
      if (fl) return InvalidArgument("bitwise operator on a float");
      if (op == B::kBitAnd) return Int(a.i & b.i);
      if (op == B::kBitOr) return Int(a.i | b.i);
      if (op == B::kBitXor) return Int(a.i ^ b.i);
      if (b.i < 0 || b.i > 63) return InvalidArgument("shift count out of range");
      return Int(op == B::kShl ? static_cast<int64_t>(static_cast<uint64_t>(a.i) << b.i)
                               : a.i >> b.i);
  }
  return InvalidArgument("unknown binary operator");
}

// Whether a tile op runs on the cube (by the memories it touches).
bool IsCubeOp(const ir::TileOpNode& op) {
  if (op.op == ir::TileOpCode::kGemmV0 || op.op == ir::TileOpCode::kMma) return true;
  for (const ir::Operand& a : op.args) {
    const ir::Region* r = std::get_if<ir::Region>(&a);
    if (r == nullptr) continue;
    switch (r->buffer->scope) {
      case ir::MemScope::kL1:
      case ir::MemScope::kL0A:
      case ir::MemScope::kL0B:
      case ir::MemScope::kL0C:
      case ir::MemScope::kFragment:
        return true;
      default:
        break;
    }
  }
  return false;
}

}  // namespace

int64_t View::Offset(int64_t i) const {
  const std::vector<int64_t>& shape = st->buffer->shape;
  int64_t off = 0;
  for (int64_t d = static_cast<int64_t>(extents.size()) - 1, rest = i; d >= 0; --d) {
    const int64_t idx = mins[d] + rest % extents[d];
    rest /= extents[d];
    if (idx < 0 || idx >= shape[d]) return -1;
    int64_t stride = 1;
    for (size_t e = d + 1; e < shape.size(); ++e) stride *= shape[e];
    off += idx * stride;
  }
  return off;
}

Status Interp::Error(SourceLoc loc, const std::string& message) const {
  return InvalidArgument("interpreter: line " + std::to_string(loc.line) + ": " + message);
}

Storage* Interp::StorageOf(const ir::Buffer& b) {
  auto& table = b->scope == ir::MemScope::kGM ? gm_ : onchip_;
  auto it = table.find(b.get());
  if (it != table.end()) return it->second.get();
  auto st = std::make_unique<Storage>();
  st->buffer = b;
  st->data.assign(static_cast<size_t>(b->num_elements()), 0.0);
  st->written.assign(st->data.size(), 0);
  Storage* raw = st.get();
  table[b.get()] = std::move(st);
  return raw;
}

Result<Scalar> Interp::Eval(const ir::Expr& e) {
  switch (e->kind) {
    case ir::ExprKind::kIntImm:
      return Int(ir::As<ir::IntImmNode>(e).value);
    case ir::ExprKind::kFloatImm:
      return Float(ir::As<ir::FloatImmNode>(e).value);
    case ir::ExprKind::kVarRef: {
      auto it = vars_.find(ir::As<ir::VarRefNode>(e).var.get());
      if (it == vars_.end()) return Error(e->loc, "unbound variable");
      return it->second;
    }
    case ir::ExprKind::kBinary: {
      const auto& b = ir::As<ir::BinaryNode>(e);
      TILEJIT_ASSIGN_OR_RETURN(Scalar x, Eval(b.a));
      TILEJIT_ASSIGN_OR_RETURN(Scalar y, Eval(b.b));
      return Combine(b.op, x, y);
    }
    case ir::ExprKind::kUnary: {
      const auto& u = ir::As<ir::UnaryNode>(e);
      TILEJIT_ASSIGN_OR_RETURN(Scalar x, Eval(u.a));
      if (u.op == ir::UnaryOp::kNot) return Int(x.AsDouble() == 0);
      if (u.op == ir::UnaryOp::kBitNot) return Int(~x.i);
      return x.is_float ? Float(-x.f) : Int(-x.i);
    }
    case ir::ExprKind::kSelect: {
      const auto& s = ir::As<ir::SelectNode>(e);
      TILEJIT_ASSIGN_OR_RETURN(Scalar c, Eval(s.cond));
      return Eval(c.AsDouble() != 0 ? s.t : s.f);
    }
    case ir::ExprKind::kLoad: {
      const auto& l = ir::As<ir::LoadNode>(e);
      ir::Region r{l.buffer, {}, l.loc};
      for (const ir::Expr& idx : l.indices) r.ranges.push_back({idx, 1});
      TILEJIT_ASSIGN_OR_RETURN(View v, Resolve(r, e->loc));
      TILEJIT_ASSIGN_OR_RETURN(double x, Read(v, 0, e->loc));
      if (ir::IsFloat(l.buffer->dtype)) return Float(x);
      return Int(static_cast<int64_t>(x));
    }
    case ir::ExprKind::kCall: {
      const auto& c = ir::As<ir::CallNode>(e);
      if (c.args.empty()) return Error(e->loc, "call without arguments");
      TILEJIT_ASSIGN_OR_RETURN(Scalar x, Eval(c.args[0]));
      const double v = x.AsDouble();
      if (c.op == "cast") {
        if (ir::IsFloat(c.dtype)) return Float(RoundTo(c.dtype, v));
        return Int(static_cast<int64_t>(v));
      }
      if (c.op == "exp") return Float(std::exp(v));
      if (c.op == "log") return Float(std::log(v));
      if (c.op == "sqrt") return Float(std::sqrt(v));
      if (c.op == "rsqrt") return Float(1.0 / std::sqrt(v));
      if (c.op == "abs") return x.is_float ? Float(std::fabs(v)) : Int(std::llabs(x.i));
      return Error(e->loc, "unknown scalar call " + c.op);
    }
  }
  return Error(e->loc, "unknown expression");
}

Result<View> Interp::Resolve(const ir::Region& r, SourceLoc loc) {
  View v;
  v.st = StorageOf(r.buffer);
  v.count = 1;
  for (size_t d = 0; d < r.ranges.size(); ++d) {
    TILEJIT_ASSIGN_OR_RETURN(Scalar m, Eval(r.ranges[d].min));
    v.mins.push_back(m.AsInt());
    v.extents.push_back(r.ranges[d].extent);
    v.count *= r.ranges[d].extent;
    const bool gm = r.buffer->scope == ir::MemScope::kGM;
    if (m.AsInt() < 0 || (gm ? m.AsInt() >= r.buffer->shape[d]
                             : m.AsInt() + r.ranges[d].extent > r.buffer->shape[d])) {
      return Error(loc, "region of '" + r.buffer->name + "' out of bounds in dim " +
                            std::to_string(d) + " (min " + std::to_string(m.AsInt()) + ")");
    }
  }
  size_t lead = 0;
  while (lead + 1 < v.extents.size() && v.extents[lead] == 1) ++lead;
  v.trimmed.assign(v.extents.begin() + static_cast<int64_t>(lead), v.extents.end());
  return v;
}

Result<double> Interp::Read(const View& v, int64_t i, SourceLoc loc, double pad) {
  const int64_t off = v.Offset(i);
  if (off < 0) return pad;
  if (!v.st->written[off]) {
    return Error(loc, "read of never-written element " + std::to_string(off) + " of '" +
                          v.st->buffer->name + "'");
  }
  return v.st->data[off];
}

void Interp::WriteElem(const View& v, int64_t i, double value) {
  const int64_t off = v.Offset(i);
  if (off < 0) return;  // a GM tail: the copy clips it
  v.st->data[off] = RoundTo(v.st->buffer->dtype, value);
  v.st->written[off] = 1;
}

bool Interp::InPart(const ir::TileOpNode& op) const {
  if (part_ == Part::kAll) return true;
  if (scope_ != Part::kAll) return scope_ == part_;
  return IsCubeOp(op) == (part_ == Part::kCube);
}

Status Interp::Exec(const ir::Stmt& s) {
  if (s == nullptr) return Status::Ok();
  switch (s->kind) {
    case ir::StmtKind::kSeq:
      for (const ir::Stmt& c : ir::As<ir::SeqNode>(s).stmts) TILEJIT_RETURN_IF_ERROR(Exec(c));
      return Status::Ok();
    case ir::StmtKind::kAllocate: {
      const ir::Buffer& b = ir::As<ir::AllocateNode>(s).buffer;
      onchip_.erase(b.get());  // a fresh, never-written buffer
      StorageOf(b);
      return Status::Ok();
    }
    case ir::StmtKind::kFor:
      return ExecFor(ir::As<ir::ForNode>(s));
    case ir::StmtKind::kIf: {
      const auto& n = ir::As<ir::IfNode>(s);
      TILEJIT_ASSIGN_OR_RETURN(Scalar c, Eval(n.cond));
      return Exec(c.AsDouble() != 0 ? n.then_body : n.else_body);
    }
    case ir::StmtKind::kLet: {
      const auto& n = ir::As<ir::LetNode>(s);
      TILEJIT_ASSIGN_OR_RETURN(Scalar v, Eval(n.value));
      vars_[n.var.get()] = v;
      Status st = Exec(n.body);
      vars_.erase(n.var.get());
      return st;
    }
    case ir::StmtKind::kStore: {
      const auto& n = ir::As<ir::StoreNode>(s);
      if (part_ == Part::kCube) return Status::Ok();  // scalar stores feed vector work
      ir::Region r{n.buffer, {}, n.loc};
      for (const ir::Expr& idx : n.indices) r.ranges.push_back({idx, 1});
      TILEJIT_ASSIGN_OR_RETURN(View v, Resolve(r, n.loc));
      TILEJIT_ASSIGN_OR_RETURN(Scalar x, Eval(n.value));
      WriteElem(v, 0, x.AsDouble());
      return Status::Ok();
    }
    case ir::StmtKind::kTileOp: {
      const auto& op = ir::As<ir::TileOpNode>(s);
      return InPart(op) ? TileOp(op) : Status::Ok();
    }
    case ir::StmtKind::kCoreScope: {
      const auto& n = ir::As<ir::CoreScopeNode>(s);
      const Part saved = scope_;
      scope_ = n.core == ir::CoreKind::kCube ? Part::kCube : Part::kVector;
      Status st = Exec(n.body);
      scope_ = saved;
      return st;
    }
    case ir::StmtKind::kKernel:
      return Error(s->loc, "nested launch");
    default:  // barriers, flags, cross flags: ordering only, no data effect
      return Status::Ok();
  }
}

Status Interp::ExecFor(const ir::ForNode& f) {
  TILEJIT_ASSIGN_OR_RETURN(Scalar mn, Eval(f.min));
  TILEJIT_ASSIGN_OR_RETURN(Scalar ext, Eval(f.extent));
  for (int64_t i = mn.AsInt(); i < mn.AsInt() + ext.AsInt(); ++i) {
    vars_[f.var.get()] = Int(i);
    TILEJIT_RETURN_IF_ERROR(Exec(f.body));
  }
  vars_.erase(f.var.get());
  return Status::Ok();
}

Status Interp::ExecBlock(const ir::KernelNode& k, int64_t cid, int64_t vid, Part part) {
  onchip_.clear();
  vars_[k.cid.get()] = Int(cid);
  vars_[k.vid.get()] = Int(vid);
  part_ = part;
  scope_ = Part::kAll;
  return Exec(k.body);
}

Status Interp::Run(const ir::Kernel& kernel, const std::vector<HostTensor>& inputs,
                   std::vector<HostTensor>* outputs) {
  size_t next_input = 0;
  for (const ir::Buffer& p : kernel.params) {
    Storage* st = StorageOf(p);
    if (p->role != ir::BufferRole::kInput) continue;
    if (next_input >= inputs.size()) return InvalidArgument("interpreter: too few inputs");
    const HostTensor& in = inputs[next_input++];
    if (in.data.size() != st->data.size()) {
      return InvalidArgument("interpreter: input '" + p->name + "' has the wrong size");
    }
    for (size_t i = 0; i < in.data.size(); ++i) st->data[i] = RoundTo(p->dtype, in.data[i]);
    st->written.assign(st->written.size(), 1);
  }
  // Prelude lets (outside the launch) bind before the launch runs.
  ir::Stmt body = kernel.body;
  while (body != nullptr && body->kind == ir::StmtKind::kLet) {
    const auto& l = ir::As<ir::LetNode>(body);
    TILEJIT_ASSIGN_OR_RETURN(Scalar v, Eval(l.value));
    vars_[l.var.get()] = v;
    body = l.body;
  }
  const ir::KernelNode* k = ir::TryAs<ir::KernelNode>(body);
  if (k == nullptr) return InvalidArgument("interpreter: the body is not a launch");
  TILEJIT_ASSIGN_OR_RETURN(Scalar grid, Eval(k->grid));
  for (int64_t b = 0; b < grid.AsInt(); ++b) {
    if (k->threads != 0) {
      TILEJIT_RETURN_IF_ERROR(ExecBlock(*k, b, 0, Part::kAll));
      continue;
    }
    TILEJIT_RETURN_IF_ERROR(ExecBlock(*k, b, 0, Part::kCube));
    TILEJIT_RETURN_IF_ERROR(ExecBlock(*k, b, 0, Part::kVector));
    TILEJIT_RETURN_IF_ERROR(ExecBlock(*k, b, 1, Part::kVector));
  }
  for (int idx : kernel.out_idx) {
    const Storage* st = StorageOf(kernel.params[static_cast<size_t>(idx)]);
    for (size_t i = 0; i < st->written.size(); ++i) {
      if (!st->written[i]) {
        return InvalidArgument("interpreter: element " + std::to_string(i) + " of output '" +
                               st->buffer->name + "' is never written");
      }
    }
    outputs->push_back({st->buffer->dtype, st->buffer->shape, st->data});
  }
  return Status::Ok();
}

}  // namespace internal

double RoundTo(ir::DType dtype, double value) {
  switch (dtype) {
    case ir::DType::kFloat32:
      return static_cast<float>(value);
    case ir::DType::kFloat16:
      return runner::sim::HalfToFloat(runner::sim::FloatToHalf(static_cast<float>(value)));
    case ir::DType::kBFloat16:
      return runner::sim::Bf16ToFloat(runner::sim::FloatToBf16(static_cast<float>(value)));
    case ir::DType::kBool:
      return value != 0 ? 1 : 0;
    default:
      return std::nearbyint(value);  // integers: round to nearest even, like the device
  }
}

Result<std::vector<HostTensor>> Interpret(const ir::Kernel& kernel,
                                          const std::vector<HostTensor>& inputs) {
  internal::Interp interp;
  std::vector<HostTensor> outputs;
  TILEJIT_RETURN_IF_ERROR(interp.Run(kernel, inputs, &outputs));
  return outputs;
}

}  // namespace tilejit::devgen
