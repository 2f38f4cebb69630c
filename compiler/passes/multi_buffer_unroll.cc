// SPDX-License-Identifier: Apache-2.0
// Why unroll instead of indexing slots with `k % S` (TileLang's InjectSoftwarePipeline): with
// a runtime slot index every access covers all slots as far as an address-based analysis can
// tell, so sync_insert would order slot 1's refill behind slot 0's readers and the copies
// could never overlap. Unrolled, each copy of the body names plain distinct buffers and every
// later pass (planning, sync, codegen) needs no notion of a slot.
//
// Copies of the body get fresh Vars for their lets and loops (a Var is its pointer and the
// verifier rejects a var bound twice) and new statement nodes throughout, so no statement
// node appears twice in the kernel.
#include <memory>
#include <optional>
#include <unordered_map>

#include "compiler/ir/mutator.h"
#include "compiler/passes/multi_buffer_internal.h"

namespace tilejit::passes::multi_buffer_internal {
namespace {

using ir::Expr;
using ir::Stmt;

template <typename T>
Stmt Renew(const Stmt& out, const Stmt& in) {
  if (out != in) return out;
  return std::make_shared<T>(ir::As<T>(in));
}

// One copy of a loop body for one slot, with the loop var replaced by its value.
class BodyCloner : public ir::Mutator {
 public:
  BodyCloner(const ir::Var& loop_var, Expr value, const std::vector<Version>& versions, int slot)
      : slot_(slot) {
    vars_[loop_var.get()] = std::move(value);
    if (slot == 0) return;
    for (const Version& v : versions) {
      if (v.remap_dim0) {
        remapped_[v.buffer.get()] = true;
      } else {
        buffers_[v.buffer.get()] = v.slots[slot - 1];
      }
    }
  }

  ir::Buffer MutateBuffer(const ir::Buffer& b) override {
    auto it = buffers_.find(b.get());
    return it == buffers_.end() ? b : it->second;
  }

  ir::Region MutateRegion(const ir::Region& r) override {
    ir::Region out = ir::Mutator::MutateRegion(r);
    if (remapped_.count(r.buffer.get()) != 0) {
      out.ranges[0].min = ir::IntImm(slot_, r.ranges[0].min->dtype, r.ranges[0].min->loc);
    }
    return out;
  }

 protected:
  Expr MutateVarRef(const Expr& e, const ir::VarRefNode& op) override {
    auto it = vars_.find(op.var.get());
    return it == vars_.end() ? e : it->second;
  }

  // Folds integer arithmetic on constants, so a copy's `k * 64` becomes `128`, not `2 * 64`.
  Expr MutateBinary(const Expr& e, const ir::BinaryNode& op) override {
    Expr out = ir::Mutator::MutateBinary(e, op);
    const auto* b = ir::TryAs<ir::BinaryNode>(out);
    if (b == nullptr || !ir::IsInt(b->dtype)) return out;
    std::optional<int64_t> x = ir::AsConstInt(b->a), y = ir::AsConstInt(b->b);
    if (!x || !y) return out;
    switch (b->op) {
      case ir::BinaryOp::kAdd:
        return ir::IntImm(*x + *y, b->dtype, b->loc);
      case ir::BinaryOp::kSub:
        return ir::IntImm(*x - *y, b->dtype, b->loc);
      case ir::BinaryOp::kMul:
        return ir::IntImm(*x * *y, b->dtype, b->loc);
      default:
        return out;
    }
  }

  Expr MutateLoad(const Expr& e, const ir::LoadNode& op) override {
    Expr out = ir::Mutator::MutateLoad(e, op);
    if (remapped_.count(op.buffer.get()) == 0 || op.indices.empty()) return out;
    const auto& load = ir::As<ir::LoadNode>(out);
    std::vector<Expr> idx = load.indices;
    idx[0] = ir::IntImm(slot_, idx[0]->dtype, idx[0]->loc);
    return std::make_shared<ir::LoadNode>(load.buffer, std::move(idx), load.loc);
  }

  Stmt MutateLet(const Stmt& /*s*/, const ir::LetNode& op) override {
    Expr value = Mutate(op.value);
    ir::Var fresh = Rebind(op.var);
    return std::make_shared<ir::LetNode>(fresh, value, Mutate(op.body), op.loc);
  }

  Stmt MutateFor(const Stmt& /*s*/, const ir::ForNode& op) override {
    Expr min = Mutate(op.min);
    Expr extent = Mutate(op.extent);
    ir::Var fresh = Rebind(op.var);
    return std::make_shared<ir::ForNode>(fresh, min, extent, op.for_kind, op.num_stages,
                                         Mutate(op.body), op.loc);
  }

