// SPDX-License-Identifier: Apache-2.0
// The pass re-traces the kernel after each loop it unrolls and takes the next unprocessed loop
// in program order: unrolling copies inner loops into new nodes, and re-tracing is simpler and
// safer than patching positions (kernels have a handful of loops). Outer loops come first, so
// an inner loop's copies are each considered afterwards with the buffers of their own copy.
//
// Why "whole write first, unused after the loop" is the versioning rule: it is exactly the
// case where no value crosses an iteration boundary or leaves the loop, so which copy an
// iteration uses is unobservable and the rewrite cannot change results. Everything else (an
// accumulator, a running max, a buffer read after the loop) keeps one copy.
#include "compiler/passes/multi_buffer.h"

#include <climits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/analysis/buffer_access.h"
#include "compiler/ir/buffer_layout.h"
#include "compiler/ir/mutator.h"
#include "compiler/passes/cross_core_sync.h"
#include "compiler/passes/multi_buffer_internal.h"

namespace tilejit::passes {
namespace {

using multi_buffer_internal::Version;

bool IsTileScope(ir::MemScope s) {
  return s == ir::MemScope::kL1 || s == ir::MemScope::kL0A || s == ir::MemScope::kL0B ||
         s == ir::MemScope::kL0C || s == ir::MemScope::kUB;
}

bool IsConst(const ir::Expr& e, int64_t v) { return ir::AsConstInt(e) == v; }

bool IsVar(const ir::Expr& e, const ir::Var& v) {
  const auto* r = ir::TryAs<ir::VarRefNode>(e);
  return r != nullptr && r->var == v;
}

// `vid * E` (or `E * vid`) with extent E, half of the dim: the two AIVs' halves.
bool IsVidHalf(const ir::Range& r, int64_t dim, const ir::Var& vid) {
  if (r.extent * 2 != dim) return false;
  const auto* b = ir::TryAs<ir::BinaryNode>(r.min);
  if (b == nullptr || b->op != ir::BinaryOp::kMul) return false;
  return (IsVar(b->a, vid) && IsConst(b->b, r.extent)) ||
         (IsVar(b->b, vid) && IsConst(b->a, r.extent));
}

const ir::KernelNode* FindLaunch(const ir::Stmt& s) {
  if (const auto* k = ir::TryAs<ir::KernelNode>(s)) return k;
  if (const auto* l = ir::TryAs<ir::LetNode>(s)) return FindLaunch(l->body);
  if (const auto* seq = ir::TryAs<ir::SeqNode>(s)) {
    for (const ir::Stmt& c : seq->stmts)
      if (const ir::KernelNode* k = FindLaunch(c)) return k;
  }
  return nullptr;
}

// Replaces one For node (by identity) and inserts new Allocates after the originals'.
class Rewriter : public ir::Mutator {
 public:
  Rewriter(const ir::ForNode* target, ir::Stmt replacement,
           const std::map<const ir::BufferNode*, std::vector<ir::Buffer>>& allocs)
      : target_(target), replacement_(std::move(replacement)), allocs_(allocs) {}

 protected:
  ir::Stmt MutateFor(const ir::Stmt& s, const ir::ForNode& op) override {
    if (&op == target_) return replacement_;
    return ir::Mutator::MutateFor(s, op);
  }
  ir::Stmt MutateSeq(const ir::Stmt& s, const ir::SeqNode& op) override {
    std::vector<ir::Stmt> out;
    bool changed = false;
    for (const ir::Stmt& c : op.stmts) {
      out.push_back(Mutate(c));
      changed = changed || out.back() != c;
      const auto* alloc = ir::TryAs<ir::AllocateNode>(c);
      auto it = alloc == nullptr ? allocs_.end() : allocs_.find(alloc->buffer.get());
      if (it == allocs_.end()) continue;
      for (const ir::Buffer& b : it->second)
        out.push_back(std::make_shared<ir::AllocateNode>(b, alloc->loc));
      changed = true;
    }
    return changed ? ir::Seq(std::move(out), op.loc) : s;
  }

