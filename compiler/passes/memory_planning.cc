// SPDX-License-Identifier: Apache-2.0
// The plan is built in two steps per memory (check the author's annotations, then place the
// rest around them) over a list of items that records, for each buffer, its layout, its
// allocation position and (with reuse) its lifetime. Sequential placement keeps allocation
// order, so an author reading the addresses sees their own declarations in order; reuse places
// the largest buffers first, which packs better than allocation order when big and small
// lifetimes interleave, and is still a pure function of the IR (no pointer order, no hashing).
// Annotated buffers keep their bytes for the whole kernel: the author chose the address,
// possibly to share data with code the planner does not see.
#include "compiler/passes/memory_planning.h"

#include <algorithm>
#include <array>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/analysis/buffer_access.h"
#include "compiler/analysis/buffer_lifetimes.h"
#include "compiler/ir/buffer_layout.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/memory_planning_internal.h"

namespace tilejit::passes {
namespace {

struct Item {
  ir::Buffer buffer;
  SourceLoc loc;  // the Allocate's
  target::TileLayout layout;
  analysis::Lifetime life;  // only used with reuse; an annotated buffer lives for the whole kernel
  int64_t address = -1;
  int64_t end() const { return address + layout.bytes; }
  bool Collides(int64_t addr, int64_t bytes) const {
    return addr < end() && address < addr + bytes;
  }
};

// On-chip Allocates in allocation (pre-order) order.
class AllocCollector : public ir::Visitor {
 public:
  std::vector<const ir::AllocateNode*> allocs;

 protected:
  void VisitAllocate(const ir::AllocateNode& op) override {
    allocs.push_back(&op);
    ir::Visitor::VisitAllocate(op);
  }
};

bool IsPlacedScope(ir::MemScope s) {
  return s == ir::MemScope::kL1 || s == ir::MemScope::kL0A || s == ir::MemScope::kL0B ||
         s == ir::MemScope::kL0C || s == ir::MemScope::kUB;
}

std::string Quoted(const ir::Buffer& b) { return "'" + b->name + "'"; }

std::string Interval(const Item& it) {
  std::ostringstream os;
  os << "[" << it.address << ", " << it.end() << ")";
  return os.str();
}

class MemoryPlanner {
 public:
  MemoryPlanner(target::Mem mem, int64_t capacity, PassContext& ctx)
      : mem_(mem), capacity_(capacity), ctx_(ctx) {}

  // Compiler scratch (compiler_made on chip) goes into one item: its bytes are the largest
  // member's, its lifetime spans theirs, and every member gets its address.
  void Add(Item item) {
    if (!item.buffer->compiler_made || item.buffer->address) {
      items_.push_back(std::move(item));
      return;
    }
    scratch_.push_back(item.buffer);
    if (scratch_.size() == 1) {
      scratch_item_ = items_.size();
      items_.push_back(std::move(item));
    } else {
      Item& pool = items_[scratch_item_];
      pool.layout.align = std::max(pool.layout.align, item.layout.align);
      if (item.layout.bytes > pool.layout.bytes) {
        pool.layout.bytes = item.layout.bytes;
        pool.buffer = item.buffer;  // diagnostics name the largest
        pool.loc = item.loc;
      }
      pool.life.first = std::min(pool.life.first, item.life.first);
      pool.life.last = std::max(pool.life.last, item.life.last);
      pool.life.segments.clear();  // the pool lives over the hull of its members
    }
  }
  // Every buffer with its planned address, each compiler scratch buffer at the pool's.
  std::vector<std::pair<ir::Buffer, int64_t>> Placements() const {
    std::vector<std::pair<ir::Buffer, int64_t>> out;
    for (size_t i = 0; i < items_.size(); ++i) {
      if (scratch_.empty() || i != scratch_item_)
        out.emplace_back(items_[i].buffer, items_[i].address);
    }
    for (const ir::Buffer& s : scratch_) out.emplace_back(s, items_[scratch_item_].address);
    return out;
  }
  bool empty() const { return items_.empty(); }
  target::Mem mem() const { return mem_; }