  Stmt MutateSeq(const Stmt& s, const ir::SeqNode& op) override {
    return Renew<ir::SeqNode>(ir::Mutator::MutateSeq(s, op), s);
  }
  Stmt MutateIf(const Stmt& s, const ir::IfNode& op) override {
    return Renew<ir::IfNode>(ir::Mutator::MutateIf(s, op), s);
  }
  Stmt MutateStore(const Stmt& s, const ir::StoreNode& op) override {
    return Renew<ir::StoreNode>(ir::Mutator::MutateStore(s, op), s);
  }
  Stmt MutateTileOp(const Stmt& s, const ir::TileOpNode& op) override {
    return Renew<ir::TileOpNode>(ir::Mutator::MutateTileOp(s, op), s);
  }
  Stmt MutateBarrier(const Stmt& s, const ir::BarrierNode& op) override {
    return Renew<ir::BarrierNode>(ir::Mutator::MutateBarrier(s, op), s);
  }
  Stmt MutateFlag(const Stmt& s, const ir::FlagNode& op) override {
    return Renew<ir::FlagNode>(ir::Mutator::MutateFlag(s, op), s);
  }
  Stmt MutateCrossFlag(const Stmt& s, const ir::CrossFlagNode& op) override {
    return Renew<ir::CrossFlagNode>(ir::Mutator::MutateCrossFlag(s, op), s);
  }
  Stmt MutateCoreScope(const Stmt& s, const ir::CoreScopeNode& op) override {
    return Renew<ir::CoreScopeNode>(ir::Mutator::MutateCoreScope(s, op), s);
  }

 private:
  ir::Var Rebind(const ir::Var& old) {
    ir::Var fresh = ir::MakeVar(old->name, old->dtype, old->loc);
    vars_[old.get()] = ir::Ref(fresh, old->loc);
    return fresh;
  }

