// SPDX-License-Identifier: Apache-2.0
// sync_insert: fix the first hazard, re-analyse, repeat. Re-running the whole analysis after
// each insertion is what makes the result minimal in the sense that matters: a later
// dependence already ordered by an earlier pair (pipes are in order, and orders compose
// through flags) is seen as ordered and gets nothing. Programs are small (tens to a few hundred
// statements), so the quadratic cost is negligible next to codegen.
#include "compiler/passes/sync_insert.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "common/check.h"
#include "compiler/analysis/sync_analysis.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"

namespace tilejit::passes {
namespace {

namespace sync = analysis::sync;

using sync::Hazard;
using sync::Node;
using sync::NodeKind;
using sync::Program;

constexpr int kEventIds = 8;
// Until ids are assigned, each pair made here has its own virtual event id.
constexpr sync::AnalyzeOptions kOpts{.virtual_ids = true};
using PipePair = std::pair<ir::Pipe, ir::Pipe>;

// A set/wait pair made here; ids are assigned once every pair exists.
struct PairInfo {
  ir::Pipe src = ir::Pipe::kS;
  ir::Pipe dst = ir::Pipe::kS;
  std::vector<Node*> sets;
  std::vector<Node*> waits;
  Node* in_loop_wait = nullptr;  // the wait a fallback barrier replaces
  bool carried = false;
  bool dropped = false;  // redundant (DropRedundant): its nodes are disabled
};

bool IsBlock(const Node* n) {
  return n->kind == NodeKind::kSeq && (n->parent == nullptr || n->parent->kind == NodeKind::kFor ||
                                       n->parent->kind == NodeKind::kIf);
}

const Node* BlockOf(const Node* n) {
  for (const Node* p = n->parent; p != nullptr; p = p->parent)
    if (IsBlock(p)) return p;
  return nullptr;
}

// The innermost body (program root, loop body or if arm) that holds both statements.
const Node* CommonBlock(const Node* a, const Node* b) {
  std::set<const Node*> blocks;
  for (const Node* p = BlockOf(a); p != nullptr; p = BlockOf(p)) blocks.insert(p);
  for (const Node* p = BlockOf(b); p != nullptr; p = BlockOf(p))
    if (blocks.count(p) != 0) return p;
  return nullptr;
}

// The statement of `block` (through lets, scopes and nested sequences, which run once per run
// of the block) that holds `n`: the outermost loop or if below the block on the way to `n`,
// else `n` itself.
Node* AnchorIn(const Node* block, const Node* n) {
  const Node* anchor = n;
  for (const Node* p = n->parent; p != block; p = p->parent) {
    TILEJIT_CHECK(p != nullptr) << "sync_insert: statement outside its block";
    if (p->kind == NodeKind::kFor || p->kind == NodeKind::kIf) anchor = p;
  }
  return const_cast<Node*>(anchor);
}

class Inserter {
 public:
  Inserter(Program& p, ir::CoreKind core, PassContext& ctx)
      : p_(p),
        core_(core == ir::CoreKind::kCube ? target::CoreType::kAic : target::CoreType::kAiv),
        ctx_(ctx) {}

  // The syncs already in the program (their ids are avoided); call once, before Fix.
  void Start() { ScanExisting(p_.root()); }

  Program& program() { return p_; }

