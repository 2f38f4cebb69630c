// SPDX-License-Identifier: Apache-2.0
// Scope inference runs in two steps: one walk records, per unresolved buffer, how it is used
// (gemm operand positions, vector/scalar uses, the other side of each copy), then the scopes
// are decided in allocation order. Copy-only shared buffers depend on the scopes of their copy
// partners, which may themselves be copy-only, so those are decided by a fixpoint.
//
// The classification is deliberately by use, not by name: the names the author chose
// (`A_L1`, `c_ub`) are hints the canonical IR does not even keep.
#include "compiler/passes/infer_buffer_scope.h"

#include <array>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"

namespace tilejit::passes {
namespace {

using ir::Buffer;
using ir::BufferNode;
using ir::MemScope;
using ir::TileOpCode;

// Gemm operand positions, in argument order: gemm_v0(C, A, B).
constexpr std::array<const char*, 3> kPositionNames = {"C", "A", "B"};
constexpr std::array<MemScope, 3> kPositionScopes = {MemScope::kL0C, MemScope::kL0A,
                                                     MemScope::kL0B};

struct UseSite {
  SourceLoc loc;
  std::string what;  // e.g. "operand A of gemm_v0", "add"
};

struct BufferUses {
  std::array<std::optional<UseSite>, 3> gemm;  // first use in each gemm position
  std::optional<UseSite> vector;               // first vector op or scalar access
  // The first gemm use the alloc kind cannot serve: a fragment as gemm_v0's A or B (read from
  // L1), a shared buffer as a gemm's C or an mma operand (L0 tiles).
  std::optional<UseSite> misfit;
  std::vector<const BufferNode*> copy_partners;
};

bool IsUnresolved(const BufferNode& b) {
  return b.scope == MemScope::kShared || b.scope == MemScope::kFragment;
}

bool IsCubeScope(MemScope s) {
  return s == MemScope::kL1 || s == MemScope::kL0A || s == MemScope::kL0B || s == MemScope::kL0C;
}

// Records the uses of every unresolved buffer.
class UseCollector : public ir::Visitor {
 public:
  std::vector<Buffer> allocs;  // unresolved allocations, in program order
  std::unordered_map<const BufferNode*, BufferUses> uses;

 protected:
  void VisitAllocate(const ir::AllocateNode& op) override {
    if (IsUnresolved(*op.buffer)) allocs.push_back(op.buffer);
  }

  void VisitTileOp(const ir::TileOpNode& op) override {
    const bool gemm = op.op == TileOpCode::kGemmV0 || op.op == TileOpCode::kMma;
    const bool copy = op.op == TileOpCode::kCopy;
    for (size_t i = 0; i < op.args.size(); ++i) {
      const ir::Operand& arg = op.args[i];
      if (const auto* expr = std::get_if<ir::Expr>(&arg)) {
        Visit(*expr);
        continue;
      }
      const ir::Region& region = std::get<ir::Region>(arg);
      for (const ir::Range& r : region.ranges) Visit(r.min);
      const BufferNode* b = region.buffer.get();
      if (gemm && i < 3) {
        GemmUse(op, i, b);
      } else if (copy && op.args.size() == 2) {
        const ir::Region* other = std::get_if<ir::Region>(&op.args[1 - i]);
        if (other != nullptr) Record(b).copy_partners.push_back(other->buffer.get());
      } else {
        Vector(b, op.loc, std::string(ir::TileOpName(op.op)));
      }
    }
    for (const ir::Attr& attr : op.attrs) VisitAttr(attr);
  }

  void VisitLoad(const ir::LoadNode& op) override {
    Vector(op.buffer.get(), op.loc, "a scalar read");
    ir::Visitor::VisitLoad(op);
  }

  void VisitStore(const ir::StoreNode& op) override {
    Vector(op.buffer.get(), op.loc, "a scalar store");
    ir::Visitor::VisitStore(op);
  }

 private:
  BufferUses& Record(const BufferNode* b) { return uses[b]; }

  void GemmUse(const ir::TileOpNode& op, size_t position, const BufferNode* b) {
    if (!IsUnresolved(*b)) return;
    UseSite site{op.loc, std::string("operand ") + kPositionNames[position] + " of " +
                             std::string(ir::TileOpName(op.op))};
    BufferUses& u = Record(b);
    const bool v0 = op.op == TileOpCode::kGemmV0;
    const bool misfit = b->scope == MemScope::kFragment ? v0 && position > 0 : !v0 || position == 0;
    if (misfit && !u.misfit.has_value()) u.misfit = site;
    if (!u.gemm[position].has_value()) u.gemm[position] = std::move(site);
  }

  void Vector(const BufferNode* b, SourceLoc loc, std::string what) {
    if (!IsUnresolved(*b)) return;
    BufferUses& u = Record(b);
    if (!u.vector.has_value()) u.vector = UseSite{loc, std::move(what)};
  }
};

class ScopeResolver {
 public:
  ScopeResolver(const UseCollector& uses, PassContext& ctx) : uses_(uses), ctx_(ctx) {}

  // Decides every unresolved buffer; false after a diagnostic.
  bool Resolve() {
    bool ok = true;
    for (const Buffer& b : uses_.allocs) {
      if (b->scope == MemScope::kFragment) {
        ok = ResolveFragment(*b) && ok;
      } else {
        ok = ResolveShared(*b) && ok;
      }
    }
    ResolveCopyOnly();
    return ok;
  }

  const std::unordered_map<const BufferNode*, MemScope>& scopes() const { return scopes_; }

 private:
  const BufferUses& UsesOf(const BufferNode& b) const {
    static const BufferUses kNone;
    auto it = uses_.uses.find(&b);
    return it == uses_.uses.end() ? kNone : it->second;
  }

