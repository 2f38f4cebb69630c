// SPDX-License-Identifier: Apache-2.0
// Counters: a direction whose producer writes every hand-off in the order the consumer reads
// them needs only one pair of counters; one whose families were reordered against each other
// by multi_buffer gets a pair per family. The order is compared by loop and `if` structure
// (HandOffShape): both scopes are projections of one body, so their loops and conditions
// match where the structure does.
//
// The token count is a distance in a conservative model of the producer's write sequence:
// each loop is unrolled twice (a loop of constant trip count 1 once, of 0 never), so every
// pair of consecutive writes of one workspace that can occur in a run occurs in the model
// with at most as many writes between them as in the run; writes under an `if` or in a loop
// with a runtime trip count may be absent in a run, so they never count as "between". The
// smallest such distance D over all rewritten workspaces of a counter is then a lower bound
// of the real distance, and pre-arming min(D, kMaxTokens) tokens is safe (argument in
// cross_core_sync.cc).
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/check.h"
#include "compiler/analysis/cv_handoff.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/cross_core_sync.h"
#include "compiler/passes/cross_core_sync_internal.h"

namespace tilejit::passes::xsync {
namespace {

const ir::Region* Arg(const ir::TileOpNode& op, size_t i) {
  return i < op.args.size() ? std::get_if<ir::Region>(&op.args[i]) : nullptr;
}

}  // namespace

const ir::BufferNode* WorkspaceArg(const ir::TileOpNode& op, size_t i) {
  if (op.op != ir::TileOpCode::kCopy || op.args.size() != 2) return nullptr;
  const ir::Region* r = Arg(op, i);
  return r != nullptr && analysis::IsWorkspace(*r->buffer) ? r->buffer.get() : nullptr;
}

namespace {

bool MentionsAny(const ir::Expr& e, const std::set<const ir::VarNode*>& vars) {
  return ir::UsesVar(e, [&](const ir::VarNode* v) { return vars.contains(v); });
}

// How often a statement runs: a polynomial in the runtime extents of its loops (monomial: the
// sorted printed extents; {} is the constant term), or nullopt when not known (under an `if`,
// an extent that reads memory, overflow). Both scopes are projections of one body, so an
// extent printed alike names the same variables and has the same value on both sides: two
// equal polynomials are equal counts in every run (a runtime loop over tasks, say).
using Trips = std::optional<std::map<std::vector<std::string>, int64_t>>;

Trips Once() {
  Trips t(std::in_place);
  (*t)[{}] = 1;
  return t;
}

Trips TimesLoop(const Trips& t, const ir::Expr& extent) {
  if (!t.has_value() || ir::HasLoad(extent)) return std::nullopt;
  Trips out(std::in_place);
  const std::optional<int64_t> n = ir::AsConstInt(extent);
  const std::string text = n.has_value() ? "" : ir::PrintExpr(extent);
  for (const auto& [term, term_coef] : *t) {
    std::vector<std::string> monomial = term;
    int64_t coef = term_coef;
    if (n.has_value()) {
      if (__builtin_mul_overflow(coef, *n, &coef)) return std::nullopt;
    } else {
      monomial.insert(std::upper_bound(monomial.begin(), monomial.end(), text), text);
    }
    if (coef != 0) (*out)[monomial] = coef;
  }
  return out;
}

void AddTo(Trips& sum, const Trips& t) {
  if (!sum.has_value() || !t.has_value()) {
    sum.reset();
    return;
  }
  for (const auto& [monomial, coef] : *t) {
    int64_t& c = (*sum)[monomial];
    if (__builtin_add_overflow(c, coef, &c)) return sum.reset();
  }
}

// The count when it is the same constant in every run, else -1.
int64_t ConstantOf(const Trips& t) {
  if (!t.has_value() || t->size() > 1) return -1;
  if (t->empty()) return 0;
  return t->begin()->first.empty() ? t->begin()->second : -1;
}

// Per workspace: where it is written and read, and whether its writes may repeat. Also finds
// the author's cross-flag ids and hand-offs under vid-dependent control flow.
class Survey : public ir::Visitor {
 public:
  struct Use {
    int writes[2] = {0, 0};  // statements, per side (0 cube, 1 vector)
    int reads[2] = {0, 0};
    bool in_loop = false;
    target::Pipe write_pipe = target::Pipe::kFix;
    // Executions per side of the writes and the reads.
    Trips write_trips[2] = {Trips(std::in_place), Trips(std::in_place)};
    Trips read_trips[2] = {Trips(std::in_place), Trips(std::in_place)};
  };
  explicit Survey(PassContext& ctx) : ctx_(ctx) {}