  // Places every item; returns false after reporting a diagnostic. With `reuse`, items
  // whose lifetimes are disjoint may share bytes.
  bool Plan(bool reuse) {
    annotated_.clear();
    for (Item& it : items_) it.address = -1;
    return CheckAnnotations() && (reuse ? PlaceWithReuse() : PlaceOthers());
  }
  // Plan(true) that reports only on success (its warnings); false, with nothing reported and
  // nothing placed that counts, when the memory does not fit.
  bool TryPlanWithReuse() {
    DiagnosticEngine quiet(ctx_.diag->sources());
    DiagnosticEngine* real = std::exchange(ctx_.diag, &quiet);
    const bool ok = Plan(true);
    ctx_.diag = real;
    if (ok)
      for (const Diagnostic& d : quiet.diagnostics()) ctx_.diag->Add(d);
    return ok;
  }

  int64_t HighWater() const {
    int64_t hw = 0;
    for (const Item& it : items_) hw = std::max(hw, it.end());
    return hw;
  }

 private:
  std::string_view MemName() const { return target::MemName(mem_); }

  bool CheckAnnotations() {
    bool ok = true;
    for (Item& it : items_) {
      if (!it.buffer->address) continue;
      it.address = *it.buffer->address;
      if (it.address < 0 || it.address % it.layout.align != 0) {
        ctx_.diag->Error(it.loc) << "annotated address " << it.address << " of " << MemName()
                                 << " buffer " << Quoted(it.buffer)
                                 << " is not a multiple of its alignment " << it.layout.align;
        ok = false;
      } else if (it.end() > capacity_) {
        ctx_.diag->Error(it.loc) << MemName() << " buffer " << Quoted(it.buffer) << " annotated at "
                                 << Interval(it) << " runs past the " << capacity_ << " bytes of "
                                 << MemName();
        ok = false;
      } else {
        annotated_.push_back(&it);
      }
    }
    std::stable_sort(annotated_.begin(), annotated_.end(),
                     [](const Item* a, const Item* b) { return a->address < b->address; });
    for (size_t i = 1; i < annotated_.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        const Item& a = *annotated_[j];
        const Item& b = *annotated_[i];
        if (a.end() <= b.address) continue;
        // Upstream's Expert kernels reuse bytes by hand this way (flash attention's K and S
        // tiles): allowed, as every sync is ordered by address and the simulator's race
        // detector sees the bytes, but said, in case it is a slip.
        ctx_.diag->Warning(b.loc) << "annotated " << MemName() << " buffers " << Quoted(a.buffer)
                                  << " at " << Interval(a) << " and " << Quoted(b.buffer) << " at "
                                  << Interval(b)
                                  << " share bytes: their uses must not overlap in time";
      }
    }
    return ok;
  }

  // The lowest offset >= `from`, aligned, where `it` collides with no annotated buffer.
  int64_t NextFree(int64_t from, const Item& it) const {
    int64_t addr = target::RoundUp(from, it.layout.align);
    for (const Item* a : annotated_) {  // sorted by address
      if (addr + it.layout.bytes <= a->address || a->end() <= addr) continue;
      addr = target::RoundUp(a->end(), it.layout.align);
    }
    return addr;
  }

  bool PlaceOthers() {
    int64_t cursor = 0;
    int64_t used = 0;
    for (const Item* a : annotated_) used += a->layout.bytes;
    for (Item& it : items_) {
      if (it.buffer->address) continue;
      int64_t addr = NextFree(cursor, it);
      if (addr + it.layout.bytes > capacity_) {
        ReportOverflow(it, capacity_ - used);
        return false;
      }
      it.address = addr;
      cursor = it.end();
      used += it.layout.bytes;
    }
    return true;
  }