 private:
  const ir::ForNode* target_;
  ir::Stmt replacement_;
  const std::map<const ir::BufferNode*, std::vector<ir::Buffer>>& allocs_;
};

// What the analysis of one loop found for one buffer.
struct Candidate {
  ir::Buffer buffer;
  bool remap = false;
};

class Versioner {
 public:
  Versioner(const ir::Kernel& kernel, PassContext& ctx, const ir::KernelNode& launch)
      : kernel_(kernel), ctx_(ctx), launch_(launch) {}

  ir::Kernel Run();

 private:
  int StagesOf(const ir::ForNode& f) const;
  std::vector<Candidate> Analyze(const analysis::AccessTrace& t, int loop, int stages) const;
  bool FirstAccessIsWholeWrite(const analysis::AccessTrace& t, int loop, const ir::BufferNode* b,
                               size_t first, bool remap) const;
  bool WholeWrite(const ir::Region& r, bool remap) const;
  std::vector<Version> Select(const std::vector<Candidate>& cands, const ir::ForNode& loop,
                              int stages);
  void Warn(const ir::ForNode& loop, int stages, const ir::Buffer& b, target::Mem mem, int64_t need,
            int64_t free_bytes);
  void Apply(const ir::ForNode& loop, int stages, std::vector<Version> versions);
  void InitUsage(const analysis::AccessTrace& t);

