// SPDX-License-Identifier: Apache-2.0
// vid_reduction decides per group of row-aligned UB buffers (vid_reduction_flow.cc) whether
// the group is split between the two AIVs, checks what a split needs (even row counts, loops
// over all rows, no replicated buffer fed or written from split data) and hands the plan to
// the rewrite (vid_reduction_rewrite.cc).
//
// Why by data flow and not "every UB buffer" (TileLang's own pass halves every UB buffer):
// a buffer loaded whole (gamma[N]) or used by columns must stay whole on both AIVs, and a
// buffer only ever fed by split data must be split with it even if it never touches GM.
#include "compiler/passes/vid_reduction.h"

#include <set>
#include <string>
#include <vector>

#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/vid_reduction_internal.h"

namespace tilejit::passes {
namespace {

using vid::Flow;
using vid::Reason;

constexpr const char* kFixes = "use threads=1, or the (cid, vid) form to split rows yourself";

class Decider {
 public:
  Decider(Flow& flow, PassContext& ctx) : flow_(flow), ctx_(ctx) {}

  bool Decide(vid::SplitPlan* plan) {
    const int n = static_cast<int>(flow_.ubs.size());
    split_.assign(n, false);
    for (int root = 0; root < n; ++root)
      if (flow_.Find(root) == root) DecideGroup(root);
    for (int b = 0; b < n; ++b) split_[b] = split_[flow_.Find(b)];
    for (int b = 0; b < n; ++b)
      if (split_[b]) CheckRows(b, plan);
    for (const vid::Flow::Write& w : flow_.writes) CheckWrite(w);
    for (const vid::Flow::Derive& d : flow_.derives) CheckDerive(d);
    for (const ir::VarNode* var : flow_.row_loop_order) CheckLoop(flow_.row_loops.at(var), plan);
    return ok_;
  }

 private:
  const ir::BufferNode& Buf(int b) const { return *flow_.ubs[b]; }
  std::string Name(int b) const { return "'" + Buf(b).name + "'"; }

  void DecideGroup(int root) {
    int seed = -1, weak = -1, whole = -1;
    for (int b = 0; b < static_cast<int>(flow_.ubs.size()); ++b) {
      if (flow_.Find(b) != root) continue;
      if (seed < 0 && flow_.split_reason[b]) seed = b;
      if (weak < 0 && flow_.weak_split_reason[b]) weak = b;
      if (whole < 0 && flow_.whole_reason[b]) whole = b;
    }
    if (seed < 0) {
      split_[root] = weak >= 0 && whole < 0;
      return;
    }
    split_[root] = true;
    if (whole < 0) return;
    ok_ = false;
    const Reason& s = *flow_.split_reason[seed];
    const Reason& w = *flow_.whole_reason[whole];
    ctx_.diag->Error(Buf(whole).loc)
            .Note(s.loc, Name(seed) + " is split here: " + s.text)
            .Note(w.loc, Name(whole) + " must stay whole here: " + w.text)
        << "vid_reduction (threads=2): " << Name(whole)
        << " would have to be both split between the two vector cores (its rows line up with "
        << Name(seed) << ", which " << s.text << ") and replicated on both (" << w.text
        << "); use separate buffers for the two uses, or " << kFixes;
  }

  void CheckRows(int b, vid::SplitPlan* plan) {
    const int64_t rows = Buf(b).shape.empty() ? 1 : Buf(b).shape.front();
    if (rows % 2 != 0) {
      ok_ = false;
      ctx_.diag->Error(Buf(b).loc) << "vid_reduction (threads=2) splits the rows of " << Name(b)
                                   << " between the two vector cores, but its leading dim " << rows
                                   << " is odd; make the row tile even, or " << kFixes;
      return;
    }
    plan->split[&Buf(b)] = rows / 2;
  }

  void CheckWrite(const vid::Flow::Write& w) {
    if (split_[w.buffer] || !reported_.insert(w.buffer).second) return;
    ok_ = false;
    ctx_.diag->Error(Buf(w.buffer).loc).Note(w.loc, "written to " + w.target + " here")
        << "vid_reduction (threads=2): " << Name(w.buffer)
        << " is replicated on both vector cores (nothing ties its rows to the block's row tile: "
           "a copy to or from GM at a block-derived row offset or to or from a cube buffer), so "
           "both cores would write the same bytes to "
        << w.target << "; copy it at a block-derived row offset, or " << kFixes;
  }