  // Orders the first hazard of `hs` (non-empty).
  void Fix(const std::vector<Hazard>& hs) {
    const Hazard& h = Pick(hs);
    const Node* block = BlockFor(h);
    TILEJIT_CHECK(block != nullptr) << "sync_insert: no common body for a dependence";
    Node* a = AnchorIn(block, h.first);
    Node* b = AnchorIn(block, h.second);
    const auto key = std::make_tuple(h.first->id, h.first_part, h.second->id, h.second_part,
                                     h.carried != nullptr ? h.carried->id : -1);
    const ir::Pipe src = h.first->parts[h.first_part].pipe;
    const ir::Pipe dst = h.second->parts[h.second_part].pipe;
    const SourceLoc loc = h.second->stmt->loc;
    if (!tried_.insert(key).second) {
      // An order we placed did not take (it should not happen); the coarse order always does.
      TILEJIT_CHECK(fallen_back_.insert(key).second) << "sync_insert cannot order a dependence";
      p_.InsertBefore(b, Barrier(ir::Pipe::kAll, loc), -1);
      Count("barriers");
      Count("sync_fallbacks");
      return;
    }
    if (src == dst) {
      barriers_.push_back(p_.InsertBefore(b, Barrier(src, loc), -1));
      Count("barriers");
      return;
    }
    PipePair pp{src, dst};
    if (!target::IsLegalEventPair(*ctx_.target, core_, src, dst)) pp.second = ir::Pipe::kS;
    const bool legal = target::IsLegalEventPair(*ctx_.target, core_, pp.first, pp.second);
    const bool carried = h.carried != nullptr && a->order >= b->order;
    if (!legal || runtime_pairs_.count(pp) != 0 || (!carried && a->order >= b->order)) {
      p_.InsertBefore(b, Barrier(ir::Pipe::kAll, loc), -1);
      Count("barriers");
      Count("sync_fallbacks");
      return;
    }
    const int idx = static_cast<int>(pairs_.size());
    PairInfo pair;
    pair.src = pp.first;
    pair.dst = pp.second;
    pair.carried = carried;
    pair.sets.push_back(
        p_.InsertAfter(a, Flag(ir::StmtKind::kSetFlag, pp, h.first->stmt->loc, idx), idx));
    pair.in_loop_wait = p_.InsertBefore(b, Flag(ir::StmtKind::kWaitFlag, pp, loc, idx), idx);
    pair.waits.push_back(pair.in_loop_wait);
    if (carried) {
      Node* loop = const_cast<Node*>(h.carried);
      pair.sets.push_back(
          p_.InsertBefore(loop, Flag(ir::StmtKind::kSetFlag, pp, loop->stmt->loc, idx), idx));
      pair.waits.push_back(
          p_.InsertAfter(loop, Flag(ir::StmtKind::kWaitFlag, pp, loop->stmt->loc, idx), idx));
    }
    pairs_.push_back(std::move(pair));
  }

  // A pair or barrier placed early can be made redundant by one placed later (a later wait
  // before an earlier consumer, or an order through the other core); each one whose removal
  // leaves `clean()` true goes, newest first, so every sync the pass keeps is needed.
  void DropRedundant(const std::function<bool()>& clean) {
    for (size_t i = pairs_.size(); i-- > 0;) {
      PairInfo& pair = pairs_[i];
      SetDisabled(pair, true);
      if (clean()) {
        pair.dropped = true;
      } else {
        SetDisabled(pair, false);
      }
    }
    for (size_t i = barriers_.size(); i-- > 0;) {
      barriers_[i]->disabled = true;
      if (clean()) {
        Count("barriers", -1);
      } else {
        barriers_[i]->disabled = false;
      }
    }
  }