  std::map<const ir::BufferNode*, Use> uses;
  std::vector<const ir::BufferNode*> order;  // first-seen order: keeps the plan deterministic
  std::set<int> author_ids;

 protected:
  void VisitKernelStmt(const ir::KernelNode& op) override {
    vid_vars_.insert(op.vid.get());
    ir::Visitor::VisitKernelStmt(op);
  }
  void VisitCoreScope(const ir::CoreScopeNode& op) override {
    const int saved = side_;
    side_ = op.core == ir::CoreKind::kCube ? 0 : 1;
    ir::Visitor::VisitCoreScope(op);
    side_ = saved;
  }
  void VisitLet(const ir::LetNode& op) override {
    if (MentionsAny(op.value, vid_vars_)) vid_vars_.insert(op.var.get());
    ir::Visitor::VisitLet(op);
  }
  void VisitFor(const ir::ForNode& op) override {
    auto ext = ir::AsConstInt(op.extent);
    const bool saved_loop = in_loop_, saved_vid = under_vid_;
    const Trips saved_trips = trips_;
    in_loop_ = in_loop_ || !ext.has_value() || *ext > 1;
    under_vid_ = under_vid_ || MentionsAny(op.min, vid_vars_) || MentionsAny(op.extent, vid_vars_);
    trips_ = TimesLoop(trips_, op.extent);
    ir::Visitor::VisitFor(op);
    in_loop_ = saved_loop;
    under_vid_ = saved_vid;
    trips_ = saved_trips;
  }
  void VisitIf(const ir::IfNode& op) override {
    const bool saved = under_vid_;
    const Trips saved_trips = trips_;
    under_vid_ = under_vid_ || MentionsAny(op.cond, vid_vars_);
    trips_.reset();  // how often the body runs is not known here
    ir::Visitor::VisitIf(op);
    under_vid_ = saved;
    trips_ = saved_trips;
  }
  void VisitCrossFlag(const ir::CrossFlagNode& op) override {
    auto id = ir::AsConstInt(op.flag);
    if (id.has_value()) {
      author_ids.insert(static_cast<int>(*id));
    } else {
      ctx_.diag->Error(op.loc) << "this cross-core flag's id `" << ir::PrintExpr(op.flag)
                               << "` is not a compile-time constant, so automatic cross-core sync "
                                  "(TL_ASCEND_AUTO_CV_SYNC) cannot choose ids that avoid it";
    }
  }
  void VisitTileOp(const ir::TileOpNode& op) override {
    if (side_ < 0) return;
    for (size_t i = 0; i < 2; ++i) {
      const ir::BufferNode* ws = WorkspaceArg(op, i);
      if (ws == nullptr) continue;
      auto [it, fresh] = uses.try_emplace(ws);
      if (fresh) order.push_back(ws);
      Use& u = it->second;
      (i == 0 ? u.writes : u.reads)[side_]++;
      AddTo((i == 0 ? u.write_trips : u.read_trips)[side_], trips_);
      if (i == 0) {
        u.in_loop = u.in_loop || in_loop_;
        const ir::Region* src = Arg(op, 1);
        u.write_pipe = src != nullptr && src->buffer->scope == ir::MemScope::kL0C
                           ? target::Pipe::kFix
                           : target::Pipe::kMte3;
      }
      if (under_vid_ && !analysis::IsCompilerWorkspace(*ws)) {
        u.write_trips[side_] = u.read_trips[side_] = std::nullopt;  // not paired (IsOneToOne)
      } else if (under_vid_) {
        ctx_.diag->Error(op.loc)
            << "this cube/vector hand-off sits under a loop or `if` that depends on vid, so the "
               "cube core (which has no vid) cannot pair it with the vector cores' copies; move "
               "the hand-off out of the vid-dependent control flow";
      }
    }
  }

