// SPDX-License-Identifier: Apache-2.0
// Extending to whole loops is coarser than a data-flow liveness (which would let two buffers of
// one loop body share bytes when neither crosses iterations), deliberately: see the header.
#include "compiler/analysis/buffer_lifetimes.h"

#include <algorithm>

#include "compiler/analysis/buffer_access.h"

namespace tilejit::analysis {

std::unordered_map<const ir::BufferNode*, Lifetime> BufferLifetimes(const ir::Stmt& root) {
  const AccessTrace trace = TraceAccesses(root);
  std::unordered_map<const ir::BufferNode*, Lifetime> out;
  for (const auto& [alloc, pos] : trace.allocs) out[alloc->buffer.get()] = {pos, pos};
  std::unordered_map<const ir::BufferNode*, bool> seen;
  for (const TracedAccess& a : trace.accesses) {
    auto it = out.find(a.access.buffer);
    if (it == out.end()) continue;  // a param
    Lifetime& l = it->second;
    if (!seen[a.access.buffer]) l = {a.pos, a.pos};
    seen[a.access.buffer] = true;
    l.first = std::min(l.first, a.pos);
    l.last = std::max(l.last, a.pos);
    for (int c = a.control; c >= 0; c = trace.controls[c].parent) {
      const TracedControl& ctl = trace.controls[c];
      if (!ctl.is_loop) continue;
      l.first = std::min(l.first, ctl.begin);
      l.last = std::max(l.last, ctl.end);
    }
  }
  return out;
}

}  // namespace tilejit::analysis