  // Greedy colouring per pipe pair, in order of first set: two pairs may share an id only
  // when the analysis proved each one's sets ordered after the other's waits (no
  // interference) and their live ranges in program order do not overlap.
  void AssignIds(const std::set<std::pair<int64_t, int64_t>>& interference) {
    p_.Renumber();
    std::map<PipePair, std::vector<int>> by_pair;
    for (size_t i = 0; i < pairs_.size(); ++i)
      if (!pairs_[i].dropped)
        by_pair[{pairs_[i].src, pairs_[i].dst}].push_back(static_cast<int>(i));
    std::vector<int> ids(pairs_.size(), -1);
    int made = 0;
    for (auto& [pp, list] : by_pair) {
      std::sort(list.begin(), list.end(), [&](int x, int y) {
        return LiveRange(pairs_[x]).first < LiveRange(pairs_[y]).first;
      });
      const std::set<int64_t>& used = used_[pp];
      for (size_t n = 0; n < list.size(); ++n) {
        const int i = list[n];
        const auto [lo, hi] = LiveRange(pairs_[i]);
        std::set<int> taken(used.begin(), used.end());
        for (size_t m = 0; m < n; ++m) {
          const int j = list[m];
          if (ids[j] < 0) continue;
          const auto [jlo, jhi] = LiveRange(pairs_[j]);
          const bool overlap = jhi >= lo && hi >= jlo;
          const std::pair<int64_t, int64_t> key{kEventIds + std::min(i, j),
                                                kEventIds + std::max(i, j)};
          if (overlap || interference.count(key) != 0) taken.insert(ids[j]);
        }
        for (int e = 0; e < kEventIds && ids[i] < 0; ++e)
          if (taken.count(e) == 0) ids[i] = e;
        if (ids[i] < 0) {
          FallBack(pairs_[i]);
          continue;
        }
        for (Node* node : pairs_[i].sets) SetId(node, ids[i]);
        for (Node* node : pairs_[i].waits) SetId(node, ids[i]);
        ++made;
      }
    }
    Count("set_wait_pairs", made);
  }

 private:
  void ScanExisting(const Node* n) {
    if (const auto* f = n->stmt != nullptr ? ir::TryAs<ir::FlagNode>(n->stmt) : nullptr) {
      const PipePair pp{f->src, f->dst};
      if (auto id = ir::AsConstInt(f->event)) {
        used_[pp].insert(*id);
      } else {
        runtime_pairs_.insert(pp);
      }
    }
    for (const auto& k : n->kids) ScanExisting(k.get());
  }

  // A flag of pair `pair`: until ids are assigned, each pair has its own virtual event id
  // (8 + its index) so the analysis never confuses two pairs.
  static ir::Stmt Flag(ir::StmtKind kind, PipePair pp, SourceLoc loc, int pair) {
    return std::make_shared<ir::FlagNode>(kind, pp.first, pp.second, ir::IntImm(kEventIds + pair),
                                          loc, ir::SyncOrigin::kCompiler);
  }
  static ir::Stmt Barrier(ir::Pipe pipe, SourceLoc loc) {
    return std::make_shared<ir::BarrierNode>(pipe, loc, ir::SyncOrigin::kCompiler);
  }

  const Node* BlockFor(const Hazard& h) const {
    return h.carried != nullptr ? h.carried->kids[0].get() : CommonBlock(h.first, h.second);
  }

  static ir::Pipe SrcPipe(const Hazard& h) { return h.first->parts[h.first_part].pipe; }
  static ir::Pipe DstPipe(const Hazard& h) { return h.second->parts[h.second_part].pipe; }

  // The first hazard's consumer, preferably a dependence across pipes (its pair often orders
  // a same-pipe dependence transitively, never the reverse); among that consumer's hazards
  // from the same pipe and block, the one with the latest producer: one set after it covers
  // them all.
  const Hazard& Pick(const std::vector<Hazard>& hs) const {
    const Hazard* first = &hs.front();
    for (const Hazard& h : hs) {
      if (h.second == first->second && h.second_part == first->second_part &&
          SrcPipe(h) != DstPipe(h)) {
        first = &h;
        break;
      }
    }
    const Hazard& h0 = *first;
    const Node* block = BlockFor(h0);
    const ir::Pipe src = h0.first->parts[h0.first_part].pipe;
    const Hazard* best = &h0;
    for (const Hazard& h : hs) {
      if (h.second != h0.second || h.second_part != h0.second_part || h.carried != h0.carried ||
          h.first->parts[h.first_part].pipe != src || BlockFor(h) != block) {
        continue;
      }
      if (AnchorIn(block, h.first)->order > AnchorIn(block, best->first)->order) best = &h;
    }
    return *best;
  }

  static void SetDisabled(PairInfo& p, bool disabled) {
    for (Node* n : p.sets) n->disabled = disabled;
    for (Node* n : p.waits) n->disabled = disabled;
  }

