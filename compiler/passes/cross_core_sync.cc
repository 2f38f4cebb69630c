// SPDX-License-Identifier: Apache-2.0
// Why one counter per direction (or per workspace family) is enough, and why the slot-free
// tokens are safe.
//
// Both programs are projections of one sequential body (combine_cv), and each hand-off is a
// write on the producer immediately followed, in that body, by its read on the consumer
// (legalize_copies put both copies where the original copy was). Control flow is replicated
// and depends only on values both cores compute alike (a vid-dependent one is refused). The
// plan groups the hand-offs into counters so that, within each counter, the producer's
// program writes the workspaces in the order the consumer's program reads them (it checks
// this by loop and `if` structure, cross_core_sync_plan.cc): so the n-th write of a counter
// executed by the producer and the n-th read of that counter executed by the consumer belong
// to the same hand-off, for every n. A whole direction is one counter when that holds for it;
// multi_buffer may run one family ahead of another (the cube writing the scores of iteration
// k + 2 before the P @ V block of k + 1), but keeps each family in order, and asks first
// whether two ids per family are free (CrossFlagsPerFamily), so one counter per family holds.
//
// Ready (RAW): the consumer waits on counter R before each read of its hand-offs; the producer
// sets R after each write, on the write's pipe, so the set fires only after the write has
// completed. Counters count, so when the consumer's n-th wait returns, at least n sets have
// fired, the n-th of them after the n-th write: the n-th read sees its data. With mode 2 the
// AIC's counter moves only once every AIV of the group has set, so a cube read of a
// vector-written workspace waits for all its row halves.
//
// Slot-free (WAR): number the writes of a counter's rewritten workspaces in program order
// 1, 2, ... (and their reads likewise; the n-th read belongs to the n-th write). The consumer
// pre-arms T tokens on F and sets F on mte2 after each such read, so token n > T fires after
// reads 1..n-T have completed (mte2 completes in order before the set fires). The producer
// waits on F before each such write: write n starts after read n-T. If the previous write of
// the same workspace is write m, safety needs read m done, i.e. m <= n - T, i.e. n - m >= T.
// The plan chooses T as a lower bound of that distance over every pair of consecutive writes
// of one workspace of the counter (cross_core_sync_plan.cc), so it holds. T = 1 is always
// safe.
//
// One write, N reads (a workspace the kernel declared, written once outside any loop or `if`
// and read a constant N <= 8 times): it has a ready counter of its own, and the producer sets
// it N times right after the write, so each of the consumer's N waits returns after the
// write; there is no later write, so no slot-free counter.
//
// Liveness: every wait is matched by a set that comes earlier in the sequential body (a read
// after its write; write n after read n-T; pre-armed tokens first), so running both programs
// cannot deadlock. Zero at exit: the consumer takes every R token; the producer receives
// T + (number of rewritten reads) tokens on F and takes one per rewritten write plus T at
// the end.
#include "compiler/passes/cross_core_sync.h"

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/analysis/cv_handoff.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/cross_core_sync_internal.h"

namespace tilejit::passes {
namespace {

using xsync::Plan;

ir::Stmt SetFlag(target::Pipe pipe, int id, SourceLoc loc) {
  return std::make_shared<ir::CrossFlagNode>(ir::StmtKind::kSetCrossFlag, pipe, ir::IntImm(id), 2,
                                             loc, ir::SyncOrigin::kCompiler);
}

ir::Stmt WaitFlag(target::Pipe pipe, int id, SourceLoc loc) {
  return std::make_shared<ir::CrossFlagNode>(ir::StmtKind::kWaitCrossFlag, pipe, ir::IntImm(id), 0,
                                             loc, ir::SyncOrigin::kCompiler);
}

class Placer : public ir::Mutator {
 public:
  Placer(const Plan& plan, PassContext& ctx) : plan_(plan), ctx_(ctx) {}

 protected:
  ir::Stmt MutateCoreScope(const ir::Stmt& s, const ir::CoreScopeNode& op) override {
    const bool cube = op.core == ir::CoreKind::kCube;
    TILEJIT_CHECK(!seen_[cube ? 0 : 1]) << "cross_core_sync expects one scope per core type";
    seen_[cube ? 0 : 1] = true;
    std::vector<ir::Stmt> stmts;
    loc_ = op.loc;
    for (const xsync::Counter& c : plan_.counters) {  // the consumer pre-arms its tokens
      const bool consumer = cube == (c.dir == xsync::kVectorToCube);
      if (!consumer || !c.slot_free.has_value()) continue;
      for (int t = 0; t < c.tokens; ++t) stmts.push_back(Set(target::Pipe::kMte2, *c.slot_free));
    }
    stmts.push_back(Mutate(op.body));
    loc_ = op.loc;
    for (const xsync::Counter& c : plan_.counters) {  // the producer drains them
      const bool producer = cube == (c.dir == xsync::kCubeToVector);
      if (!producer || !c.slot_free.has_value()) continue;
      for (int t = 0; t < c.tokens; ++t) stmts.push_back(Wait(c.write_pipe, *c.slot_free));
    }
    if (stmts.size() == 1 && stmts[0] == op.body) return s;
    return std::make_shared<ir::CoreScopeNode>(op.core, ir::FlatSeq(stmts, op.loc), op.loc);
  }