  int slot_;
  ir::VarMap vars_;
  ir::BufferMap buffers_;
  std::unordered_map<const ir::BufferNode*, bool> remapped_;
};

Expr Imm(int64_t v, const ir::Var& like, SourceLoc loc) { return ir::IntImm(v, like->dtype, loc); }

// min + base + i, folding zeros and constants.
Expr IterationValue(const Expr& min, const Expr& base, int64_t i, const ir::Var& like,
                    SourceLoc loc) {
  std::optional<int64_t> cmin = ir::AsConstInt(min);
  std::optional<int64_t> cbase = base == nullptr ? std::optional<int64_t>(0) : ir::AsConstInt(base);
  if (cmin && cbase) return Imm(*cmin + *cbase + i, like, loc);
  Expr e = base;
  if (e == nullptr || ir::AsConstInt(e) == 0) {
    e = min;
  } else if (cmin != 0) {
    e = ir::Binary(ir::BinaryOp::kAdd, min, e, loc);
  }
  if (i != 0) e = ir::Binary(ir::BinaryOp::kAdd, e, Imm(i, like, loc), loc);
  return e;
}

// e - 1, folding `x + c` to `x + (c - 1)` (trip counts like `cid % 3 + 1`): index arithmetic
// one level shallower needs fewer scalar registers.
Expr MinusOne(const Expr& e, const ir::Var& like, SourceLoc loc) {
  if (const auto* b = e->kind == ir::ExprKind::kBinary ? &ir::As<ir::BinaryNode>(e) : nullptr) {
    const std::optional<int64_t> c = ir::AsConstInt(b->b);
    if (b->op == ir::BinaryOp::kAdd && c) {
      return *c == 1 ? b->a : ir::Binary(ir::BinaryOp::kAdd, b->a, Imm(*c - 1, like, loc), loc);
    }
  }
  return ir::Binary(ir::BinaryOp::kSub, e, Imm(1, like, loc), loc);
}

// One group of consecutive copies, interleaved where dependences allow.
Stmt Group(std::vector<Stmt> copies, bool per_family, SourceLoc loc) {
  Stmt interleaved = Interleave(copies, per_family, loc);
  return interleaved != nullptr ? interleaved : ir::Seq(std::move(copies), loc);
}

}  // namespace

Stmt UnrollLoop(const ir::ForNode& loop, int stages, const std::vector<Version>& versions,
                bool per_family, const ir::ForNode** group_loop) {
  const SourceLoc loc = loop.loc;
  const ir::Var& k = loop.var;
  auto copy = [&](const Expr& value, int slot) {
    return BodyCloner(k, value, versions, slot).Mutate(loop.body);
  };
  *group_loop = nullptr;
  std::vector<Stmt> out;
  auto add_group_loop = [&](const Expr& groups) {
    ir::Var g = ir::MakeVar(k->name, k->dtype, k->loc);
    Expr base = ir::Binary(ir::BinaryOp::kMul, ir::Ref(g, loc), Imm(stages, k, loc), loc);
    std::vector<Stmt> body;
    for (int i = 0; i < stages; ++i)
      body.push_back(copy(IterationValue(loop.min, base, i, k, loc), i));
    auto f = std::make_shared<ir::ForNode>(g, Imm(0, k, loc), groups, ir::ForKind::kSerial, 0,
                                           Group(std::move(body), per_family, loop.body->loc), loc);
    *group_loop = f.get();
    out.push_back(f);
  };
  auto group_copies = [&](const Expr& base) {
    std::vector<Stmt> copies;
    for (int i = 0; i < stages; ++i)
      copies.push_back(copy(IterationValue(loop.min, base, i, k, loc), i));
    return copies;
  };
  // Static extent with two or more groups: the loop software-pipelined by one stage.
  auto add_rotated = [&](int64_t groups) {
    const SourceLoc bl = loop.body->loc;
    ir::Var g = ir::MakeVar(k->name, k->dtype, k->loc);
    Expr cur = Imm(0, k, loc), next = Imm(stages, k, loc);
    if (groups > 2) {
      cur = ir::Binary(ir::BinaryOp::kMul, ir::Ref(g, loc), Imm(stages, k, loc), loc);
      next = ir::Binary(ir::BinaryOp::kAdd, cur, Imm(stages, k, loc), loc);
    }
    std::optional<Rotation> r =
        Rotate(group_copies(nullptr), group_copies(cur), group_copies(next),
               group_copies(Imm((groups - 1) * stages, k, loc)), per_family, bl);
    if (!r) return false;
    out.push_back(r->prologue);
    if (groups > 2) {
      auto f = std::make_shared<ir::ForNode>(g, Imm(0, k, loc), Imm(groups - 1, k, loc),
                                             ir::ForKind::kSerial, 0, r->body, loc);
      *group_loop = f.get();
      out.push_back(f);
    } else {
      out.push_back(r->body);
    }
    out.push_back(r->epilogue);
    return true;
  };
  if (std::optional<int64_t> n = ir::AsConstInt(loop.extent)) {
    const int64_t groups = *n / stages;
    if (groups >= 2) {
      if (!add_rotated(groups)) add_group_loop(Imm(groups, k, loc));
    } else if (groups == 1) {
      std::vector<Stmt> group;
      for (int i = 0; i < stages; ++i)
        group.push_back(copy(IterationValue(loop.min, nullptr, i, k, loc), i));
      out.push_back(Group(std::move(group), per_family, loop.body->loc));
    }
    const Expr done = Imm(groups * stages, k, loc);
    for (int i = 0; i < *n % stages; ++i)
      out.push_back(copy(IterationValue(loop.min, done, i, k, loc), i));
  } else if (ir::IntBoundsOf(loop.extent).lo.value_or(0) >= 1) {
    // At least one trip (e.g. `cid % 3 + 1`): the groups before the last, then the last
    // group's copy 0 unconditionally and its others under `if`s. With `n // S` groups and a
    // tail of `if (n % S > i)`, sync analysis would also walk the path "no group and no tail",
    // which never runs, and keep syncs only that path needs.
    const Expr s = Imm(stages, k, loc);
    const Expr m = MinusOne(loop.extent, k, loc);
    const Expr groups = ir::Binary(ir::BinaryOp::kFloorDiv, m, s, loc);
    add_group_loop(groups);
    // The last group's first iteration is a let: its copies index with `base + i` instead of
    // repeating the whole expression (fewer scalar registers in deep index arithmetic).
    ir::Var last = ir::MakeVar(k->name, k->dtype, k->loc);
    const Expr base = ir::Ref(last, loc);
    const Expr rest = ir::Binary(ir::BinaryOp::kFloorMod, m, s, loc);
    std::vector<Stmt> tail{copy(IterationValue(loop.min, base, 0, k, loc), 0)};
    for (int i = 1; i < stages; ++i) {
      Expr cond = ir::Binary(ir::BinaryOp::kGe, rest, Imm(i, k, loc), loc);
      tail.push_back(std::make_shared<ir::IfNode>(
          cond, copy(IterationValue(loop.min, base, i, k, loc), i), nullptr, loc));
    }
    out.push_back(std::make_shared<ir::LetNode>(
        last, ir::Binary(ir::BinaryOp::kMul, groups, s, loc), ir::Seq(std::move(tail), loc), loc));
  } else {
    const Expr s = Imm(stages, k, loc);
    const Expr groups = ir::Binary(ir::BinaryOp::kFloorDiv, loop.extent, s, loc);
    add_group_loop(groups);
    const Expr done = ir::Binary(ir::BinaryOp::kMul, groups, s, loc);
    const Expr rest = ir::Binary(ir::BinaryOp::kFloorMod, loop.extent, s, loc);
    for (int i = 0; i + 1 < stages; ++i) {
      Expr cond = ir::Binary(ir::BinaryOp::kGt, rest, Imm(i, k, loc), loc);
      out.push_back(std::make_shared<ir::IfNode>(
          cond, copy(IterationValue(loop.min, done, i, k, loc), i), nullptr, loc));
    }
  }
  if (out.size() == 1) return out.front();
  return ir::Seq(std::move(out), loc);
}

}  // namespace tilejit::passes::multi_buffer_internal
