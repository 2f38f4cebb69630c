// SPDX-License-Identifier: Apache-2.0
// Nest recognition, UB temporaries, op emission and the rewrite itself; the per-store
// expression lowering is lower_parallel_expr.cc.
//
// Why the pass inserts barriers itself in Expert mode: the author synchronised the T.Parallel
// statement as a whole, but lowering splits it into several vector ops that pass values
// through temporaries. Ops of one pipe may overlap (DESIGN.md section 5), so each of those
// hand-offs is a hazard the compiler created and must order. Buffer identity is the
// granularity: coarse, but the ops of one nest almost always chain through their temps.
#include "compiler/passes/lower_parallel.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/buffer_layout.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/lower_parallel_internal.h"

namespace tilejit::passes {
namespace parallel {

int Nest::VarIndex(const ir::VarNode* v) const {
  for (size_t i = 0; i < vars.size(); ++i)
    if (vars[i].get() == v) return static_cast<int>(i);
  return -1;
}

bool Nest::UsesVar(const ir::Expr& e) const {
  class Finder : public ir::Visitor {
   public:
    explicit Finder(const Nest& n) : nest(n) {}
    const Nest& nest;
    bool found = false;

   protected:
    void VisitVarRef(const ir::VarRefNode& op) override {
      found = found || nest.VarIndex(op.var.get()) >= 0;
    }
  } finder(*this);
  finder.Visit(e);
  return finder.found;
}

std::vector<int64_t> Nest::Shape(Cls c) const {
  switch (c) {
    case Cls::kFull:
      return extents;
    case Cls::kRow:
      return {extents[0]};
    case Cls::kCol:
      return {1, extents.back()};
  }
  return extents;
}

ir::Buffer TempPool::Acquire(const std::vector<int64_t>& shape, ir::DType dtype, SourceLoc loc) {
  for (Entry& e : entries_) {
    if (e.in_use || e.buffer->shape != shape || e.buffer->dtype != dtype) continue;
    e.in_use = true;
    return e.buffer;
  }
  ir::BufferNode node;
  node.name = "par_tmp";
  node.shape = shape;
  node.dtype = dtype;
  node.scope = ir::MemScope::kUB;
  node.loc = loc;
  ir::Buffer b = ir::MakeBuffer(std::move(node));
  entries_.push_back({b, true});
  allocs_.push_back(std::make_shared<ir::AllocateNode>(b, loc));
  ctx_.Count("temp_bytes", ir::LayoutOf(*b, *ctx_.target).bytes);
  return b;
}

void TempPool::ReleaseAll() {
  for (Entry& e : entries_) e.in_use = false;
}

std::vector<ir::Stmt> TempPool::TakeAllocs() { return std::exchange(allocs_, {}); }

void OpSink::Emit(ir::TileOpCode op, std::vector<ir::Operand> args, std::vector<ir::Attr> attrs,
                  SourceLoc loc) {
  const ir::BufferNode* dst = std::get<ir::Region>(args[0]).buffer.get();
  std::vector<const ir::BufferNode*> reads;
  bool gm = dst->scope == ir::MemScope::kGM;
  for (size_t i = 1; i < args.size(); ++i) {
    if (const auto* r = std::get_if<ir::Region>(&args[i])) {
      reads.push_back(r->buffer.get());
      gm = gm || r->buffer->scope == ir::MemScope::kGM;
    }
    if (const auto* e = std::get_if<ir::Expr>(&args[i])) {
      if (const auto* l = ir::TryAs<ir::LoadNode>(*e)) reads.push_back(l->buffer.get());
    }
  }
  if (barriers_) {
    bool hazard = read_.count(dst) > 0 || written_.count(dst) > 0;
    for (const ir::BufferNode* b : reads) hazard = hazard || written_.count(b) > 0;
    // A staging copy with GM runs on an MTE pipe: only barrier(all) orders it with the
    // vector pipe.
    if (hazard) Barrier(gm || mte_since_barrier_ ? ir::Pipe::kAll : ir::Pipe::kV, loc);
    read_.insert(reads.begin(), reads.end());
    written_.insert(dst);
    mte_since_barrier_ = mte_since_barrier_ || gm;
  }
  stmts_.push_back(ir::MakeTileOp(op, std::move(args), std::move(attrs), loc));
  ctx_.Count("tile_ops");
}

void OpSink::Barrier(ir::Pipe pipe, SourceLoc loc) {
  stmts_.push_back(std::make_shared<ir::BarrierNode>(pipe, loc, ir::SyncOrigin::kCompiler));
  ctx_.Count("barriers");
  read_.clear();
  written_.clear();
  mte_since_barrier_ = false;
}

std::vector<ir::Stmt> OpSink::Take() {
  // A later nest may reuse a temporary a staging copy still reads or writes.
  if (barriers_ && mte_since_barrier_) Barrier(ir::Pipe::kAll, stmts_.back()->loc);
  read_.clear();
  written_.clear();
  return std::exchange(stmts_, {});
}

bool ExprEqual(const ir::Expr& a, const ir::Expr& b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr || a->kind != b->kind || a->dtype != b->dtype) return false;
  switch (a->kind) {
    case ir::ExprKind::kIntImm:
      return ir::As<ir::IntImmNode>(a).value == ir::As<ir::IntImmNode>(b).value;
    case ir::ExprKind::kFloatImm:
      return ir::As<ir::FloatImmNode>(a).value == ir::As<ir::FloatImmNode>(b).value;
    case ir::ExprKind::kVarRef:
      return ir::As<ir::VarRefNode>(a).var == ir::As<ir::VarRefNode>(b).var;
    case ir::ExprKind::kBinary: {
      const auto &x = ir::As<ir::BinaryNode>(a), &y = ir::As<ir::BinaryNode>(b);
      return x.op == y.op && ExprEqual(x.a, y.a) && ExprEqual(x.b, y.b);
    }
    case ir::ExprKind::kUnary: {
      const auto &x = ir::As<ir::UnaryNode>(a), &y = ir::As<ir::UnaryNode>(b);
      return x.op == y.op && ExprEqual(x.a, y.a);
    }
    case ir::ExprKind::kSelect: {
      const auto &x = ir::As<ir::SelectNode>(a), &y = ir::As<ir::SelectNode>(b);
      return ExprEqual(x.cond, y.cond) && ExprEqual(x.t, y.t) && ExprEqual(x.f, y.f);
    }
    case ir::ExprKind::kLoad: {
      const auto &x = ir::As<ir::LoadNode>(a), &y = ir::As<ir::LoadNode>(b);
      if (x.buffer != y.buffer || x.indices.size() != y.indices.size()) return false;
      for (size_t i = 0; i < x.indices.size(); ++i)
        if (!ExprEqual(x.indices[i], y.indices[i])) return false;
      return true;
    }
    case ir::ExprKind::kCall: {
      const auto &x = ir::As<ir::CallNode>(a), &y = ir::As<ir::CallNode>(b);
      if (x.op != y.op || x.args.size() != y.args.size()) return false;
      for (size_t i = 0; i < x.args.size(); ++i)
        if (!ExprEqual(x.args[i], y.args[i])) return false;
      return true;
    }
  }
  return false;
}

bool RegionEqual(const ir::Region& a, const ir::Region& b) {
  if (a.buffer != b.buffer || a.ranges.size() != b.ranges.size()) return false;
  for (size_t i = 0; i < a.ranges.size(); ++i) {
    if (a.ranges[i].extent != b.ranges[i].extent || !ExprEqual(a.ranges[i].min, b.ranges[i].min))
      return false;
  }
  return true;
}

std::vector<int64_t> Trim(const std::vector<int64_t>& shape) {
  size_t i = 0;
  while (i + 1 < shape.size() && shape[i] == 1) ++i;
  return {shape.begin() + static_cast<std::ptrdiff_t>(i), shape.end()};
}

}  // namespace parallel