  bool ResolveFragment(const BufferNode& b) {
    const BufferUses& u = UsesOf(b);
    if (u.misfit.has_value()) {
      ctx_.diag->Error(b.loc).Note(u.misfit->loc, "used as " + u.misfit->what + " here")
          << "alloc_fragment '" << b.name << "' is used as " << u.misfit->what
          << ", which reads A and B from l1; allocate it with T.alloc_shared (a fragment is an "
             "l0 tile: operands of mma, or a gemm accumulator)";
      return false;
    }
    std::vector<size_t> positions;
    for (size_t i = 0; i < 3; ++i)
      if (u.gemm[i].has_value()) positions.push_back(i);
    if (positions.size() > 1) {
      const UseSite& first = *u.gemm[positions[0]];
      const UseSite& second = *u.gemm[positions[1]];
      ctx_.diag->Error(b.loc)
              .Note(first.loc, "used as " + first.what + " here")
              .Note(second.loc, "used as " + second.what + " here")
          << "alloc_fragment '" << b.name << "' is used as gemm operand "
          << kPositionNames[positions[0]] << " and as operand " << kPositionNames[positions[1]]
          << ": a fragment lives in one cube memory (l0a for A, l0b for B, l0c for C); allocate "
             "one fragment per operand position";
      return false;
    }
    scopes_[&b] = positions.empty() ? MemScope::kL0C : kPositionScopes[positions[0]];
    return true;
  }

  bool ResolveShared(const BufferNode& b) {
    const BufferUses& u = UsesOf(b);
    const UseSite* cube = nullptr;
    for (const auto& site : u.gemm)
      if (site.has_value() && cube == nullptr) cube = &*site;
    if (cube != nullptr && u.vector.has_value()) {
      ctx_.diag->Error(b.loc)
              .Note(cube->loc, "cube work: " + cube->what)
              .Note(u.vector->loc, "vector work: " + u.vector->what)
          << "alloc_shared '" << b.name
          << "' is used by both cube work and vector work, but no on-chip memory is shared by "
             "the cube and vector cores; allocate two buffers (one for the gemm, one for the "
             "vector ops) and T.copy between them";
      return false;
    }
    if (u.misfit.has_value()) {
      ctx_.diag->Error(b.loc).Note(u.misfit->loc, "used as " + u.misfit->what + " here")
          << "alloc_shared '" << b.name << "' is used as " << u.misfit->what
          << ", which needs an l0 tile; allocate it with T.alloc_fragment (a shared buffer is "
             "l1 for gemm_v0's A and B, or ub)";
      return false;
    }
    if (cube != nullptr) {
      scopes_[&b] = MemScope::kL1;
    } else if (u.vector.has_value() || u.copy_partners.empty()) {
      scopes_[&b] = MemScope::kUB;
    } else {
      copy_only_.push_back(&b);
    }
    return true;
  }

  // The scope of a copy partner as far as decided: nullopt while it is an undecided
  // copy-only shared buffer.
  std::optional<MemScope> ScopeOf(const BufferNode* b) const {
    if (!IsUnresolved(*b)) return b->scope;
    auto it = scopes_.find(b);
    if (it == scopes_.end()) return std::nullopt;
    return it->second;
  }

  // A copy-only shared buffer is L1 when all its partners are GM or cube memories other than
  // L1 and at least one is a cube memory; UB as soon as one partner is UB or L1 (there is no
  // L1 -> L1 path; UB -> L1 is staged through GM by legalize_copies). Buffers still undecided
  // at the fixpoint (copied only among themselves and GM) feed no cube work: UB.
  void ResolveCopyOnly() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (const BufferNode* b : copy_only_) {
        if (scopes_.contains(b)) continue;
        std::optional<MemScope> decided = Decide(*b);
        if (!decided.has_value()) continue;
        scopes_[b] = *decided;
        changed = true;
      }
    }
    for (const BufferNode* b : copy_only_)
      if (!scopes_.contains(b)) scopes_[b] = MemScope::kUB;
  }

  std::optional<MemScope> Decide(const BufferNode& b) const {
    bool any_cube = false, all_known = true;
    for (const BufferNode* p : UsesOf(b).copy_partners) {
      std::optional<MemScope> s = ScopeOf(p);
      if (!s.has_value()) {
        all_known = false;
        continue;
      }
      if (*s == MemScope::kUB || *s == MemScope::kL1) return MemScope::kUB;
      any_cube = any_cube || IsCubeScope(*s);
    }
    if (all_known) return any_cube ? MemScope::kL1 : MemScope::kUB;
    return std::nullopt;
  }

  const UseCollector& uses_;
  PassContext& ctx_;
  std::unordered_map<const BufferNode*, MemScope> scopes_;
  std::vector<const BufferNode*> copy_only_;  // in allocation order
};

std::string_view StatName(MemScope s) { return ir::MemScopeName(s); }

}  // namespace

Result<ir::Kernel> InferBufferScope(const ir::Kernel& kernel, PassContext& ctx) {
  UseCollector collector;
  collector.VisitKernel(kernel);
  if (collector.allocs.empty()) return kernel;
  ScopeResolver resolver(collector, ctx);
  if (!resolver.Resolve()) return ctx.diag->ToStatus();
  ir::BufferMap rewrite;
  for (const Buffer& b : collector.allocs) {
    ir::BufferNode node = *b;
    node.scope = resolver.scopes().at(b.get());
    ctx.Count(StatName(node.scope));
    rewrite[b.get()] = ir::MakeBuffer(std::move(node));
  }
  return ir::SubstituteBuffers(kernel, rewrite);
}

}  // namespace tilejit::passes