  void CheckDerive(const vid::Flow::Derive& d) {
    if (split_[d.dst] || !split_[d.src] || !reported_.insert(d.dst).second) return;
    ok_ = false;
    ctx_.diag->Error(Buf(d.dst).loc).Note(d.loc, "computed here")
        << "vid_reduction (threads=2): " << Name(d.dst)
        << " is replicated on both vector cores but computed from " << Name(d.src)
        << ", whose rows are split between them, so each core would see only its half; " << kFixes;
  }

  // A loop picking rows of split buffers must run over all of their rows, from 0.
  void CheckLoop(const vid::Flow::RowLoop& rl, vid::SplitPlan* plan) {
    if (!split_[rl.buffers.front()]) return;
    const std::optional<int64_t> min = ir::AsConstInt(rl.loop->min);
    const std::optional<int64_t> extent = ir::AsConstInt(rl.loop->extent);
    for (int b : rl.buffers) {
      const int64_t rows = Buf(b).shape.front();
      if (min == 0 && extent == rows) continue;
      ok_ = false;
      ctx_.diag->Error(rl.loop->loc).Note(Buf(b).loc, Name(b) + " is allocated here")
          << "vid_reduction (threads=2): this loop picks rows of " << Name(b) << ", whose " << rows
          << " rows are split between the two vector cores, so it must run over all of them "
             "from 0 (serial(0, "
          << rows << ")) to be split with it; " << kFixes;
      return;
    }
    plan->halved_loops[rl.loop->var.get()] = Buf(rl.buffers.front()).shape.front() / 2;
  }

  Flow& flow_;
  PassContext& ctx_;
  std::vector<bool> split_;
  std::set<int> reported_;  // buffers with a write or derive diagnostic already
  bool ok_ = true;
};

// Whether the vector work of a (cid, vid) launch needs both AIVs: the body reads vid, adds
// into GM atomically (once per AIV: upstream's atomic_add test expects a sum over both), or
// signals from one AIV to the other (a cross-core flag of mode 1).
class NeedsBothAivs : public ir::Visitor {
 public:
  explicit NeedsBothAivs(const ir::VarNode* vid) : vid_(vid) {}
  bool found = false;

 protected:
  void VisitVarRef(const ir::VarRefNode& op) override { found |= op.var.get() == vid_; }
  void VisitTileOp(const ir::TileOpNode& op) override {
    found |= op.FindAttr("atomic_add") != nullptr;
    ir::Visitor::VisitTileOp(op);
  }
  void VisitCrossFlag(const ir::CrossFlagNode& op) override {
    found |= op.kind == ir::StmtKind::kSetCrossFlag && op.mode == 1;
    ir::Visitor::VisitCrossFlag(op);
  }

 private:
  const ir::VarNode* vid_;
};

class OneAiv : public ir::Mutator {
  ir::Stmt MutateKernelStmt(const ir::Stmt&, const ir::KernelNode& op) override {
    return std::make_shared<ir::KernelNode>(op.grid, 1, op.cid, op.vid, op.body, op.loc);
  }
};

// The (cid, vid) form runs the vector program on both AIVs of a block. When nothing in it
// tells them apart, both would compute the same values and write the same GM bytes (a WAW
// race between the cores, and twice the MTE3 traffic), so one AIV does the work: the launch
// becomes threads=1. The cross-core flags adapt (the cube's counter waits for the AIVs the
// block has).
Result<ir::Kernel> OneAivWhenVidIsUnread(const ir::Kernel& kernel, const ir::KernelNode& launch,
                                         PassContext& ctx) {
  NeedsBothAivs both(launch.vid.get());
  both.Visit(launch.body);
  if (both.found) return kernel;
  ctx.Count("one_aiv", 1);
  return OneAiv().MutateKernel(kernel);
}

}  // namespace

Result<ir::Kernel> VidReduction(const ir::Kernel& kernel, PassContext& ctx) {
  Flow flow = vid::SurveyFlow(kernel);
  if (flow.launch == nullptr || flow.ubs.empty()) return kernel;
  if (flow.launch->threads == 0) return OneAivWhenVidIsUnread(kernel, *flow.launch, ctx);
  if (flow.launch->threads != 2) return kernel;
  vid::SplitPlan plan;
  if (!Decider(flow, ctx).Decide(&plan)) return ctx.diag->ToStatus();
  if (plan.split.empty()) return kernel;
  ir::Kernel out;
  if (!vid::RewriteSplit(kernel, *flow.launch, plan, ctx.diag, &out)) return ctx.diag->ToStatus();
  ctx.Count("split_buffers", static_cast<int64_t>(plan.split.size()));
  return out;
}

}  // namespace tilejit::passes
