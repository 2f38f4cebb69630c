// SPDX-License-Identifier: Apache-2.0
// Why reorder: pipes execute their own instructions in program order, so in
// `body(k); body(k + 1)` the work of k + 1 queues behind everything body(k) puts on the same
// pipe, including the waits for the other core. In flash attention the cube's MTE2 would wait
// for the vector's probabilities of k before it could load K for k + 1, so the cube could not
// compute the scores of k + 1 while the vectors do the softmax of k.
//
// Stages: a copy of the body is cut before every statement that reads a compiler workspace
// (the consumer side of a cube <-> vector hand-off, where the pipe will wait for the other
// core). The group is emitted stage by stage, each stage copy by copy: for flash attention
// the cube runs QK(k), QK(k+1), PV(k), PV(k+1) and the vectors softmax(k), softmax(k+1),
// rescale(k), rescale(k+1), so each core works on one iteration while the other core works on
// the other. Within a stage copies stay whole: a copy's hand-off reads come before the next
// copy's, so no pipe waits for iteration k + 1 before it has finished k. A body without
// hand-offs is one stage, and stays in copy order (each pipe queues the same work either way).
//
// Within a stage, the statements that do not depend on the stage's hand-off reads (in flash
// attention the loads of V(k) and V(k + 1), which the kernel writes after the copy of P(k))
// go first, for every copy: a pipe's queue would otherwise hold them behind the wait for the
// other core, and the cube would sit idle through the softmax it could overlap with loads.
// Within one copy's stage, what the stage's workspace write depends on goes first: the other
// core waits for that write (the vectors cast and write P(k) before they update the running
// row sum, which nothing across cores waits for).
//
// Rotation (Rotate, static extents of two or more groups): within one group the cube still
// has nothing to do while the vectors run softmax(k) and softmax(k + 1), since QK(k + 2) is
// in the next trip, queued behind the waits for P(k). So the loop is software-pipelined by d
// stages: a prologue runs group 0's first d stages, each trip runs group g's later stages
// with group g + 1's first d stages beside them (stage s of g + 1 with stage s + d of g, and
// stage 0 of g + 1 ahead of all), and an epilogue runs the last group's later stages. The
// trip is one list schedule over both groups' statements in program order, so dependences
// hold across them. d is half the stages: with flash attention's four (QK, softmax, PV,
// rescale) d = 2, so the cube computes QK(k + 2) while the vectors still do softmax(k + 1),
// and the vectors run softmax(k + 2) between rescale(k) and rescale(k + 1) instead of waiting
// for two P @ V round trips through the cube in a row. With d = 1 the vectors would idle
// through those round trips; with d = 3 the cube would, through the softmaxes (measured:
// 10074 cycles for both, 8882 with d = 2, bench/kernels).
//
// The order is a list schedule (a topological order of the dependences, picking the ready
// statement of the lowest (stage, late, copy, feeds, position), late meaning "depends on a
// hand-off read of its stage", feeds "the copy's workspace write of the stage depends on it"),
// so it never reverses two dependent statements. Dependences are by buffer
// identity: two statements conflict when they touch one buffer and one of them writes it (distinct
// buffers never alias before memory planning; GM params are distinct tensors). Anything other than
// a tile op or a scalar store (syncs, loops, ifs, scopes) is a fence ordered against everything, so
// an Expert kernel's own syncs keep their meaning.
//
// Hand-off order: cross_core_sync pairs the n-th workspace write of a counter with the n-th
// workspace read of that counter, so a schedule must keep the writes of a counter in the same
// relative order as their reads. A counter is a direction, or, when CrossFlagsPerFamily says
// two flag ids per workspace family are free, one workspace family (a workspace and its
// slots): then the next group's scores may be written before the current group's P @ V block,
// which is what lets the cube compute QK(k + 2) while the vectors still do softmax(k + 1).
// Across groups of a rotated body, Ordered chains the hand-offs of one counter; within one
// group the schedule is checked afterwards (KeepsHandOffOrder) and, if a dependence held back
// a read while the next copy's write moved ahead (devgen seed 50196), the copies keep their
// program order instead.
#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "compiler/analysis/buffer_access.h"
#include "compiler/passes/cross_core_sync.h"
#include "compiler/passes/multi_buffer_internal.h"

