// SPDX-License-Identifier: Apache-2.0
// Which statement parts of a program touch common bytes. The analysis asks this for every part
// it issues, against every record it holds, many times per compile (sync_insert re-analyses as
// it places syncs); the answer depends only on the accesses, which syncs never change, so it is
// computed once per Program: accesses sorted by (memory, tensor, first byte) and swept, which
// costs the number of overlapping pairs rather than the square of the program.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "common/check.h"
#include "compiler/analysis/sync_analysis_internal.h"

namespace tilejit::analysis::sync {
namespace internal {
namespace {

struct Ref {
  int offset = 0;  // node id * kPartsPerNode + part
  const Access* access = nullptr;
};

bool SameMemory(const Access& a, const Access& b) { return a.mem == b.mem && a.tensor == b.tensor; }

void Collect(const Node* n, std::vector<const Part*>& parts, std::vector<Ref>& refs) {
  TILEJIT_CHECK(n->parts.size() <= static_cast<size_t>(kPartsPerNode))
      << "sync analysis: a statement with " << n->parts.size() << " parts";
  for (size_t i = 0; i < n->parts.size(); ++i) {
    const int offset = n->id * kPartsPerNode + static_cast<int>(i);
    parts[offset] = &n->parts[i];
    for (const Access& a : n->parts[i].accesses)
      if (a.event_group < 0) refs.push_back({offset, &a});
  }
  for (const auto& k : n->kids) Collect(k.get(), parts, refs);
}

// (earlier part, later part) pairs with overlapping byte ranges, one of them writing: a superset
// of the conflicts (Conflicts decides), including a part against its own previous instance.
std::vector<std::pair<int, int>> Candidates(std::vector<Ref>& refs) {
  // Grouped by memory and tensor (the group order is irrelevant: the pairs are sorted below).
  auto key = [](const Ref& r) {
    return std::make_tuple(r.access->mem, reinterpret_cast<uintptr_t>(r.access->tensor),
                           r.access->begin);
  };
  std::sort(refs.begin(), refs.end(), [&](const Ref& x, const Ref& y) { return key(x) < key(y); });
  std::vector<std::pair<int, int>> out;
  for (size_t i = 0; i < refs.size(); ++i) {
    const Access& a = *refs[i].access;
    for (size_t j = i; j < refs.size(); ++j) {
      const Access& b = *refs[j].access;
      if (!SameMemory(a, b) || b.begin >= a.end) break;
      if (!a.write && !b.write) continue;
      out.emplace_back(refs[i].offset, refs[j].offset);
      if (refs[i].offset != refs[j].offset) out.emplace_back(refs[j].offset, refs[i].offset);
    }
  }
  // By the later (checked) part, then the earlier one: the order findings are reported in.
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return std::tie(x.second, x.first) < std::tie(y.second, y.first);
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The access pair a finding between `earlier` and `later` names: any conflicting pair, a read
// after a write when there is one.
std::optional<Conflict> Select(const Part& earlier, const Part& later) {
  const Access* x = nullptr;
  const Access* y = nullptr;
  for (const Access& a : earlier.accesses) {
    for (const Access& b : later.accesses) {
      if (!Conflicts(a, b)) continue;
      const bool raw = a.write && !b.write;
      if (x == nullptr || (raw && !(x->write && !y->write))) {
        x = &a;
        y = &b;
      }
    }
  }
  if (x == nullptr) return std::nullopt;
  return Conflict{0, x->write, y->write};
}

}  // namespace

ConflictTable BuildConflicts(const Program& program) {
  const size_t size = static_cast<size_t>(program.id_limit()) * kPartsPerNode;
  std::vector<const Part*> parts(size, nullptr);
  std::vector<Ref> refs;
  Collect(program.root(), parts, refs);
  ConflictTable table;
  table.by_part.resize(size);
  for (const auto& [earlier, later] : Candidates(refs)) {
    std::optional<Conflict> c = Select(*parts[earlier], *parts[later]);
    if (!c) continue;
    c->other = earlier;
    table.by_part[later].push_back(*c);
  }
  return table;
}

}  // namespace internal

const internal::ConflictTable& Program::conflicts() const {
  if (conflicts_ == nullptr) {
    conflicts_ = std::make_shared<const internal::ConflictTable>(internal::BuildConflicts(*this));
  }
  return *conflicts_;
}

}  // namespace tilejit::analysis::sync