  // Live range of a pair in pre-order positions: from its first set to its last wait.
  static std::pair<int, int> LiveRange(const PairInfo& p) {
    int lo = 1 << 30, hi = -1;
    for (const Node* n : p.sets) lo = std::min(lo, n->order);
    for (const Node* n : p.waits) hi = std::max(hi, n->order);
    for (const Node* n : p.sets) hi = std::max(hi, n->order);
    for (const Node* n : p.waits) lo = std::min(lo, n->order);
    return {lo, hi};
  }

  void SetId(Node* n, int id) {
    const auto& f = ir::As<ir::FlagNode>(n->stmt);
    p_.Replace(n, std::make_shared<ir::FlagNode>(f.kind, f.src, f.dst, ir::IntImm(id), f.loc,
                                                 ir::SyncOrigin::kCompiler));
  }

  void FallBack(PairInfo& p) {
    p_.Replace(p.in_loop_wait, Barrier(ir::Pipe::kAll, p.in_loop_wait->stmt->loc));
    for (Node* n : p.sets) Program::Remove(n);
    for (Node* n : p.waits)
      if (n != p.in_loop_wait) Program::Remove(n);
    Count("barriers");
    Count("sync_fallbacks");
  }

  void Count(const char* stat, int64_t n = 1) { ctx_.Count(stat, n); }

  Program& p_;
  target::CoreType core_;
  PassContext& ctx_;
  std::map<PipePair, std::set<int64_t>> used_;
  std::set<PipePair> runtime_pairs_;
  std::vector<PairInfo> pairs_;
  std::vector<Node*> barriers_;  // same-pipe barriers placed by Fix
  // Hazards (producer, consumer, carried loop) already fixed once, and fixed coarsely.
  std::set<std::tuple<int, int, int, int, int>> tried_;
  std::set<std::tuple<int, int, int, int, int>> fallen_back_;
};

bool HasWork(const ir::Stmt& s) {
  class Finder : public ir::Visitor {
   public:
    bool found = false;

   protected:
    void VisitTileOp(const ir::TileOpNode&) override { found = true; }
    void VisitStore(const ir::StoreNode&) override { found = true; }
  } f;
  f.Visit(s);
  return f.found;
}

// Scopes in pre-order with whether a loop encloses them.
class ScopeScan : public ir::Visitor {
 public:
  struct Entry {
    const ir::CoreScopeNode* scope;
    bool in_loop;
  };
  std::vector<Entry> scopes;

 protected:
  void VisitFor(const ir::ForNode& op) override {
    ++loops_;
    ir::Visitor::VisitFor(op);
    --loops_;
  }
  void VisitCoreScope(const ir::CoreScopeNode& op) override {
    scopes.push_back({&op, loops_ > 0});
    ir::Visitor::VisitCoreScope(op);
  }

 private:
  int loops_ = 0;
};

// Runs the inserters of one core program, or of a kernel's cube and vector programs together
// (their hazards are found with sync::AnalyzeCores, so an order through the other core counts,
// both when placing syncs and when dropping the redundant ones).
void InsertSyncs(const std::vector<Inserter*>& ins) {
  auto analyze = [&] {
    for (Inserter* i : ins) i->program().Renumber();
    if (ins.size() == 1)
      return std::vector<sync::Analysis>{sync::Analyze(ins[0]->program(), kOpts)};
    std::array<sync::Analysis, 2> a =
        sync::AnalyzeCores(ins[0]->program(), ins[1]->program(), kOpts);
    return std::vector<sync::Analysis>{std::move(a[0]), std::move(a[1])};
  };
  for (Inserter* i : ins) i->Start();
  std::vector<sync::Analysis> as;
  for (int round = 0;; ++round) {
    TILEJIT_CHECK(round < 4096) << "sync_insert does not converge";
    as = analyze();
    bool fixed = false;
    for (size_t i = 0; i < ins.size(); ++i) {
      if (as[i].hazards.empty()) continue;
      ins[i]->Fix(as[i].hazards);
      fixed = true;
    }
    if (!fixed) break;
  }
  // Flag findings left now are the author's (compiler pairs are balanced by construction); a
  // removal is clean when it adds no finding.
  std::vector<size_t> baseline;
  for (const sync::Analysis& a : as) baseline.push_back(a.flags.size());
  auto clean = [&] {
    const std::vector<sync::Analysis> now = analyze();
    for (size_t i = 0; i < now.size(); ++i)
      if (!now[i].hazards.empty() || now[i].flags.size() > baseline[i]) return false;
    return true;
  };
  for (Inserter* i : ins) i->DropRedundant(clean);
  as = analyze();
  for (size_t i = 0; i < ins.size(); ++i) ins[i]->AssignIds(as[i].interference);
}

class ScopeRewriter : public ir::Mutator {
 public:
  ScopeRewriter(PassContext& ctx, std::map<const ir::CoreScopeNode*, ir::Stmt> bodies,
                std::set<const ir::CoreScopeNode*> needs_drain)
      : ctx_(ctx), bodies_(std::move(bodies)), needs_drain_(std::move(needs_drain)) {}

