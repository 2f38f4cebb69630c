// SPDX-License-Identifier: Apache-2.0
// Why expand gemm_v0 here rather than in codegen: as one op it would look to memory planning
// like it needs no L0A/L0B and to sync_insert like a single M-pipe op reading L1, which
// under-protects MTE1 (reference/tl_passes.md section 4). Expanded, the L0 scratch is an
// ordinary Allocate that planning places and capacity-checks, and the loads and mmads are
// ordinary ops whose pipes sync analysis sees.
//
// The Expert-mode syncs mirror the vendor template's ping-pong: slot s's m -> mte1 flag says
// "the mma that last read slot s is done", so it is pre-armed for both slots and drained
// after the last slice; the mte1 -> m flag says "slot s is loaded". Two ids per pair are
// enough because a slot is only reloaded after its previous mma released it. Like the
// template, the expansion also orders itself against its neighbours: on entry after the MTE2
// loads of its L1 operands and the fixpipe's last read of L0C, on exit before the next MTE2
// load into L1 and the fixpipe's next read. Upstream's Expert kernels rely on that (their
// loads run right before gemm_v0 with no sync, as pipeline/gemm_v0_pipeline.py does).
//
// Vector ops that need UB scratch (TileLang's InjectTmpBuffer: reductions, broadcast, some
// transcendental ops) need none on this target: our ISA reduces and broadcasts directly
// (docs/isa.md section 7), so no vector composite is expanded here yet.
#include "compiler/passes/expand_composites.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/ir/buffer_layout.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/expand_composites_internal.h"

namespace tilejit::passes {
namespace {

using ir::Expr;
using ir::Pipe;
using ir::Region;
using ir::Stmt;

constexpr int64_t kFirstReservedEvent = 6;  // slot s uses 6 + s on m<->mte1

// The pairs the Expert-mode expansion sets and waits on, on ids 6 and 7: the ping-pong
// (m <-> mte1) and the boundaries (mte2 -> mte1 and fix -> m on entry, mte1 -> mte2 and
// m -> fix on exit).
struct PipePair {
  ir::Pipe src, dst;
};
constexpr PipePair kEntryPairs[] = {{ir::Pipe::kMte2, ir::Pipe::kMte1},
                                    {ir::Pipe::kFix, ir::Pipe::kM}};
constexpr PipePair kExitPairs[] = {{ir::Pipe::kMte1, ir::Pipe::kMte2},
                                   {ir::Pipe::kM, ir::Pipe::kFix}};

bool ReservedPair(ir::Pipe src, ir::Pipe dst) {
  auto is = [&](const PipePair& p) { return p.src == src && p.dst == dst; };
  return (src == ir::Pipe::kM && dst == ir::Pipe::kMte1) ||
         (src == ir::Pipe::kMte1 && dst == ir::Pipe::kM) ||
         std::any_of(std::begin(kEntryPairs), std::end(kEntryPairs), is) ||
         std::any_of(std::begin(kExitPairs), std::end(kExitPairs), is);
}

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  ir::DType in = ir::DType::kFloat16;
};

struct Scratch {
  ir::Buffer l0a, l0b;
  int64_t kstep = 0;
};

std::string ShapeText(int64_t a, int64_t b) {
  std::ostringstream os;
  os << "[" << a << ", " << b << "]";
  return os.str();
}

bool BoolAttr(const ir::TileOpNode& op, std::string_view key) {
  const ir::AttrValue* v = op.FindAttr(key);
  return v != nullptr && std::holds_alternative<bool>(*v) && std::get<bool>(*v);
}

Expr AddFolded(const Expr& a, const Expr& b) {
  if (ir::AsConstInt(a) == 0) return b;
  if (ir::AsConstInt(b) == 0) return a;
  return ir::Binary(ir::BinaryOp::kAdd, a, b, b->loc);
}

Region SliceDim(Region r, size_t dim, const Expr& offset, int64_t extent) {
  r.ranges[dim].min = AddFolded(r.ranges[dim].min, offset);
  r.ranges[dim].extent = extent;
  return r;
}

// The L0 bytes of one slot: l0a [m, ks] as zZ fractals, l0b [ks, n] as nZ fractals.
int64_t SlotBytesA(int64_t m, int64_t ks, int64_t c0) {
  return target::CeilDiv(m, 16) * target::CeilDiv(ks, c0) * target::kFractalBytes;
}
int64_t SlotBytesB(int64_t ks, int64_t n, int64_t c0) {
  return target::CeilDiv(ks, c0) * target::CeilDiv(n, 16) * target::kFractalBytes;
}

// Bytes of l0a/l0b the kernel's own Allocates take, and every gemm_v0's loc.
class KernelScan : public ir::Visitor {
 public:
  explicit KernelScan(const target::NpuTarget& t) : target_(t) {}
  int64_t used_a = 0, used_b = 0;
  std::vector<SourceLoc> gemms;
  std::vector<const ir::FlagNode*> reserved_flags;  // on ids 6/7 of a ReservedPair