  // Largest first (ties: earliest lifetime, then allocation order), each at the lowest aligned
  // offset that collides with no annotated buffer and no placed buffer live at the same time.
  bool PlaceWithReuse() {
    std::vector<Item*> order;
    for (Item& it : items_)
      if (!it.buffer->address) order.push_back(&it);
    std::stable_sort(order.begin(), order.end(), [](const Item* a, const Item* b) {
      if (a->layout.bytes != b->layout.bytes) return a->layout.bytes > b->layout.bytes;
      return a->life.first < b->life.first;
    });
    std::vector<const Item*> placed(annotated_.begin(), annotated_.end());
    for (Item* it : order) {
      std::vector<const Item*> live;
      for (const Item* p : placed)
        if (p->buffer->address || p->life.Overlaps(it->life)) live.push_back(p);
      int64_t addr = LowestFree(*it, live);
      if (addr + it->layout.bytes > capacity_) {
        int64_t busy = 0;
        for (const Item* p : live) busy += p->layout.bytes;
        ReportOverflow(*it, capacity_ - busy);
        return false;
      }
      it->address = addr;
      placed.push_back(it);
    }
    Spread(order);
    return true;
  }

  // Second step of reuse (memory_planning_internal.h): first fit fixed the high-water mark;
  // within it, move buffers so that those sharing bytes are far apart in program order.
  void Spread(const std::vector<Item*>& order) {
    using memory_planning_internal::Slot;
    std::vector<Slot> slots;
    for (const Item* it : order)
      slots.push_back(Slot{it->address, it->layout.bytes, it->layout.align, it->life, false});
    for (const Item* a : annotated_)
      slots.push_back(Slot{a->address, a->layout.bytes, a->layout.align, a->life, true});
    memory_planning_internal::SpreadReuse(slots, HighWater());
    for (size_t i = 0; i < order.size(); ++i) order[i]->address = slots[i].address;
  }

  // The lowest aligned offset where `it` collides with none of `live`: 0 or the end of one.
  static int64_t LowestFree(const Item& it, const std::vector<const Item*>& live) {
    std::vector<int64_t> starts = {0};
    for (const Item* p : live) starts.push_back(target::RoundUp(p->end(), it.layout.align));
    std::sort(starts.begin(), starts.end());
    for (int64_t addr : starts) {
      bool free = true;
      for (const Item* p : live) free = free && !p->Collides(addr, it.layout.bytes);
      if (free) return addr;
    }
    return starts.back();  // unreachable: the end of the highest one is always free
  }

  void ReportOverflow(const Item& it, int64_t free_bytes) {
    std::vector<const Item*> by_size;
    for (const Item& x : items_) by_size.push_back(&x);
    std::stable_sort(by_size.begin(), by_size.end(), [](const Item* a, const Item* b) {
      return a->layout.bytes > b->layout.bytes;
    });
    std::ostringstream note;
    note << "largest buffers in " << MemName() << ":";
    for (size_t i = 0; i < by_size.size() && i < 3; ++i) {
      note << (i == 0 ? " " : ", ") << Quoted(by_size[i]->buffer) << " " << by_size[i]->layout.bytes
           << " bytes";
    }
    ctx_.diag->Error(it.loc).Note(by_size.front()->loc, note.str())
        << MemName() << " buffer " << Quoted(it.buffer) << " needs " << it.layout.bytes
        << " bytes but only " << std::max<int64_t>(free_bytes, 0) << " of the " << capacity_
        << " bytes of " << MemName() << " are free";
  }

  target::Mem mem_;
  int64_t capacity_;
  PassContext& ctx_;
  std::vector<Item> items_;
  std::vector<Item*> annotated_;
  std::vector<ir::Buffer> scratch_;  // the compiler scratch, all at items_[scratch_item_]
  size_t scratch_item_ = 0;
};

constexpr std::array<target::Mem, 5> kPlacedMems = {
    target::Mem::kL1, target::Mem::kL0A, target::Mem::kL0B, target::Mem::kL0C, target::Mem::kUB};

int64_t CapacityOf(const target::NpuTarget& t, target::Mem m) {
  const target::MemInfo* info = target::MemInfoOf(t, m);
  TILEJIT_CHECK(info != nullptr) << "target has no " << target::MemName(m);
  return info->bytes.value;
}

}  // namespace