 private:
  PassContext& ctx_;
  int side_ = -1;
  bool in_loop_ = false;
  bool under_vid_ = false;
  Trips trips_ = Once();  // executions of the statement being visited
  std::set<const ir::VarNode*> vid_vars_;
};

// A workspace the kernel declared is ordered only when it is a hand-off of the shape the
// compiler's own are (written on one side, read on the other, as often): the counters pair
// each write with one read. Others stay the author's to order (a write read many times, say).
bool IsOneToOne(const Survey::Use& u, int side) {
  return u.writes[1 - side] == 0 && u.reads[side] == 0 && u.write_trips[side].has_value() &&
         u.write_trips[side] == u.read_trips[1 - side];
}

// A workspace the kernel declared, written once (not in a loop, not under an `if`) and read
// a constant number of times on the other side, after it in the body: the producer sets the
// ready counter once per read (upstream's pipeline/matmul_add_pipeline.py writes a block's
// gemm result once and reads it back a quarter at a time).
bool IsOneToMany(const Survey::Use& u, int side) {
  return u.writes[1 - side] == 0 && u.reads[side] == 0 && u.writes[side] == 1 &&
         ConstantOf(u.write_trips[side]) == 1 && !u.in_loop &&
         ConstantOf(u.read_trips[1 - side]) > 1 && ConstantOf(u.read_trips[1 - side]) <= kMaxTokens;
}

struct Write {
  const ir::BufferNode* ws;
  bool guaranteed;
};

// The model write sequence of one counter's rewritten workspaces (see the file comment).
class WriteModel : public ir::Visitor {
 public:
  WriteModel(const Plan& plan, int counter) : plan_(plan), counter_(counter) {}
  std::vector<Write> writes;

 protected:
  void VisitFor(const ir::ForNode& op) override {
    auto ext = ir::AsConstInt(op.extent);
    if (ext.has_value() && *ext <= 0) return;
    if (auto unit = plan_.units.find(&op); unit != plan_.units.end()) {
      for (const ir::BufferNode* ws : unit->second) Add(ws);  // one run: one write of each
      return;
    }
    const bool saved = guaranteed_;
    guaranteed_ = guaranteed_ && ext.has_value();
    const int times = ext.has_value() && *ext == 1 ? 1 : 2;
    for (int t = 0; t < times; ++t) Visit(op.body);
    guaranteed_ = saved;
  }
  void VisitIf(const ir::IfNode& op) override {
    const bool saved = guaranteed_;
    guaranteed_ = false;
    Visit(op.then_body);
    Visit(op.else_body);
    guaranteed_ = saved;
  }
  void VisitTileOp(const ir::TileOpNode& op) override {
    if (const ir::BufferNode* ws = WorkspaceArg(op, 0)) Add(ws);
  }

 private:
  void Add(const ir::BufferNode* ws) {
    auto it = plan_.hand_offs.find(ws);
    if (it == plan_.hand_offs.end() || it->second.counter != counter_ || !it->second.rewritten)
      return;
    writes.push_back({ws, guaranteed_});
  }