 protected:
  void VisitAllocate(const ir::AllocateNode& op) override {
    const ir::Buffer& b = op.buffer;
    if (b->scope == ir::MemScope::kL0A || b->scope == ir::MemScope::kL0B) {
      target::TileLayout l = ir::LayoutOf(*b, target_);
      int64_t& used = b->scope == ir::MemScope::kL0A ? used_a : used_b;
      used = b->address ? std::max(used, *b->address + l.bytes)
                        : target::RoundUp(used, l.align) + l.bytes;
    }
    ir::Visitor::VisitAllocate(op);
  }
  void VisitTileOp(const ir::TileOpNode& op) override {
    if (op.op == ir::TileOpCode::kGemmV0) gemms.push_back(op.loc);
    ir::Visitor::VisitTileOp(op);
  }
  void VisitFlag(const ir::FlagNode& op) override {
    std::optional<int64_t> id = ir::AsConstInt(op.event);
    if (ReservedPair(op.src, op.dst) && id &&
        (*id == kFirstReservedEvent || *id == kFirstReservedEvent + 1))
      reserved_flags.push_back(&op);
    ir::Visitor::VisitFlag(op);
  }

 private:
  const target::NpuTarget& target_;
};

}  // namespace

Stmt PrependAllocs(const Stmt& kernel_stmt, std::vector<Stmt> allocs) {
  if (allocs.empty()) return kernel_stmt;
  const auto& k = ir::As<ir::KernelNode>(kernel_stmt);
  std::vector<Stmt> body;
  const auto* seq = ir::TryAs<ir::SeqNode>(k.body);
  size_t i = 0;
  if (seq != nullptr) {  // keep the author's allocations first, then the scratch
    for (; i < seq->stmts.size() && seq->stmts[i]->kind == ir::StmtKind::kAllocate; ++i)
      body.push_back(seq->stmts[i]);
  }
  body.insert(body.end(), allocs.begin(), allocs.end());
  if (seq == nullptr) body.push_back(k.body);
  for (; seq != nullptr && i < seq->stmts.size(); ++i) body.push_back(seq->stmts[i]);
  return std::make_shared<ir::KernelNode>(k.grid, k.threads, k.cid, k.vid,
                                          ir::Seq(std::move(body), k.body->loc), k.loc);
}

namespace {

class GemmExpander : public ir::Mutator {
 public:
  GemmExpander(PassContext& ctx, int64_t free_a, int64_t free_b)
      : ctx_(ctx), free_a_(free_a), free_b_(free_b) {}

 protected:
  Stmt MutateKernelStmt(const Stmt& s, const ir::KernelNode& op) override;
  Stmt MutateTileOp(const Stmt& s, const ir::TileOpNode& op) override;