  ir::Stmt MutateSeq(const ir::Stmt& s, const ir::SeqNode& op) override {
    ir::Stmt m = ir::Mutator::MutateSeq(s, op);
    return m == s ? s : ir::FlatSeq(ir::As<ir::SeqNode>(m).stmts, m->loc);
  }

  // A fill loop is one write of each workspace it fills: the flags go around the loop.
  ir::Stmt MutateFor(const ir::Stmt& s, const ir::ForNode& op) override {
    ir::Stmt loop = ir::Mutator::MutateFor(s, op);
    auto unit = plan_.units.find(&op);
    if (unit == plan_.units.end()) return loop;
    loc_ = op.loc;
    std::vector<ir::Stmt> out;
    for (const ir::BufferNode* ws : unit->second) {
      const xsync::HandOff& h = plan_.hand_offs.at(ws);
      if (h.rewritten) out.push_back(Wait(h.write_pipe, *plan_.counters[h.counter].slot_free));
    }
    out.push_back(loop);
    for (const ir::BufferNode* ws : unit->second) {
      const xsync::HandOff& h = plan_.hand_offs.at(ws);
      out.push_back(Set(h.write_pipe, *plan_.counters[h.counter].ready));
    }
    return ir::Seq(std::move(out), op.loc);
  }

  ir::Stmt MutateTileOp(const ir::Stmt& s, const ir::TileOpNode& op) override {
    if (op.op != ir::TileOpCode::kCopy || op.args.size() != 2) return s;
    loc_ = op.loc;
    std::vector<ir::Stmt> out;
    if (const xsync::HandOff* h = Find(op, 0)) {  // a write: producer side
      if (h->in_units) return s;                  // ordered around its fill loop
      const xsync::Counter& dp = plan_.counters[h->counter];
      if (h->rewritten) out.push_back(Wait(h->write_pipe, *dp.slot_free));
      out.push_back(s);
      for (int n = 0; n < h->sets_per_write; ++n) out.push_back(Set(h->write_pipe, *dp.ready));
    } else if (const xsync::HandOff* r = Find(op, 1)) {  // a read: consumer side
      const xsync::Counter& dp = plan_.counters[r->counter];
      out.push_back(Wait(target::Pipe::kMte2, *dp.ready));
      out.push_back(s);
      if (r->rewritten) out.push_back(Set(target::Pipe::kMte2, *dp.slot_free));
    } else {
      return s;
    }
    return ir::Seq(std::move(out), op.loc);
  }

 private:
  const xsync::HandOff* Find(const ir::TileOpNode& op, size_t i) const {
    const auto* r = std::get_if<ir::Region>(&op.args[i]);
    if (r == nullptr || !analysis::IsWorkspace(*r->buffer)) return nullptr;
    auto it = plan_.hand_offs.find(r->buffer.get());
    return it == plan_.hand_offs.end() ? nullptr : &it->second;
  }

  ir::Stmt Set(target::Pipe pipe, int id) {
    ctx_.Count("cross_flags");
    return SetFlag(pipe, id, loc_);
  }
  ir::Stmt Wait(target::Pipe pipe, int id) {
    ctx_.Count("cross_flags");
    return WaitFlag(pipe, id, loc_);
  }

  const Plan& plan_;
  PassContext& ctx_;
  bool seen_[2] = {false, false};
  SourceLoc loc_;  // of the hand-off being ordered; pre-arm/drain use the scope's
};

// The distinct constant ids of the kernel's own cross flags.
class AuthorIds : public ir::Visitor {
 public:
  std::set<int64_t> ids;

 protected:
  void VisitCrossFlag(const ir::CrossFlagNode& op) override {
    if (auto id = ir::AsConstInt(op.flag)) ids.insert(*id);
  }
};

}  // namespace

std::string_view WorkspaceFamily(const ir::BufferNode& ws) {
  std::string_view name = ws.name;
  while (true) {
    const size_t at = name.rfind("_slot");
    if (at == std::string_view::npos || at + 5 == name.size()) return name;
    const std::string_view digits = name.substr(at + 5);
    if (digits.find_first_not_of("0123456789") != std::string_view::npos) return name;
    name = name.substr(0, at);
  }
}

bool CrossFlagsPerFamily(const ir::Kernel& kernel, const target::NpuTarget& target) {
  std::set<std::string, std::less<>> families;
  for (const ir::Buffer& p : kernel.params)
    if (analysis::IsWorkspace(*p)) families.emplace(WorkspaceFamily(*p));
  AuthorIds author;
  author.VisitKernel(kernel);
  const int64_t need = 2 * static_cast<int64_t>(families.size());
  return need + static_cast<int64_t>(author.ids.size()) <= target.cross_flag_ids.value;
}

Result<ir::Kernel> CrossCoreSync(const ir::Kernel& kernel, PassContext& ctx) {
  TILEJIT_CHECK(ctx.target != nullptr && ctx.diag != nullptr) << "PassContext incomplete";
  Plan plan = xsync::MakePlan(kernel, ctx);
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  if (plan.hand_offs.empty()) return kernel;
  return Placer(plan, ctx).MutateKernel(kernel);
}

}  // namespace tilejit::passes
