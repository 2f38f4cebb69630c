// SPDX-License-Identifier: Apache-2.0
// sync_insert: analyse, fix what is unordered, re-analyse until nothing is. Re-analysing after
// each round is what keeps the result small: a dependence an earlier pair already orders
// (pipes are in order, and orders compose through flags) is seen as ordered and gets nothing.
// The cost is a few rounds (sync_insert_inserter.cc) plus the redundancy checks, which each
// stop at their first hazard; a compile is a JIT's latency, so the number of whole-program
// analyses is a statistic ("analyses") and must not grow with trip counts or shapes.
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
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/sync_insert_internal.h"

namespace tilejit::passes {
namespace {

namespace sync = analysis::sync;
using sync_insert_internal::Inserter;

constexpr sync::AnalyzeOptions kOpts{.virtual_ids = true};
constexpr sync::AnalyzeOptions kFirstHazard{.virtual_ids = true, .stop_at_first_hazard = true};
// Rounds of FixAll before giving up (each round orders at least the first hazard it sees).
constexpr int kMaxRounds = 4096;

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
// both when placing syncs and when dropping the redundant ones). Statistic "analyses": how many
// whole-program analyses this took.
void InsertSyncs(const std::vector<Inserter*>& ins, PassContext& ctx) {
  auto analyze = [&](const sync::AnalyzeOptions& opts) {
    ctx.Count("analyses");
    ctx.Poll();  // the whole-program analyses are where a huge kernel spends its time
    for (Inserter* i : ins) i->program().Renumber();
    if (ins.size() == 1) return std::vector<sync::Analysis>{sync::Analyze(ins[0]->program(), opts)};
    std::array<sync::Analysis, 2> a =
        sync::AnalyzeCores(ins[0]->program(), ins[1]->program(), opts);
    return std::vector<sync::Analysis>{std::move(a[0]), std::move(a[1])};
  };
  for (Inserter* i : ins) i->Start();
  std::vector<sync::Analysis> as;
  for (int round = 0;; ++round) {
    TILEJIT_CHECK(round < kMaxRounds) << "sync_insert does not converge";
    as = analyze(kOpts);
    bool fixed = false;
    for (size_t i = 0; i < ins.size(); ++i) {
      if (as[i].hazards.empty()) continue;
      ins[i]->FixAll(as[i].hazards);
      fixed = true;
    }
    if (!fixed) break;
  }
  // Flag findings left now are the author's (compiler pairs are balanced by construction); a
  // removal is clean when it adds no finding.
  std::vector<size_t> baseline;
  for (const sync::Analysis& a : as) baseline.push_back(a.flags.size());
  auto clean = [&] {
    const std::vector<sync::Analysis> now = analyze(kFirstHazard);
    for (size_t i = 0; i < now.size(); ++i)
      if (!now[i].hazards.empty() || now[i].flags.size() > baseline[i]) return false;
    return true;
  };
  for (Inserter* i : ins) i->DropRedundant(clean);
  as = analyze(kOpts);
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
  std::vector<std::unique_ptr<sync::Program>> programs;
  std::vector<std::unique_ptr<Inserter>> inserters;
  for (const ir::CoreScopeNode* sc : scopes) {
    programs.push_back(std::make_unique<sync::Program>(sc->body, *ctx.target));
    inserters.push_back(std::make_unique<Inserter>(*programs.back(), sc->core, ctx));
  }
  if (together) {
    InsertSyncs({inserters[0].get(), inserters[1].get()}, ctx);
  } else {
    for (auto& i : inserters) InsertSyncs({i.get()}, ctx);
  }
  std::map<const ir::CoreScopeNode*, ir::Stmt> bodies;
  for (size_t i = 0; i < scopes.size(); ++i) bodies[scopes[i]] = programs[i]->Rebuild();
  return ScopeRewriter(ctx, std::move(bodies), std::move(needs_drain)).MutateKernel(kernel);
}

}  // namespace tilejit::passes