 private:
  std::optional<GemmShape> CheckGemm(const ir::TileOpNode& op);
  bool CheckScopes(const ir::TileOpNode& op);
  bool CheckDtypes(const ir::TileOpNode& op);
  std::optional<Scratch> ScratchFor(const GemmShape& g, SourceLoc loc);
  Stmt Expand(const ir::TileOpNode& op, const GemmShape& g, const Scratch& sc);
  // `slot`: the L0 slot, when it is not k % 2 computed from `k`.
  Stmt Slice(const ir::TileOpNode& op, const Scratch& sc, const Expr& k, int64_t extent,
             std::optional<int64_t> slot = std::nullopt);
  void AppendSlicePairs(const ir::TileOpNode& op, const Scratch& sc, int64_t full,
                        std::vector<Stmt>* out);
  std::optional<ir::AttrValue> InitFor(const ir::TileOpNode& op, const Expr& k) const;
  Stmt Flag(ir::StmtKind kind, Pipe src, Pipe dst, Expr event, SourceLoc loc) const {
    return std::make_shared<ir::FlagNode>(kind, src, dst, std::move(event), loc,
                                          ir::SyncOrigin::kCompiler);
  }
  // set_flag then wait_flag on id 6 of each pair: `dst` waits for what `src` has issued.
  void AppendWaits(std::span<const PipePair> pairs, SourceLoc loc, std::vector<Stmt>* out) const {
    for (const PipePair& p : pairs) {
      const Expr id = ir::IntImm(kFirstReservedEvent, ir::DType::kInt32, loc);
      out->push_back(Flag(ir::StmtKind::kSetFlag, p.src, p.dst, id, loc));
      out->push_back(Flag(ir::StmtKind::kWaitFlag, p.src, p.dst, id, loc));
    }
  }

