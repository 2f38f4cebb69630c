// SPDX-License-Identifier: Apache-2.0
// The dense state of sync_analysis_internal.h: slot numbering for one run, and the merge of two
// paths. The encoding of a missing record (every known bit set, no carried bit) is what makes
// the merge bitwise: a pipe knows a record after an `if` only if it knows it on both paths, and a
// record that exists on one path only is kept as it is there.
#include <algorithm>
#include <utility>

#include "common/check.h"
#include "compiler/analysis/sync_analysis_internal.h"

namespace tilejit::analysis::sync::internal {
namespace {

constexpr int64_t kMaxIndexedEventId = 2048;

Row NewRow(const Geometry& g) { return Row(static_cast<size_t>(g.words), 0); }

// A key in `mine` that `theirs` does not hold is kept when `theirs` has no such record (on that
// path the record does not exist, so there is nothing to be unordered with).
Row MergeSnap(const Row& mine, const State& mine_state, const Row& theirs, const State& their_state,
              const Geometry& g) {
  const Word* mp = RowOf(mine_state, g, Geometry::kPresent);
  const Word* tp = RowOf(their_state, g, Geometry::kPresent);
  Row out(mine.size());
  for (size_t w = 0; w < out.size(); ++w)
    out[w] = (mine[w] & (theirs[w] | ~tp[w])) | (theirs[w] & ~mp[w]);
  return out;
}

void MergeQueue(Queue& qa, const Queue& qb, const State& a, const State& b, const Geometry& g) {
  if (qa.lost || qb.lost || qa.tokens.size() != qb.tokens.size() || qa.deficit != qb.deficit) {
    qa = Queue{};
    qa.lost = true;
    return;
  }
  for (size_t i = 0; i < qa.tokens.size(); ++i)
    qa.tokens[i] = MergeSnap(qa.tokens[i], a, qb.tokens[i], b, g);
}

void MergeEvents(const State& a, const State& b, const Geometry& g, State& out) {
  for (const auto& [k, eb] : b.evs) {
    Ev* found = out.evs.Find(k);
    if (found == nullptr) {
      Ev e = eb;
      e.surely = false;
      out.evs[k] = std::move(e);
      continue;
    }
    Ev& ea = *found;
    ea.snap = MergeSnap(a.evs.Find(k)->snap, a, eb.snap, b, g);
    ea.maybe = ea.maybe || eb.maybe;
    ea.surely = ea.surely && eb.surely;
    if (ea.setter == nullptr) ea.setter = eb.setter;
  }
  for (auto& [k, ea] : out.evs)
    if (b.evs.Find(k) == nullptr) ea.surely = false;
}

}  // namespace

State Merge(const State& a, const State& b, const Geometry& g) {
  State out = a;
  const size_t w = static_cast<size_t>(g.words);
  Word* o = out.bits.data();
  const Word* y = b.bits.data();
  for (size_t i = 0; i < w; ++i) o[i] |= y[i];                                     // present
  for (size_t i = w; i < w * Geometry::kCarried; ++i) o[i] &= y[i];                // known, xknown
  for (size_t i = w * Geometry::kCarried; i < out.bits.size(); ++i) o[i] |= y[i];  // carried
  MergeEvents(a, b, g, out);
  for (const auto& [k, qb] : b.queues) MergeQueue(out.queues[k], qb, a, b, g);
  for (auto& [k, qa] : out.queues)
    if (b.queues.Find(k) == nullptr) MergeQueue(qa, Queue{}, a, b, g);
  return out;
}

Slots::Slots(const std::vector<const Program*>& programs) {
  TILEJIT_CHECK(!programs.empty() && programs.size() <= 2) << "sync analysis of 1 or 2 cores";
  for (size_t c = 0; c < programs.size(); ++c) {
    base_[c + 1] = base_[c] + programs[c]->id_limit() * kPartsPerNode;
    conflicts_[c] = &programs[c]->conflicts();
    loop_[c].assign(static_cast<size_t>(programs[c]->id_limit()), -1);
  }
  if (programs.size() == 1) base_[2] = base_[1];
  g_.words = (base_[2] + 63) / 64;
  node_.assign(static_cast<size_t>(base_[2]), nullptr);
  event_id_.assign(static_cast<size_t>(base_[2]), 0);
  for (size_t c = 0; c < programs.size(); ++c) {
    own_[c] = NewRow(g_);
    for (Row& r : pipe_[c]) r = NewRow(g_);
    for (int s = base_[c]; s < base_[c + 1]; ++s) SetBit(own_[c].data(), s);
    Index(static_cast<int>(c), programs[c]->root());
  }
  for (size_t c = programs.size(); c < 2; ++c) {
    own_[c] = NewRow(g_);
    for (Row& r : pipe_[c]) r = NewRow(g_);
  }
}

void Slots::Index(int core, const Node* n) {
  if (n->kind == NodeKind::kFor) loop_[core][n->id] = g_.loops++;
  for (size_t i = 0; i < n->parts.size(); ++i) {
    const int slot = Of(core, n, static_cast<int>(i));
    node_[slot] = n;
    SetBit(pipe_[core][static_cast<int>(n->parts[i].pipe)].data(), slot);
    const std::vector<Access>& acc = n->parts[i].accesses;
    if (acc.empty() || acc[0].event_group < 0) continue;
    std::array<Row, 2>& rows = events_[{core, acc[0].event_group}];
    if (rows[0].empty()) rows = {NewRow(g_), NewRow(g_)};
    SetBit(rows[acc[0].event_set ? 1 : 0].data(), slot);
    event_id_[slot] = acc[0].event_id;
    // Ids index a bit matrix (Walker::Interfere): only sizes a program can hold are indexed.
    if (acc[0].event_id < kMaxIndexedEventId)
      event_id_limit_ = std::max(event_id_limit_, acc[0].event_id + 1);
  }
  for (const auto& k : n->kids) Index(core, k.get());
}

const std::vector<Conflict>& Slots::ConflictsOf(int core, const Node* n, int part) const {
  static const std::vector<Conflict> kNone;
  const size_t at = static_cast<size_t>(n->id) * kPartsPerNode + part;
  const auto& by_part = conflicts_[core]->by_part;
  return at < by_part.size() ? by_part[at] : kNone;
}

const Row& Slots::Events(int core, int group, bool sets) const {
  static const Row kNone;
  auto it = events_.find({core, group});
  return it != events_.end() ? it->second[sets ? 1 : 0] : kNone;
}

State Slots::Empty() const {
  State st;
  st.bits.assign(static_cast<size_t>(g_.rows()) * g_.words, 0);
  std::fill(st.bits.begin() + g_.words * Geometry::kKnown,
            st.bits.begin() + g_.words * Geometry::kCarried, ~Word{0});
  return st;
}

}  // namespace tilejit::analysis::sync::internal