namespace tilejit::passes::multi_buffer_internal {
namespace {

struct Unit {
  ir::Stmt stmt;
  bool fence = false;
  std::unordered_map<const ir::BufferNode*, bool> touches;  // buffer -> written
};

// The statements of one copy, in order, and the lets that bind over them. A let whose value
// reads no buffer depends on nothing a statement does, so it can bind over the whole group;
// one that loads a buffer element stops the interleaving (returns false).
bool Flatten(const ir::Stmt& s, std::vector<ir::Stmt>* out, std::vector<const ir::LetNode*>* lets) {
  if (const auto* seq = ir::TryAs<ir::SeqNode>(s)) {
    for (const ir::Stmt& c : seq->stmts)
      if (!Flatten(c, out, lets)) return false;
    return true;
  }
  if (const auto* let = ir::TryAs<ir::LetNode>(s)) {
    if (!analysis::AccessesOf(*let).empty()) return false;
    lets->push_back(let);
    return Flatten(let->body, out, lets);
  }
  out->push_back(s);
  return true;
}

Unit MakeUnit(const ir::Stmt& s) {
  Unit u{s, s->kind != ir::StmtKind::kTileOp && s->kind != ir::StmtKind::kStore, {}};
  for (const analysis::BufferAccess& a : analysis::AccessesOf(*s))
    u.touches[a.buffer] = u.touches[a.buffer] || a.write;
  return u;
}

bool ReadsWorkspace(const Unit& u) {
  for (const auto& [buffer, written] : u.touches)
    if (!written && buffer->scope == ir::MemScope::kGM && buffer->compiler_made) return true;
  return false;
}

// The compiler workspace `u` writes or reads (a hand-off's side), or null; *written says
// which. Fences are ordered against everything already.
const ir::BufferNode* HandOff(const Unit& u, bool* written) {
  if (u.fence) return nullptr;
  for (const auto& [buffer, w] : u.touches) {
    if (buffer->scope == ir::MemScope::kGM && buffer->compiler_made) {
      *written = w;
      return buffer;
    }
  }
  return nullptr;
}

// Which cross_core_sync counter orders workspace `ws`'s hand-offs besides their direction
// (see the file comment): its family, or one for all.
std::string_view CounterKey(const ir::BufferNode& ws, bool per_family) {
  return per_family ? WorkspaceFamily(ws) : std::string_view();
}

bool Conflict(const Unit& a, const Unit& b) {
  if (a.fence || b.fence) return true;
  for (const auto& [buffer, written] : a.touches) {
    auto it = b.touches.find(buffer);
    if (it != b.touches.end() && (written || it->second)) return true;
  }
  return false;
}

// One schedulable statement: its unit and its place in the priority order.
struct Item {
  const Unit* unit;
  int stage;
  size_t copy;
  size_t pos;
  int group = 0;  // in a rotated body: 0 the current group, 1 the next
};

// Items of different groups that both write (or both read) workspaces of one counter keep
// their order: cross_core_sync pairs a counter's hand-offs in the order they are written and
// read. Writes of a workspace are on its producer's core, reads on the consumer's, so "both
// write" within one counter means one core's program order.
bool Ordered(const Item& a, const Item& b, bool per_family) {
  if (Conflict(*a.unit, *b.unit)) return true;
  if (a.group == b.group) return false;
  bool wa = false, wb = false;
  const ir::BufferNode* x = HandOff(*a.unit, &wa);
  const ir::BufferNode* y = HandOff(*b.unit, &wb);
  return x != nullptr && y != nullptr && wa == wb &&
         CounterKey(*x, per_family) == CounterKey(*y, per_family);
}

// The copies' statements cut into stages, and the lets that bind over all of them.
struct Split {
  std::vector<std::vector<Unit>> units;  // per copy, in order
  std::vector<std::vector<int>> stages;  // per copy, the stage of each unit
  std::vector<const ir::LetNode*> lets;
  bool fenced = false;  // some unit is a fence
  int max_stage = 0;
};

bool SplitCopies(const std::vector<ir::Stmt>& copies, Split* out) {
  out->units.resize(copies.size());
  out->stages.resize(copies.size());
  for (size_t c = 0; c < copies.size(); ++c) {
    std::vector<ir::Stmt> flat;
    if (!Flatten(copies[c], &flat, &out->lets)) return false;
    int stage = 0;
    for (size_t j = 0; j < flat.size(); ++j) {
      out->units[c].push_back(MakeUnit(flat[j]));
      if (j > 0 && ReadsWorkspace(out->units[c][j])) ++stage;
      out->stages[c].push_back(stage);
      out->fenced = out->fenced || out->units[c][j].fence;
    }
    out->max_stage = std::max(out->max_stage, stage);
    if (out->units[c].size() != out->units[0].size()) return false;
  }
  return true;
}

// Appends the units of `split` whose stage passes `keep`, in program order, scheduled in
// stage `place(stage)`; `group` is 1 for the next group of a rotated body, else 0.
template <typename Keep, typename Place>
void AddItems(const Split& split, Keep keep, Place place, int group, std::vector<Item>* items) {
  for (size_t c = 0; c < split.units.size(); ++c)
    for (size_t j = 0; j < split.units[c].size(); ++j)
      if (keep(split.stages[c][j]))
        items->push_back({&split.units[c][j], place(split.stages[c][j]), c, j, group});
}

// A list schedule of `items` (given in program order): a topological order of their
// dependences that picks the ready item of the lowest (stage, late, copy, position), where
// late means "reads a workspace, or depends through items of its stage on one that does".
// Every predecessor comes earlier in `items`, so one pass in that order settles `late`.
ir::Stmt Schedule(const std::vector<Item>& items, const std::vector<const ir::LetNode*>& lets,
                  bool per_family, SourceLoc loc) {
  const size_t n = items.size();
  std::vector<int> preds(n, 0);
  std::vector<std::vector<size_t>> succs(n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (!Ordered(items[i], items[j], per_family)) continue;
      succs[i].push_back(j);
      ++preds[j];
    }
  }
  std::vector<bool> late(n, false);
  for (size_t i = 0; i < n; ++i) {
    if (ReadsWorkspace(*items[i].unit)) late[i] = true;
    if (!late[i]) continue;
    for (size_t j : succs[i])
      if (items[j].stage == items[i].stage) late[j] = true;
  }
  // Within a copy's stage, what the stage's hand-off write needs goes first: the other core
  // waits for that write, and the rest of the stage (a running sum) can follow it.
  std::vector<bool> feeds(n, false);
  for (size_t i = n; i-- > 0;) {
    bool written = false;
    feeds[i] = HandOff(*items[i].unit, &written) != nullptr && written;
    for (size_t j : succs[i])
      feeds[i] = feeds[i] || (feeds[j] && items[j].stage == items[i].stage &&
                              items[j].copy == items[i].copy && items[j].group == items[i].group);
  }
  auto key = [&](size_t i) {
    return std::make_tuple(items[i].stage, late[i], items[i].copy, !feeds[i], items[i].pos);
  };
  std::vector<ir::Stmt> out;
  std::vector<bool> done(n, false);
  while (out.size() < n) {
    size_t best = n;
    for (size_t i = 0; i < n; ++i) {
      if (done[i] || preds[i] != 0) continue;
      if (best == n || key(i) < key(best)) best = i;
    }
    done[best] = true;
    out.push_back(items[best].unit->stmt);
    for (size_t j : succs[best]) --preds[j];
  }
  ir::Stmt body = ir::Seq(std::move(out), loc);
  for (auto it = lets.rbegin(); it != lets.rend(); ++it)
    body = std::make_shared<ir::LetNode>((*it)->var, (*it)->value, body, (*it)->loc);
  return body;
}

// True if `scheduled` (a Seq under lets) writes the workspaces of each counter (a direction,
// or a family of it with `per_family`) in the order it reads them. cross_core_sync pairs a
// counter's n-th write with its n-th read, and the priority order alone does not keep them in
// step: a dependence can hold back a read (a chain through one UB tile, copy by copy) while
// the next copy's write moves ahead (devgen seed 50196).
bool KeepsHandOffOrder(ir::Stmt scheduled, bool per_family) {
  while (const auto* let = ir::TryAs<ir::LetNode>(scheduled)) scheduled = let->body;
  using Seqs = std::array<std::vector<const ir::BufferNode*>, 2>;  // [written]
  std::map<std::pair<bool, std::string_view>, Seqs> seq;           // (to the vector core, key)
  for (const ir::Stmt& s : ir::As<ir::SeqNode>(scheduled).stmts) {
    const Unit u = MakeUnit(s);
    if (u.fence) continue;  // ordered against everything: holds its hand-offs in place
    const ir::BufferNode* ws = nullptr;
    bool written = false, cube_side = false;
    for (const auto& [buffer, w] : u.touches) {
      if (buffer->scope == ir::MemScope::kGM && buffer->compiler_made) {
        ws = buffer;
        written = w;
      } else if (buffer->scope == ir::MemScope::kL0C || buffer->scope == ir::MemScope::kL1) {
        cube_side = true;
      }
    }
    if (ws == nullptr) continue;
    seq[{written == cube_side, CounterKey(*ws, per_family)}][written ? 1 : 0].push_back(ws);
  }
  for (auto& [key, sides] : seq) {  // only the hand-offs with both ends in the group pair up
    for (int side = 0; side < 2; ++side) {
      const std::vector<const ir::BufferNode*>& other = sides[1 - side];
      std::erase_if(sides[side], [&](const ir::BufferNode* b) {
        return std::find(other.begin(), other.end(), b) == other.end();
      });
    }
    if (sides[0] != sides[1]) return false;
  }
  return true;
}

// The statements of a scheduled block (a Seq under lets).
std::vector<ir::Stmt> StmtsOf(ir::Stmt scheduled) {
  while (const auto* let = ir::TryAs<ir::LetNode>(scheduled)) scheduled = let->body;
  return ir::As<ir::SeqNode>(scheduled).stmts;
}

int Same(int stage) { return stage; }

// How many stages of the next group a rotated body runs ahead of the current group's: half of
// them, rounded down, at least one (see the file comment).
int AheadDepth(const Split& split) { return std::max(1, (split.max_stage + 1) / 2); }

}  // namespace