  PassContext& ctx_;
  // L0A/L0B bytes the kernel's own buffers leave: every gemm's scratch fits in them alone, as
  // memory_planning gives all of it one offset.
  const int64_t free_a_, free_b_;
  // (dtype, m, n, k) -> the scratch pair those gemms share.
  std::map<std::tuple<ir::DType, int64_t, int64_t, int64_t>, Scratch> scratch_;
  std::vector<Stmt> new_allocs_;
};

Stmt GemmExpander::MutateKernelStmt(const Stmt& s, const ir::KernelNode& op) {
  Stmt body = ir::Mutator::MutateKernelStmt(s, op);  // fills new_allocs_
  Stmt out = PrependAllocs(body, std::move(new_allocs_));
  new_allocs_.clear();
  return out;
}

Stmt GemmExpander::MutateTileOp(const Stmt& s, const ir::TileOpNode& op) {
  if (op.op != ir::TileOpCode::kGemmV0) return ir::Mutator::MutateTileOp(s, op);
  std::optional<GemmShape> g = CheckGemm(op);
  if (!g) return s;
  std::optional<Scratch> sc = ScratchFor(*g, op.loc);
  if (!sc) return s;
  ctx_.Count("gemm_v0_expanded");
  ctx_.Count("k_slices", target::CeilDiv(g->k, sc->kstep));
  return Expand(op, *g, *sc);
}

bool GemmExpander::CheckScopes(const ir::TileOpNode& op) {
  static constexpr const char* kNames[] = {"C", "A", "B"};
  bool ok = true;
  for (size_t i = 0; i < 3; ++i) {
    ir::MemScope want = i == 0 ? ir::MemScope::kL0C : ir::MemScope::kL1;
    ir::MemScope got = std::get<Region>(op.args[i]).buffer->scope;
    if (got == want) continue;
    ctx_.diag->Error(op.loc) << "gemm_v0 operand " << kNames[i] << " is in "
                             << ir::MemScopeName(got)
                             << "; gemm_v0 needs A and B in l1 and C in l0c";
    ok = false;
  }
  return ok;
}

std::optional<GemmShape> GemmExpander::CheckGemm(const ir::TileOpNode& op) {
  if (!CheckScopes(op)) return std::nullopt;
  static constexpr const char* kNames[] = {"C", "A", "B"};
  int64_t rows[3], cols[3];
  for (size_t i = 0; i < 3; ++i) {
    const Region& r = std::get<Region>(op.args[i]);
    std::vector<int64_t> t = r.TrimmedShape();
    if (t.size() != 2) {
      ctx_.diag->Error(op.loc) << "gemm_v0 operand " << kNames[i]
                               << " must be a 2-D tile, not a region of " << t.size()
                               << " dims after dropping leading unit dims";
      return std::nullopt;
    }
    rows[i] = t[0];
    cols[i] = t[1];
  }
  const bool ta = BoolAttr(op, "transpose_A"), tb = BoolAttr(op, "transpose_B");
  GemmShape g;
  g.m = ta ? cols[1] : rows[1];
  g.k = ta ? rows[1] : cols[1];
  int64_t kb = tb ? cols[2] : rows[2];
  g.n = tb ? rows[2] : cols[2];
  if (g.k != kb || rows[0] != g.m || cols[0] != g.n) {
    ctx_.diag->Error(op.loc) << "gemm_v0 shape mismatch: A is " << ShapeText(g.m, g.k) << ", B is "
                             << ShapeText(kb, g.n) << " and C is " << ShapeText(rows[0], cols[0])
                             << " (A and B as used, after transpose_A/transpose_B)";
    return std::nullopt;
  }
  if (!CheckDtypes(op)) return std::nullopt;
  g.in = std::get<Region>(op.args[1]).buffer->dtype;
  return g;
}

bool GemmExpander::CheckDtypes(const ir::TileOpNode& op) {
  ir::DType a = std::get<Region>(op.args[1]).buffer->dtype;
  ir::DType b = std::get<Region>(op.args[2]).buffer->dtype;
  ir::DType c = std::get<Region>(op.args[0]).buffer->dtype;
  bool is_float = a == ir::DType::kFloat16 || a == ir::DType::kBFloat16 || a == ir::DType::kFloat32;
  ir::DType acc = is_float ? ir::DType::kFloat32 : ir::DType::kInt32;
  if (a != b || (!is_float && a != ir::DType::kInt8) || c != acc) {
    ctx_.diag->Error(op.loc) << "gemm_v0 dtypes " << ir::DTypeName(a) << " x " << ir::DTypeName(b)
                             << " -> " << ir::DTypeName(c)
                             << " are not supported: A and B must both be float16, bfloat16, "
                                "float32 (accumulating into float32) or int8 (into int32)";
    return false;
  }
  const bool ta = BoolAttr(op, "transpose_A"), tb = BoolAttr(op, "transpose_B");
  if ((ta || tb) && ir::DTypeBits(a) != 16) {
    ctx_.diag->Error(op.loc) << "gemm_v0 with " << (ta ? "transpose_A" : "transpose_B")
                             << " needs 16-bit A and B (the transposing L0 load), not "
                             << ir::DTypeName(a);
    return false;
  }
  return true;
}

std::optional<Scratch> GemmExpander::ScratchFor(const GemmShape& g, SourceLoc loc) {
  auto key = std::make_tuple(g.in, g.m, g.n, g.k);
  if (auto it = scratch_.find(key); it != scratch_.end()) return it->second;
  const int64_t c0 = 32 / ir::DTypeBytes(g.in);
  const int64_t unit = std::max<int64_t>(16, c0);
  auto fits = [&](int64_t ks, int64_t slots) {
    return slots * SlotBytesA(g.m, ks, c0) <= free_a_ && slots * SlotBytesB(ks, g.n, c0) <= free_b_;
  };
  // One slice when all of K fits one slot (a second slot would have nothing to overlap with;
  // multi_buffer versions the single slot across loop iterations instead), else the largest
  // fitting divisor of K over two slots, else the largest fitting slice with a tail.
  int64_t kstep = fits(g.k, 1) ? g.k : 0;
  if (kstep == 0) {
    int64_t any = 0;
    for (int64_t ks = unit; ks < g.k; ks += unit) {
      if (!fits(ks, 2)) continue;
      any = ks;
      if (g.k % ks == 0) kstep = ks;
    }
    if (kstep == 0) kstep = any;
  }
  if (kstep == 0) {
    ctx_.diag->Error(loc) << "gemm_v0 L0 tiles do not fit: two K slices of " << unit << " need "
                          << 2 * SlotBytesA(g.m, unit, c0) << " bytes of l0a and "
                          << 2 * SlotBytesB(unit, g.n, c0) << " bytes of l0b, but only " << free_a_
                          << " and " << free_b_ << " bytes are free";
    return std::nullopt;
  }
  const int64_t slots = kstep == g.k ? 1 : 2;
  ir::BufferNode a;
  a.name = "gemm_l0a";
  a.shape = {slots, g.m, kstep};
  a.dtype = g.in;
  a.scope = ir::MemScope::kL0A;
  a.compiler_made = true;  // shares its bytes with every other gemm's (memory_planning)
  a.loc = loc;
  ir::BufferNode b = a;
  b.name = "gemm_l0b";
  b.shape = {slots, kstep, g.n};
  b.scope = ir::MemScope::kL0B;
  Scratch sc{ir::MakeBuffer(a), ir::MakeBuffer(b), kstep};
  ctx_.Count("scratch_bytes_l0a", slots * SlotBytesA(g.m, kstep, c0));
  ctx_.Count("scratch_bytes_l0b", slots * SlotBytesB(kstep, g.n, c0));
  new_allocs_.push_back(std::make_shared<ir::AllocateNode>(sc.l0a, loc));
  new_allocs_.push_back(std::make_shared<ir::AllocateNode>(sc.l0b, loc));
  scratch_.emplace(key, sc);
  return sc;
}

Stmt GemmExpander::Expand(const ir::TileOpNode& op, const GemmShape& g, const Scratch& sc) {
  const SourceLoc loc = op.loc;
  const bool syncs = !ctx_.configs.auto_sync;
  std::vector<Stmt> out;
  auto event = [&](int64_t slot) {
    return ir::IntImm(kFirstReservedEvent + slot, ir::DType::kInt32, loc);
  };
  const int64_t full = g.k / sc.kstep;
  const int64_t tail = g.k % sc.kstep;
  // Only the slots some slice uses are armed (and drained): one slice needs one.
  const int64_t slots = full + (tail > 0 ? 1 : 0) > 1 ? 2 : 1;
  if (syncs) {
    AppendWaits(kEntryPairs, loc, &out);
    for (int64_t s = 0; s < slots; ++s)
      out.push_back(Flag(ir::StmtKind::kSetFlag, Pipe::kM, Pipe::kMte1, event(s), loc));
  }
  if (full == 1) {
    out.push_back(Slice(op, sc, ir::IntImm(0, ir::DType::kInt32, loc), sc.kstep));
  } else if (full > 1 && syncs) {
    ir::Var k = ir::MakeVar("k", ir::DType::kInt32, loc);
    out.push_back(std::make_shared<ir::ForNode>(
        k, ir::IntImm(0, ir::DType::kInt32, loc), ir::IntImm(full, ir::DType::kInt32, loc),
        ir::ForKind::kSerial, 0, Slice(op, sc, ir::Ref(k, loc), sc.kstep), loc));
  } else if (full == 2) {
    out.push_back(Slice(op, sc, ir::IntImm(0, ir::DType::kInt32, loc), sc.kstep));
    out.push_back(Slice(op, sc, ir::IntImm(1, ir::DType::kInt32, loc), sc.kstep));
  } else if (full > 2) {
    AppendSlicePairs(op, sc, full, &out);
  }
  if (tail > 0) out.push_back(Slice(op, sc, ir::IntImm(full, ir::DType::kInt32, loc), tail));
  if (syncs) {
    for (int64_t s = 0; s < slots; ++s)
      out.push_back(Flag(ir::StmtKind::kWaitFlag, Pipe::kM, Pipe::kMte1, event(s), loc));
    AppendWaits(kExitPairs, loc, &out);
  }
  return ir::Seq(std::move(out), loc);
}

std::optional<ir::AttrValue> GemmExpander::InitFor(const ir::TileOpNode& op, const Expr& k) const {
  const ir::AttrValue* init = op.FindAttr("init");
  if (init == nullptr) return std::nullopt;
  if (std::holds_alternative<bool>(*init) && !std::get<bool>(*init)) return std::nullopt;
  std::optional<int64_t> kc = ir::AsConstInt(k);
  if (kc) {
    if (*kc != 0) return std::nullopt;
    return *init;
  }
  Expr first = ir::Binary(ir::BinaryOp::kEq, k, ir::IntImm(0, ir::DType::kInt32, op.loc), op.loc);
  if (std::holds_alternative<bool>(*init)) return first;
  return ir::Binary(ir::BinaryOp::kAnd, std::get<Expr>(*init), first, op.loc);
}

// The operands of one K slice: the L1 slices and the L0 slots they load into, and the event
// id of the slot. `k` is the slice index (a loop var or a constant).
struct SliceOperands {
  Region a_src, b_src, a_dst, b_dst;
  Expr event;
};

SliceOperands MakeSlice(const ir::TileOpNode& op, const Scratch& sc, const Expr& k, int64_t extent,
                        std::optional<int64_t> fixed_slot) {
  const SourceLoc loc = op.loc;
  auto imm = [&](int64_t v) { return ir::IntImm(v, ir::DType::kInt32, loc); };
  std::optional<int64_t> kc = ir::AsConstInt(k);
  if (!fixed_slot && kc) fixed_slot = *kc % 2;
  Expr slot = fixed_slot ? imm(*fixed_slot) : ir::Binary(ir::BinaryOp::kFloorMod, k, imm(2), loc);
  Expr offset = kc ? imm(*kc * sc.kstep) : ir::Binary(ir::BinaryOp::kMul, k, imm(sc.kstep), loc);
  SliceOperands s;
  s.event = fixed_slot ? imm(kFirstReservedEvent + *fixed_slot)
                       : ir::Binary(ir::BinaryOp::kAdd, imm(kFirstReservedEvent), slot, loc);
  // L1 operands: A is [m, k] (or A^T [k, m]); B is [k, n] (or B^T [n, k]).
  const Region& a = std::get<Region>(op.args[1]);
  const Region& b = std::get<Region>(op.args[2]);
  const size_t ar = a.ranges.size(), br = b.ranges.size();
  s.a_src = SliceDim(a, BoolAttr(op, "transpose_A") ? ar - 2 : ar - 1, offset, extent);
  s.b_src = SliceDim(b, BoolAttr(op, "transpose_B") ? br - 1 : br - 2, offset, extent);
  s.a_dst = ir::WholeBuffer(sc.l0a, loc);
  s.a_dst.ranges[0] = {slot, 1};
  s.a_dst.ranges[2].extent = extent;
  s.b_dst = ir::WholeBuffer(sc.l0b, loc);
  s.b_dst.ranges[0] = {slot, 1};
  s.b_dst.ranges[1].extent = extent;
  return s;
}

std::vector<ir::Attr> TransposeAttr(bool t) {
  return t ? std::vector<ir::Attr>{{"transpose", true}} : std::vector<ir::Attr>{};
}

Stmt GemmExpander::Slice(const ir::TileOpNode& op, const Scratch& sc, const Expr& k, int64_t extent,
                         std::optional<int64_t> slot) {
  const SourceLoc loc = op.loc;
  SliceOperands s = MakeSlice(op, sc, k, extent, slot);
  std::vector<ir::Attr> mma_attrs;
  if (std::optional<ir::AttrValue> init = InitFor(op, k)) mma_attrs.push_back({"init", *init});
  const Region& c = std::get<Region>(op.args[0]);
  const bool syncs = !ctx_.configs.auto_sync;
  std::vector<Stmt> out;
  if (syncs) out.push_back(Flag(ir::StmtKind::kWaitFlag, Pipe::kM, Pipe::kMte1, s.event, loc));
  out.push_back(ir::MakeTileOp(ir::TileOpCode::kCopy, {s.a_dst, s.a_src},
                               TransposeAttr(BoolAttr(op, "transpose_A")), loc));
  out.push_back(ir::MakeTileOp(ir::TileOpCode::kCopy, {s.b_dst, s.b_src},
                               TransposeAttr(BoolAttr(op, "transpose_B")), loc));
  if (syncs) {
    out.push_back(Flag(ir::StmtKind::kSetFlag, Pipe::kMte1, Pipe::kM, s.event, loc));
    out.push_back(Flag(ir::StmtKind::kWaitFlag, Pipe::kMte1, Pipe::kM, s.event, loc));
  }
  out.push_back(ir::MakeTileOp(ir::TileOpCode::kMma, {c, s.a_dst, s.b_dst}, mma_attrs, loc));
  if (syncs) out.push_back(Flag(ir::StmtKind::kSetFlag, Pipe::kM, Pipe::kMte1, s.event, loc));
  return ir::Seq(std::move(out), loc);
}

// With AUTO_SYNC the slices run as pairs (slot 0 then slot 1) in a loop over pairs, so every
// slot index is a constant: sync_insert orders by address, and a slot chosen at run time
// (k % 2) would look to it like both slots at once and serialise the MTE1 loads behind the
// mmas of the other slot.
void GemmExpander::AppendSlicePairs(const ir::TileOpNode& op, const Scratch& sc, int64_t full,
                                    std::vector<Stmt>* out) {
  const SourceLoc loc = op.loc;
  auto imm = [&](int64_t v) { return ir::IntImm(v, ir::DType::kInt32, loc); };
  ir::Var p = ir::MakeVar("k2", ir::DType::kInt32, loc);
  Expr first = ir::Binary(ir::BinaryOp::kMul, ir::Ref(p, loc), imm(2), loc);
  Stmt pair =
      ir::Seq({Slice(op, sc, first, sc.kstep, 0),
               Slice(op, sc, ir::Binary(ir::BinaryOp::kAdd, first, imm(1), loc), sc.kstep, 1)},
              loc);
  out->push_back(std::make_shared<ir::ForNode>(p, imm(0), imm(full / 2), ir::ForKind::kSerial, 0,
                                               std::move(pair), loc));
  if (full % 2 == 1) out->push_back(Slice(op, sc, imm(full - 1), sc.kstep));
}

void ReportReservedIds(const KernelScan& scan, PassContext& ctx) {
  for (const ir::FlagNode* f : scan.reserved_flags) {
    ctx.diag->Error(f->loc).Note(scan.gemms.front(), "gemm_v0 expanded here")
        << (f->kind == ir::StmtKind::kSetFlag ? "set_flag" : "wait_flag") << " on "
        << target::PipeName(f->src) << " -> " << target::PipeName(f->dst) << " uses event id "
        << *ir::AsConstInt(f->event)
        << ", reserved in Expert mode for the expansion of gemm_v0: ids 6 and 7 of the "
           "mte1 -> m, m -> mte1, mte2 -> mte1, fix -> m, mte1 -> mte2 and m -> fix pairs; use "
           "ids 0 to 5";
  }
}

}  // namespace

Result<ir::Kernel> ExpandComposites(const ir::Kernel& kernel, PassContext& ctx) {
  TILEJIT_CHECK(ctx.target != nullptr && ctx.diag != nullptr) << "PassContext incomplete";
  TILEJIT_ASSIGN_OR_RETURN(ir::Kernel sorted, AttachSortScratch(kernel, ctx));
  KernelScan scan(*ctx.target);
  scan.VisitKernel(sorted);
  if (scan.gemms.empty()) return sorted;
  if (!ctx.configs.auto_sync) ReportReservedIds(scan, ctx);
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  auto capacity = [&](target::Mem m) { return target::MemInfoOf(*ctx.target, m)->bytes.value; };
  GemmExpander expander(ctx, capacity(target::Mem::kL0A) - scan.used_a,
                        capacity(target::Mem::kL0B) - scan.used_b);
  ir::Kernel out = expander.MutateKernel(sorted);
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  return out;
}

}  // namespace tilejit::passes