namespace {

using parallel::Nest;

std::string_view StmtKindText(ir::StmtKind k) {
  switch (k) {
    case ir::StmtKind::kFor:
      return "a loop";
    case ir::StmtKind::kIf:
      return "an if statement";
    case ir::StmtKind::kTileOp:
      return "a tile op";
    case ir::StmtKind::kAllocate:
      return "an allocation";
    case ir::StmtKind::kBarrier:
    case ir::StmtKind::kSetFlag:
    case ir::StmtKind::kWaitFlag:
    case ir::StmtKind::kSetCrossFlag:
    case ir::StmtKind::kWaitCrossFlag:
      return "a sync statement";
    default:
      return "a statement";
  }
}

// Whether `s` holds an If: a data-dependent branch per element has no vector form.
bool HasIf(const ir::Stmt& s) {
  class Finder : public ir::Visitor {
   public:
    bool found = false;

   protected:
    void VisitIf(const ir::IfNode& op) override {
      found = true;
      ir::Visitor::VisitIf(op);
    }
  } finder;
  finder.Visit(s);
  return finder.found;
}

// The nest with its parallel loops made serial: the body runs element by element on the
// scalar unit (upstream falls back the same way).
class Serialise : public ir::Mutator {
 protected:
  ir::Stmt MutateFor(const ir::Stmt& s, const ir::ForNode& op) override {
    ir::Stmt body = Mutate(op.body);
    if (op.for_kind != ir::ForKind::kParallel && body == op.body) return s;
    return std::make_shared<ir::ForNode>(op.var, op.min, op.extent, ir::ForKind::kSerial, 0, body,
                                         op.loc);
  }
};

class ParallelRewriter : public ir::Mutator {
 public:
  explicit ParallelRewriter(PassContext& ctx) : ctx_(ctx), temps_(ctx) {}