  const Plan& plan_;
  int counter_;
  bool guaranteed_ = true;
};

using Members = std::set<const ir::BufferNode*>;

// Longest shape text a loop of constant trip count is unrolled into (see HandOffShape).
constexpr size_t kMaxShape = size_t{1} << 16;

// The shape of one side's accesses to some workspaces, as text: the workspaces in program
// order, loops of constant trip count unrolled (multi_buffer's rotation writes a slot in the
// prologue that the loop reads, and reads in the epilogue what the loop wrote: only the run's
// sequence matches), other loops and ifs that hold any by structure.
class HandOffShape : public ir::Visitor {
 public:
  HandOffShape(const Plan& plan, const Members& members, ir::CoreKind core, size_t arg)
      : plan_(plan), members_(members), core_(core), arg_(arg) {}
  std::string text;

 protected:
  void VisitCoreScope(const ir::CoreScopeNode& op) override {
    if (op.core == core_) ir::Visitor::VisitCoreScope(op);
  }
  void VisitFor(const ir::ForNode& op) override {
    const std::optional<int64_t> trips = ir::AsConstInt(op.extent);
    if (auto unit = plan_.units.find(&op); arg_ == 0 && unit != plan_.units.end()) {
      if (trips.has_value() && *trips <= 0) return;
      for (const ir::BufferNode* ws : unit->second)  // one run of a fill loop: one write
        if (members_.contains(ws)) text += ws->name + ";";
      return;
    }
    const size_t mark = text.size();
    Visit(op.body);
    const std::string once = text.substr(mark);
    text.resize(mark);
    if (once.empty() || (trips.has_value() && *trips <= 0)) return;
    if (trips.has_value() && once.size() * static_cast<size_t>(*trips) + mark <= kMaxShape) {
      for (int64_t t = 0; t < *trips; ++t) text += once;
    } else {
      text += "for{" + once + "}";
    }
  }
  void VisitIf(const ir::IfNode& op) override {
    Nest("if{", [&] {
      Visit(op.then_body);
      text += "}else{";
      Visit(op.else_body);
    });
  }
  void VisitTileOp(const ir::TileOpNode& op) override {
    const ir::BufferNode* ws = WorkspaceArg(op, arg_);
    if (ws != nullptr && members_.contains(ws)) text += ws->name + ";";
  }

 private:
  // Appends `open` .. `}` around what `body` adds, or nothing if it adds no hand-off.
  template <typename F>
  void Nest(const char* open, F body) {
    const size_t mark = text.size();
    text += open;
    const size_t inner = text.size();
    body();
    if (text.find(';', inner) == std::string::npos) {
      text.resize(mark);
    } else {
      text += "}";
    }
  }