ir::Stmt Interleave(const std::vector<ir::Stmt>& copies, bool per_family, SourceLoc loc) {
  Split split;
  if (!SplitCopies(copies, &split)) return nullptr;
  std::vector<Item> items;
  AddItems(
      split, [](int) { return true; }, Same, 0, &items);
  ir::Stmt scheduled = Schedule(items, split.lets, per_family, loc);
  return KeepsHandOffOrder(scheduled, per_family) ? scheduled
                                                  : nullptr;  // else the copies keep their order
}

std::optional<Rotation> Rotate(const std::vector<ir::Stmt>& first,
                               const std::vector<ir::Stmt>& current,
                               const std::vector<ir::Stmt>& next, const std::vector<ir::Stmt>& last,
                               bool per_family, SourceLoc loc) {
  Split f, c, n, l;
  if (!SplitCopies(first, &f) || !SplitCopies(current, &c) || !SplitCopies(next, &n) ||
      !SplitCopies(last, &l))
    return std::nullopt;
  if (c.fenced || c.max_stage == 0) return std::nullopt;
  const int d = AheadDepth(c);
  auto ahead = [d](int stage) { return stage < d; };
  auto behind = [d](int stage) { return stage >= d; };
  Rotation r;
  std::vector<Item> items;
  AddItems(f, ahead, Same, 0, &items);
  r.prologue = Schedule(items, f.lets, per_family, loc);
  items.clear();
  // Stage s of the next group runs beside stage s + d of the current one; the next group's
  // first stage goes before both (it waits for nothing of the current group's later stages).
  AddItems(
      c, behind, [d](int stage) { return stage - d + 1; }, 0, &items);
  AddItems(
      n, ahead, [](int stage) { return stage == 0 ? 0 : stage + 1; }, 1, &items);
  std::vector<const ir::LetNode*> lets = c.lets;
  lets.insert(lets.end(), n.lets.begin(), n.lets.end());
  r.body = Schedule(items, lets, per_family, loc);
  items.clear();
  AddItems(l, behind, Same, 0, &items);
  r.epilogue = Schedule(items, l.lets, per_family, loc);
  // The hand-offs must stay in step over the whole unrolled run; one and two trips of the
  // body stand for any number (each trip writes and reads the same sequence).
  auto run = [&](int trips) {
    std::vector<ir::Stmt> all = StmtsOf(r.prologue);
    for (int t = 0; t < trips; ++t) {
      std::vector<ir::Stmt> b = StmtsOf(r.body);
      all.insert(all.end(), b.begin(), b.end());
    }
    std::vector<ir::Stmt> e = StmtsOf(r.epilogue);
    all.insert(all.end(), e.begin(), e.end());
    return ir::Seq(std::move(all), loc);
  };
  if (!KeepsHandOffOrder(run(1), per_family) || !KeepsHandOffOrder(run(2), per_family))
    return std::nullopt;
  return r;
}

}  // namespace tilejit::passes::multi_buffer_internal