  ir::Kernel kernel_;
  PassContext& ctx_;
  const ir::KernelNode& launch_;  // of the input kernel; cid and vid are the same Vars after
  std::map<target::Mem, int64_t> used_;
  std::set<const ir::StmtNode*> done_;
  std::vector<ir::Stmt> keep_alive_;  // earlier bodies, so no pointer in done_ is ever reused
  std::set<std::string> warned_;
  std::map<const ir::BufferNode*, ir::Buffer> buffers_;  // every param and allocated buffer
  bool per_family_ = false;  // hand-offs keep their order per workspace family only
};

int Versioner::StagesOf(const ir::ForNode& f) const {
  if (f.for_kind == ir::ForKind::kPipelined) return f.num_stages;
  if (f.for_kind == ir::ForKind::kSerial && ctx_.configs.auto_multi_buffer) return 2;
  return 0;
}

bool Versioner::WholeWrite(const ir::Region& r, bool remap) const {
  const ir::BufferNode& b = *r.buffer;
  bool vid_used = false;
  for (size_t d = 0; d < r.ranges.size(); ++d) {
    const ir::Range& range = r.ranges[d];
    if (d == 0 && b.scope == ir::MemScope::kGM) {
      if (range.extent != 1 || !IsVar(range.min, launch_.cid)) return false;
    } else if (d == 0 && remap) {
      if (range.extent != 1 || !IsConst(range.min, 0)) return false;
    } else if (IsConst(range.min, 0) && range.extent == b.shape[d]) {
      continue;
    } else if (b.scope == ir::MemScope::kGM && launch_.threads == 2 && !vid_used &&
               IsVidHalf(range, b.shape[d], launch_.vid)) {
      vid_used = true;
    } else {
      return false;
    }
  }
  return true;
}

bool Versioner::FirstAccessIsWholeWrite(const analysis::AccessTrace& t, int loop,
                                        const ir::BufferNode* b, size_t first, bool remap) const {
  const int pos = t.accesses[first].pos;
  if (t.accesses[first].control != loop) return false;
  if (t.accesses[first].stmt->kind != ir::StmtKind::kTileOp) return false;
  bool wrote = false;
  for (size_t i = first; i < t.accesses.size() && t.accesses[i].pos == pos; ++i) {
    const analysis::BufferAccess& a = t.accesses[i].access;
    if (a.buffer != b) continue;
    if (!a.write || a.region == nullptr || !WholeWrite(*a.region, remap)) return false;
    wrote = true;
  }
  return wrote;
}

std::vector<Candidate> Versioner::Analyze(const analysis::AccessTrace& t, int loop,
                                          int stages) const {
  const analysis::TracedControl& c = t.controls[loop];
  bool nested = false;
  for (int p = c.parent; p >= 0; p = t.controls[p].parent) nested = nested || t.controls[p].is_loop;
  std::map<const ir::BufferNode*, size_t> first;  // first access inside the body
  std::set<const ir::BufferNode*> bad;
  std::set<const ir::BufferNode*> not_slot0;  // some access is not at index 0 of dim 0
  std::vector<const ir::BufferNode*> order;
  for (size_t i = 0; i < t.accesses.size(); ++i) {
    const analysis::TracedAccess& a = t.accesses[i];
    const ir::BufferNode* b = a.access.buffer;
    const ir::Region* r = a.access.region;
    if (r == nullptr || r->ranges.empty() || !IsConst(r->ranges[0].min, 0) ||
        r->ranges[0].extent != 1)
      not_slot0.insert(b);
    const bool inside = a.pos > c.begin && a.pos <= c.end;
    if (!inside) {
      if (a.pos > c.end || nested) bad.insert(b);
      continue;
    }
    if (first.emplace(b, i).second) order.push_back(b);
  }
  std::vector<Candidate> out;
  for (const ir::BufferNode* b : order) {
    auto it = buffers_.find(b);
    if (bad.count(b) != 0 || it == buffers_.end()) continue;
    const bool tile = IsTileScope(b->scope) && !b->address;
    const bool ws = b->scope == ir::MemScope::kGM && b->compiler_made;
    if (!tile && !ws) continue;
    const bool remap =
        tile && not_slot0.count(b) == 0 && b->shape.size() >= 3 && b->shape[0] >= stages;
    if (!FirstAccessIsWholeWrite(t, loop, b, first[b], remap)) continue;
    out.push_back({it->second, remap});
  }
  return out;
}

void Versioner::Warn(const ir::ForNode& loop, int stages, const ir::Buffer& b, target::Mem mem,
                     int64_t need, int64_t free_bytes) {
  std::ostringstream key;
  key << loop.loc.file_id << ":" << loop.loc.line << ":" << loop.loc.column << ":" << b->name;
  if (!warned_.insert(key.str()).second) return;
  const int64_t capacity = target::MemInfoOf(*ctx_.target, mem)->bytes.value;
  ctx_.diag->Warning(loop.loc) << "T.Pipelined(num_stages=" << stages << ") does not fit: '"
                               << b->name << "' keeps a single copy, since " << stages - 1
                               << " more would need " << need << " bytes of "
                               << target::MemName(mem) << " and only "
                               << std::max<int64_t>(free_bytes, 0) << " of its " << capacity
                               << " bytes are free";
}

std::vector<Version> Versioner::Select(const std::vector<Candidate>& cands, const ir::ForNode& loop,
                                       int stages) {
  std::vector<Version> out;
  for (const Candidate& c : cands) {
    Version v{c.buffer, {}, c.remap};
    if (c.buffer->scope != ir::MemScope::kGM && !c.remap) {
      const target::Mem mem = ir::MemOf(c.buffer->scope);
      const target::TileLayout l = ir::LayoutOf(*c.buffer, *ctx_.target);
      const int64_t need = (stages - 1) * target::RoundUp(l.bytes, l.align);
      const int64_t capacity = target::MemInfoOf(*ctx_.target, mem)->bytes.value;
      if (used_[mem] + need > capacity) {
        if (loop.for_kind == ir::ForKind::kPipelined)
          Warn(loop, stages, c.buffer, mem, need, capacity - used_[mem]);
        continue;
      }
      used_[mem] += need;
    }
    out.push_back(std::move(v));
  }
  return out;
}

void Versioner::Apply(const ir::ForNode& loop, int stages, std::vector<Version> versions) {
  std::map<const ir::BufferNode*, std::vector<ir::Buffer>> allocs;
  for (Version& v : versions) {
    if (v.remap_dim0) continue;
    for (int i = 1; i < stages; ++i) {
      ir::BufferNode node = *v.buffer;
      node.name = v.buffer->name + "_slot" + std::to_string(i);
      // A slot of compiler scratch has bytes of its own: sharing them with the other gemms'
      // scratch (memory_planning) would undo the versioning.
      if (node.scope != ir::MemScope::kGM) node.compiler_made = false;
      ir::Buffer slot = ir::MakeBuffer(std::move(node));
      v.slots.push_back(slot);
      buffers_[slot.get()] = slot;
      if (slot->scope == ir::MemScope::kGM) {
        kernel_.params.push_back(slot);
        kernel_.workspace_idx.push_back(static_cast<int>(kernel_.params.size()) - 1);
      } else {
        allocs[v.buffer.get()].push_back(slot);
      }
    }
  }
  const ir::ForNode* group = nullptr;
  ir::Stmt unrolled =
      multi_buffer_internal::UnrollLoop(loop, stages, versions, per_family_, &group);
  if (group != nullptr) done_.insert(group);
  keep_alive_.push_back(kernel_.body);
  kernel_.body = Rewriter(&loop, unrolled, allocs).Mutate(kernel_.body);
  ctx_.Count("multi_buffered", static_cast<int64_t>(versions.size()));
  ctx_.Count("loops_unrolled");
}

void Versioner::InitUsage(const analysis::AccessTrace& t) {
  for (const ir::Buffer& p : kernel_.params) buffers_[p.get()] = p;
  for (const auto& [alloc, pos] : t.allocs) {
    const ir::Buffer& b = alloc->buffer;
    buffers_[b.get()] = b;
    if (!IsTileScope(b->scope)) continue;
    const target::TileLayout l = ir::LayoutOf(*b, *ctx_.target);
    used_[ir::MemOf(b->scope)] += target::RoundUp(l.bytes, l.align);
  }
}

ir::Kernel Versioner::Run() {
  InitUsage(analysis::TraceAccesses(kernel_.body));
  per_family_ = CrossFlagsPerFamily(kernel_, *ctx_.target);
  while (true) {
    const analysis::AccessTrace t = analysis::TraceAccesses(kernel_.body);
    int next = -1;
    for (size_t i = 0; i < t.controls.size() && next < 0; ++i) {
      const analysis::TracedControl& c = t.controls[i];
      if (!c.is_loop || done_.count(c.node) != 0) continue;
      next = static_cast<int>(i);
    }
    if (next < 0) return kernel_;
    const analysis::TracedControl& c = t.controls[next];
    const auto& loop = static_cast<const ir::ForNode&>(*c.node);
    done_.insert(c.node);
    const int stages = StagesOf(loop);
    if (stages < 2) continue;
    bool allocates = false;
    for (const auto& [alloc, pos] : t.allocs)
      allocates = allocates || (pos > c.begin && pos <= c.end);
    if (allocates) continue;
    std::vector<Version> versions = Select(Analyze(t, next, stages), loop, stages);
    if (!versions.empty()) Apply(loop, stages, std::move(versions));
  }
}

}  // namespace

Result<ir::Kernel> MultiBuffer(const ir::Kernel& kernel, PassContext& ctx) {
  TILEJIT_CHECK(ctx.target != nullptr && ctx.diag != nullptr) << "PassContext incomplete";
  const ir::KernelNode* launch = FindLaunch(kernel.body);
  if (launch == nullptr) return kernel;
  return Versioner(kernel, ctx, *launch).Run();
}

}  // namespace tilejit::passes