  const Plan& plan_;
  const Members& members_;
  ir::CoreKind core_;
  size_t arg_;  // 0: the workspace writes, 1: the reads
};

// True if the producer of direction `dir` writes `members` in the order the consumer reads
// them: then one counter pairs the n-th write of them with the n-th read.
bool SameOrder(const ir::Kernel& kernel, const Plan& plan, Dir dir, const Members& members,
               std::string* why) {
  const bool c2v = dir == kCubeToVector;
  HandOffShape writes(plan, members, c2v ? ir::CoreKind::kCube : ir::CoreKind::kVector, 0);
  HandOffShape reads(plan, members, c2v ? ir::CoreKind::kVector : ir::CoreKind::kCube, 1);
  writes.Visit(kernel.body);
  reads.Visit(kernel.body);
  *why = "writes: " + writes.text.substr(0, 400) + " reads: " + reads.text.substr(0, 400);
  return writes.text == reads.text;
}

// First fit: each workspace joins the first group that stays in order with it. A single
// workspace out of order is a compiler bug upstream (the two sides' loop or `if` structure
// differs around it): fail here rather than emit a cross-core race.
std::vector<Members> FirstFit(const ir::Kernel& kernel, const Plan& plan, Dir dir,
                              const std::vector<const ir::BufferNode*>& ws) {
  std::vector<Members> groups;
  std::string why;
  for (const ir::BufferNode* w : ws) {
    bool placed = false;
    for (Members& g : groups) {
      Members with = g;
      with.insert(w);
      if (!SameOrder(kernel, plan, dir, with, &why)) continue;
      g = std::move(with);
      placed = true;
      break;
    }
    if (placed) continue;
    TILEJIT_CHECK(SameOrder(kernel, plan, dir, {w}, &why))
        << "cross_core_sync: the " << (dir == kCubeToVector ? "cube->vector" : "vector->cube")
        << " hand-off through '" << w->name
        << "' is written in another loop or `if` structure than it is read (" << why
        << "); no counter can pair its writes with its reads";
    groups.push_back({w});
  }
  return groups;
}

// Splits `ws` (one direction's hand-offs, in first-seen order) into groups that are each in
// order: by workspace family (multi_buffer keeps each family in order, and it counted on two
// ids per family), or first fit, which needs no names (a kernel given as Tile IR text after
// multi_buffer has lost them) and may merge families; the fewer groups win.
std::vector<Members> SplitInOrder(const ir::Kernel& kernel, const Plan& plan, Dir dir,
                                  const std::vector<const ir::BufferNode*>& ws) {
  std::vector<Members> families;
  std::map<std::string_view, size_t> index;
  for (const ir::BufferNode* w : ws) {
    auto [it, fresh] = index.try_emplace(WorkspaceFamily(*w), families.size());
    if (fresh) families.emplace_back();
    families[it->second].insert(w);
  }
  std::vector<Members> fit = FirstFit(kernel, plan, dir, ws);
  std::string why;
  for (const Members& f : families)
    if (!SameOrder(kernel, plan, dir, f, &why)) return fit;
  return fit.size() < families.size() ? fit : families;
}

// Groups each direction's hand-offs into counters: the whole direction if it is in order,
// else groups that are (SplitInOrder).
void MakeCounters(const ir::Kernel& kernel, const std::vector<const ir::BufferNode*>& order,
                  Plan* plan) {
  for (Dir dir : {kCubeToVector, kVectorToCube}) {
    std::vector<const ir::BufferNode*> ws;
    for (const ir::BufferNode* w : order) {
      auto it = plan->hand_offs.find(w);
      if (it == plan->hand_offs.end() || it->second.dir != dir) continue;
      if (it->second.sets_per_write == 1) {
        ws.push_back(w);
        continue;
      }
      it->second.counter = static_cast<int>(plan->counters.size());  // a ready counter alone
      Counter c;
      c.dir = dir;
      c.ready = 0;  // ids assigned later
      c.write_pipe = it->second.write_pipe;
      plan->counters.push_back(c);
    }
    if (ws.empty()) continue;
    std::string why;
    std::vector<Members> groups{Members(ws.begin(), ws.end())};
    if (!SameOrder(kernel, *plan, dir, groups[0], &why))
      groups = SplitInOrder(kernel, *plan, dir, ws);
    for (const Members& g : groups) {
      Counter c;
      c.dir = dir;
      c.ready = 0;  // ids assigned later
      for (const ir::BufferNode* w : ws) {
        if (!g.contains(w)) continue;
        HandOff& h = plan->hand_offs.at(w);
        h.counter = static_cast<int>(plan->counters.size());
        c.write_pipe = h.write_pipe;
        if (h.rewritten) c.slot_free = 0;
      }
      plan->counters.push_back(c);
    }
  }
}

int Tokens(const std::vector<Write>& writes) {
  int best = kMaxTokens;
  std::map<const ir::BufferNode*, size_t> last;
  std::vector<int> guaranteed_before(writes.size() + 1, 0);  // prefix counts
  for (size_t i = 0; i < writes.size(); ++i) {
    guaranteed_before[i + 1] = guaranteed_before[i] + (writes[i].guaranteed ? 1 : 0);
  }
  for (size_t i = 0; i < writes.size(); ++i) {
    auto it = last.find(writes[i].ws);
    if (it != last.end()) {
      const int between = guaranteed_before[i] - guaranteed_before[it->second + 1];
      best = std::min(best, 1 + between);
    }
    last[writes[i].ws] = i;
  }
  return std::max(best, 1);
}

void AssignIds(const ir::Kernel& kernel, const std::set<int>& taken, Plan* plan, PassContext& ctx) {
  std::vector<std::optional<int>*> wanted;
  for (Counter& c : plan->counters) {
    if (c.ready.has_value()) wanted.push_back(&c.ready);
    if (c.slot_free.has_value()) wanted.push_back(&c.slot_free);
  }
  const int limit = static_cast<int>(ctx.target->cross_flag_ids.value);
  int next = 0;
  for (std::optional<int>* w : wanted) {
    while (next < limit && taken.count(next) > 0) ++next;
    if (next >= limit) {
      ctx.diag->Error(kernel.loc)
          << "automatic cross-core sync needs " << wanted.size() << " cross-core flag ids, but "
          << "the kernel's own cross flags leave fewer of the " << limit << " ids (0.." << limit - 1
          << ") free; use fewer distinct ids in the kernel's own set_cross_flag/wait_cross_flag";
      return;
    }
    **w = next++;
  }
}

// Declared workspaces that are neither one-to-one nor one-to-many hand-offs become fills
// when FindFillLoops finds the loops that fill them; the others stay the author's.
void AddFills(const ir::Kernel& kernel, const std::vector<FillCandidate>& candidates,
              const std::map<const ir::BufferNode*, HandOff>& pending, Plan* plan) {
  std::set<const ir::BufferNode*> filled;
  plan->units = FindFillLoops(kernel, candidates, &filled);
  for (const FillCandidate& c : candidates) {
    if (!filled.contains(c.ws)) continue;
    HandOff h = pending.at(c.ws);
    h.in_units = true;
    h.rewritten = c.reads > 1;
    plan->hand_offs[c.ws] = h;
  }
}

}  // namespace

Plan MakePlan(const ir::Kernel& kernel, PassContext& ctx) {
  Survey survey(ctx);
  survey.VisitKernel(kernel);
  Plan plan;
  std::vector<FillCandidate> fills;
  std::map<const ir::BufferNode*, HandOff> pending;
  for (const ir::BufferNode* ws : survey.order) {
    const Survey::Use& u = survey.uses.at(ws);
    for (int side = 0; side < 2; ++side) {
      if (u.writes[side] == 0 || u.reads[1 - side] == 0) continue;
      HandOff h;
      h.dir = side == 0 ? kCubeToVector : kVectorToCube;
      h.write_pipe = u.write_pipe;
      if (!analysis::IsCompilerWorkspace(*ws) && IsOneToMany(u, side)) {
        h.sets_per_write = static_cast<int>(ConstantOf(u.read_trips[1 - side]));
        plan.hand_offs[ws] = h;
        continue;
      }
      if (!analysis::IsCompilerWorkspace(*ws) && !IsOneToOne(u, side)) {
        if (u.writes[1 - side] == 0 && u.reads[side] == 0)
          fills.push_back({ws, side, u.writes[side], ConstantOf(u.read_trips[1 - side])});
        pending[ws] = h;
        continue;
      }
      TILEJIT_CHECK(u.writes[1 - side] == 0 && u.reads[side] == 0 &&
                    u.writes[side] == u.reads[1 - side])
          << "compiler workspace '" << ws->name << "' is not a one-to-one hand-off";
      h.rewritten = u.in_loop || u.writes[side] > 1;
      plan.hand_offs[ws] = h;
    }
  }
  if (ctx.diag->has_errors()) return plan;  // a vid-dependent if makes the sides differ
  AddFills(kernel, fills, pending, &plan);
  MakeCounters(kernel, survey.order, &plan);
  for (size_t i = 0; i < plan.counters.size(); ++i) {
    if (!plan.counters[i].slot_free.has_value()) continue;
    WriteModel model(plan, static_cast<int>(i));
    model.Visit(kernel.body);
    plan.counters[i].tokens = Tokens(model.writes);
  }
  AssignIds(kernel, survey.author_ids, &plan, ctx);
  return plan;
}

}  // namespace tilejit::passes::xsync