 protected:
  ir::Stmt MutateCoreScope(const ir::Stmt& s, const ir::CoreScopeNode& op) override {
    ir::Stmt body = bodies_.at(&op);
    if (needs_drain_.count(&op) != 0 && HasWork(op.body)) {
      body = ir::Seq({body, std::make_shared<ir::BarrierNode>(ir::Pipe::kAll, op.loc,
                                                              ir::SyncOrigin::kCompiler)},
                     op.loc);
      ctx_.Count("barriers");
    }
    (void)s;
    return std::make_shared<ir::CoreScopeNode>(op.core, body, op.loc);
  }

 private:
  PassContext& ctx_;
  std::map<const ir::CoreScopeNode*, ir::Stmt> bodies_;
  std::set<const ir::CoreScopeNode*> needs_drain_;
};

}  // namespace

Result<ir::Kernel> SyncInsert(const ir::Kernel& kernel, PassContext& ctx) {
  ScopeScan scan;
  scan.VisitKernel(kernel);
  std::set<const ir::CoreScopeNode*> needs_drain;
  for (size_t i = 0; i < scan.scopes.size(); ++i) {
    bool later_same = false;
    for (size_t j = i + 1; j < scan.scopes.size(); ++j)
      later_same = later_same || scan.scopes[j].scope->core == scan.scopes[i].scope->core;
    if (scan.scopes[i].in_loop || later_same) needs_drain.insert(scan.scopes[i].scope);
  }
  // One cube and one vector scope, neither in a loop (combine_cv's shape): analysed together.
  std::vector<const ir::CoreScopeNode*> scopes;
  for (const ScopeScan::Entry& e : scan.scopes) scopes.push_back(e.scope);
  const bool together = scopes.size() == 2 && scopes[0]->core != scopes[1]->core &&
                        !scan.scopes[0].in_loop && !scan.scopes[1].in_loop;
  if (together && scopes[0]->core != ir::CoreKind::kCube) std::swap(scopes[0], scopes[1]);
  std::vector<std::unique_ptr<Program>> programs;
  std::vector<std::unique_ptr<Inserter>> inserters;
  for (const ir::CoreScopeNode* sc : scopes) {
    programs.push_back(std::make_unique<Program>(sc->body, *ctx.target));
    inserters.push_back(std::make_unique<Inserter>(*programs.back(), sc->core, ctx));
  }
  if (together) {
    InsertSyncs({inserters[0].get(), inserters[1].get()});
  } else {
    for (auto& i : inserters) InsertSyncs({i.get()});
  }
  std::map<const ir::CoreScopeNode*, ir::Stmt> bodies;
  for (size_t i = 0; i < scopes.size(); ++i) bodies[scopes[i]] = programs[i]->Rebuild();
  return ScopeRewriter(ctx, std::move(bodies), std::move(needs_drain)).MutateKernel(kernel);
}

}  // namespace tilejit::passes