Result<ir::Kernel> MemoryPlanning(const ir::Kernel& kernel, PassContext& ctx) {
  TILEJIT_CHECK(ctx.target != nullptr && ctx.diag != nullptr) << "PassContext incomplete";
  if (ctx.configs.memory_planning && !ctx.configs.auto_sync) {
    ctx.diag->Warning(kernel.loc)
        << "TL_ASCEND_MEMORY_PLANNING without TL_ASCEND_AUTO_SYNC places buffers sequentially "
           "without reuse: the kernel's own syncs cannot order a reuse they do not know about";
  }
  const bool reuse = ctx.configs.memory_planning && ctx.configs.auto_sync;
  AllocCollector collector;
  collector.Visit(kernel.body);
  std::unordered_set<const ir::BufferNode*> accessed;
  for (const analysis::TracedAccess& a : analysis::TraceAccesses(kernel.body).accesses)
    accessed.insert(a.access.buffer);
  std::vector<const ir::AllocateNode*> allocs;  // the on-chip ones that take bytes
  for (const ir::AllocateNode* alloc : collector.allocs) {
    const ir::Buffer& b = alloc->buffer;
    if (b->scope == ir::MemScope::kLocalVar || b->scope == ir::MemScope::kGM) continue;
    if (!IsPlacedScope(b->scope)) {
      ctx.diag->Error(alloc->loc) << "buffer " << Quoted(b) << " still has the unresolved scope "
                                  << ir::MemScopeName(b->scope)
                                  << "; memory planning needs l1, l0a, l0b, l0c or ub";
    } else if (!accessed.count(b.get()) && !b->address) {
      ctx.Count("unused_buffers");  // no bytes, no address: nothing reads or writes it
    } else {
      allocs.push_back(alloc);
    }
  }
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();

  using Lifetimes = std::unordered_map<const ir::BufferNode*, analysis::Lifetime>;
  Lifetimes whole_loops, crossing_only;
  if (reuse) whole_loops = analysis::BufferLifetimes(kernel.body);
  auto planner_for = [&](target::Mem mem, const Lifetimes& lives) {
    MemoryPlanner planner(mem, CapacityOf(*ctx.target, mem), ctx);
    for (const ir::AllocateNode* alloc : allocs) {
      const ir::Buffer& b = alloc->buffer;
      if (ir::MemOf(b->scope) != mem) continue;
      planner.Add(Item{b, alloc->loc, ir::LayoutOf(*b, *ctx.target),
                       reuse ? lives.at(b.get()) : analysis::Lifetime{}});
    }
    return planner;
  };
  ir::BufferMap placed;
  for (target::Mem mem : kPlacedMems) {
    MemoryPlanner coarse = planner_for(mem, whole_loops);
    if (coarse.empty()) continue;
    // When the coarse lifetimes do not fit, buffers of one loop body may share bytes if no
    // value crosses iterations (buffer_lifetimes.h); upstream's sparse flash attention needs
    // it for its two L0C tiles.
    const bool planned = reuse && coarse.TryPlanWithReuse();
    const bool refine = reuse && !planned;
    if (refine && crossing_only.empty())
      crossing_only = analysis::BufferLifetimes(kernel.body, analysis::LoopRule::kCrossingOnly);
    MemoryPlanner planner = refine ? planner_for(mem, crossing_only) : std::move(coarse);
    if (refine) ctx.Count("crossing_only_" + std::string(target::MemName(mem)));
    if (!planned && !planner.Plan(reuse)) continue;  // diagnosed; keep checking the others
    ctx.Count("onchip_bytes_" + std::string(target::MemName(planner.mem())), planner.HighWater());
    for (const auto& [b, address] : planner.Placements()) {
      if (b->address == address) continue;
      ir::BufferNode node = *b;
      node.address = address;
      placed[b.get()] = ir::MakeBuffer(std::move(node));
    }
  }
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  if (placed.empty()) return kernel;
  return ir::SubstituteBuffers(kernel, placed);
}

}  // namespace tilejit::passes