 protected:
  ir::Stmt MutateFor(const ir::Stmt& s, const ir::ForNode& op) override {
    if (op.for_kind != ir::ForKind::kParallel) return ir::Mutator::MutateFor(s, op);
    return LowerNest(s, op);
  }
  ir::Stmt MutateKernelStmt(const ir::Stmt& s, const ir::KernelNode& op) override;

 private:
  bool AddLoop(const ir::ForNode& loop, Nest* nest);
  ir::Stmt LowerNest(const ir::Stmt& s, const ir::ForNode& outer);
  bool LowerBody(const ir::Stmt& body, const ir::VarMap& lets, parallel::StoreLowerer& lowerer);

  PassContext& ctx_;
  parallel::TempPool temps_;
};

bool ParallelRewriter::AddLoop(const ir::ForNode& loop, Nest* nest) {
  std::optional<int64_t> mn = ir::AsConstInt(loop.min), ext = ir::AsConstInt(loop.extent);
  if (!mn || !ext || *ext <= 0) {
    ctx_.diag->Error(loop.loc) << "T.Parallel loop bounds must be constants (with a positive "
                                  "extent) to become vector ops";
    return false;
  }
  nest->vars.push_back(loop.var);
  nest->mins.push_back(*mn);
  nest->extents.push_back(*ext);
  return true;
}

const ir::ForNode* InnerParallel(const ir::Stmt& body) {
  const ir::Stmt* s = &body;
  while (const auto* seq = ir::TryAs<ir::SeqNode>(*s)) {
    if (seq->stmts.size() != 1) return nullptr;
    s = &seq->stmts[0];
  }
  const auto* f = ir::TryAs<ir::ForNode>(*s);
  return f != nullptr && f->for_kind == ir::ForKind::kParallel ? f : nullptr;
}

// True if an index in `body` reads a buffer at an index that uses `var`: a gathered row
// (`a[idx[i], j]`), which no vector region can describe.
bool GathersBy(const ir::Stmt& body, const ir::VarNode* var) {
  struct Finder : ir::Visitor {
    const ir::VarNode* var;
    bool found = false;
    void Check(const std::vector<ir::Expr>& indices) {
      for (const ir::Expr& i : indices) {
        found |= ir::HasLoad(i) && ir::UsesVar(i, [&](const ir::VarNode* v) { return v == var; });
      }
    }
    void VisitLoad(const ir::LoadNode& op) override {
      Check(op.indices);
      ir::Visitor::VisitLoad(op);
    }
    void VisitStore(const ir::StoreNode& op) override {
      Check(op.indices);
      ir::Visitor::VisitStore(op);
    }
  } finder;
  finder.var = var;
  finder.Visit(body);
  return finder.found;
}

ir::Stmt ParallelRewriter::LowerNest(const ir::Stmt& s, const ir::ForNode& outer) {
  const ir::ForNode* rows = InnerParallel(outer.body);
  if (rows != nullptr && GathersBy(rows->body, outer.var.get())) {
    // Rows picked through an index buffer: the row loop runs serially, each row a vector op
    // on the row the index names (a runtime region start). In Expert mode a row's ops must
    // finish before the next row's reuse their temporaries, as between the ops of one nest.
    ctx_.Count("gathered_row_loops");
    ir::Stmt row = Mutate(outer.body);
    if (!ctx_.configs.auto_sync) {
      row = ir::Seq({row, std::make_shared<ir::BarrierNode>(ir::Pipe::kV, outer.loc,
                                                            ir::SyncOrigin::kCompiler)},
                    outer.loc);
      ctx_.Count("barriers");
    }
    return std::make_shared<ir::ForNode>(outer.var, outer.min, outer.extent, ir::ForKind::kSerial,
                                         0, row, outer.loc);
  }
  Nest nest;
  if (!AddLoop(outer, &nest)) return s;
  ir::Stmt body = outer.body;
  if (const ir::ForNode* inner = InnerParallel(outer.body)) {
    if (!AddLoop(*inner, &nest)) return s;
    if (InnerParallel(inner->body) != nullptr) {
      ctx_.diag->Error(outer.loc) << "T.Parallel nests of more than two loops cannot become "
                                     "vector ops (rows x columns at most)";
      return s;
    }
    body = inner->body;
  }
  if (HasIf(body)) {
    int64_t n = 1;
    for (int64_t e : nest.extents) n *= e;
    ctx_.diag->Warning(outer.loc)
        << "T.Parallel body branches per element (an if statement): it runs as a serial loop of "
        << n << " scalar iterations; T.if_then_else keeps it on the vector unit";
    ctx_.Count("nests_serialised");
    return Serialise().Mutate(s);
  }
  parallel::OpSink sink(ctx_, !ctx_.configs.auto_sync);
  parallel::StoreLowerer lowerer(nest, temps_, sink, ctx_);
  if (!LowerBody(body, {}, lowerer)) return s;
  ctx_.Count("nests_lowered");
  return ir::Seq(sink.Take(), outer.loc);
}

bool ParallelRewriter::LowerBody(const ir::Stmt& body, const ir::VarMap& lets,
                                 parallel::StoreLowerer& lowerer) {
  if (const auto* seq = ir::TryAs<ir::SeqNode>(body)) {
    for (const ir::Stmt& st : seq->stmts)
      if (!LowerBody(st, lets, lowerer)) return false;
    return true;
  }
  if (const auto* let = ir::TryAs<ir::LetNode>(body)) {
    // A let inside the nest names a per-element value: inline it into its uses.
    ir::VarMap inner = lets;
    inner[let->var.get()] = ir::SubstituteVars(let->value, lets);
    return LowerBody(let->body, inner, lowerer);
  }
  if (body->kind == ir::StmtKind::kStore) {
    ir::Stmt st = lets.empty() ? body : ir::SubstituteVars(body, lets);
    bool ok = lowerer.Lower(ir::As<ir::StoreNode>(st));
    temps_.ReleaseAll();
    return ok;
  }
  ctx_.diag->Error(body->loc) << "T.Parallel body may only hold element-wise stores (and one "
                                 "nested T.Parallel loop); found "
                              << StmtKindText(body->kind);
  return false;
}

ir::Stmt ParallelRewriter::MutateKernelStmt(const ir::Stmt& s, const ir::KernelNode& op) {
  ir::Stmt out = ir::Mutator::MutateKernelStmt(s, op);
  std::vector<ir::Stmt> allocs = temps_.TakeAllocs();
  if (allocs.empty()) return out;
  const auto& k = ir::As<ir::KernelNode>(out);
  std::vector<ir::Stmt> stmts;
  const auto* seq = ir::TryAs<ir::SeqNode>(k.body);
  std::vector<ir::Stmt> rest = seq != nullptr ? seq->stmts : std::vector<ir::Stmt>{k.body};
  size_t i = 0;
  while (i < rest.size() && rest[i]->kind == ir::StmtKind::kAllocate) stmts.push_back(rest[i++]);
  stmts.insert(stmts.end(), allocs.begin(), allocs.end());
  stmts.insert(stmts.end(), rest.begin() + static_cast<std::ptrdiff_t>(i), rest.end());
  return std::make_shared<ir::KernelNode>(k.grid, k.threads, k.cid, k.vid,
                                          ir::Seq(std::move(stmts), k.body->loc), k.loc);
}

}  // namespace

Result<ir::Kernel> LowerParallel(const ir::Kernel& kernel, PassContext& ctx) {
  TILEJIT_CHECK(ctx.target != nullptr && ctx.diag != nullptr) << "PassContext incomplete";
  ParallelRewriter rewriter(ctx);
  ir::Kernel out = rewriter.MutateKernel(kernel);
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  return out;
}

}  // namespace tilejit::passes
