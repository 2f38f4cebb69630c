// SPDX-License-Identifier: Apache-2.0
// legalize_copies, part 2: cube <-> vector hand-offs through compiler workspaces (see
// legalize_copies_internal.h).
//
// Why a workspace per copy statement rather than per buffer: each copy is one hand-off with
// its own producer and consumer position, and cross_core_sync pairs writes and reads of a
// workspace one to one; sharing a workspace between two copies would make their slots alias.
// multi_buffer (which runs next) versions these workspaces per loop slot.
//
// Why the cube side copies the union of the AIVs' regions: with threads=2 each AIV moves its
// own half (vid_reduction rewrote the regions with vid), while the single AIC serves both and
// must stay vid-free. A dim split as `X + vid * e` is [X, X + 2e); any other vid-dependent
// dim is taken whole. Dims that do not depend on vid keep their range, so a buffer staged a
// row per copy (the vid-reduced sparse flash attention) moves a row per copy, not the whole
// buffer each time, and never reads workspace rows not yet written.
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/analysis/cv_handoff.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/legalize_copies_internal.h"

namespace tilejit::passes::legalize_copies_internal {
namespace {

using ir::MemScope;

const ir::Region* RegionArg(const ir::TileOpNode& op, size_t i) {
  return i < op.args.size() ? std::get_if<ir::Region>(&op.args[i]) : nullptr;
}

class Stager : public ir::Mutator {
 public:
  Stager(PassContext& ctx, const std::vector<ir::Buffer>& params) : ctx_(ctx) {
    for (const ir::Buffer& p : params) names_.insert(p->name);
  }

  std::vector<ir::Buffer> workspaces;  // in creation order

 protected:
  ir::Stmt MutateKernelStmt(const ir::Stmt& s, const ir::KernelNode& op) override {
    grid_ = ir::AsConstInt(op.grid);
    grid_text_ = ir::PrintExpr(op.grid);
    cid_ = op.cid;
    vid_ = op.vid;
    two_aivs_ = op.threads != 1;
    vid_vars_ = {op.vid.get()};
    return ir::Mutator::MutateKernelStmt(s, op);
  }

  ir::Stmt MutateLet(const ir::Stmt& s, const ir::LetNode& op) override {
    if (MentionsVid(op.value)) vid_vars_.insert(op.var.get());
    return ir::Mutator::MutateLet(s, op);
  }

  // Splices the two-copy sequences a rewrite returns into the enclosing sequence.
  ir::Stmt MutateSeq(const ir::Stmt& s, const ir::SeqNode& op) override {
    ir::Stmt m = ir::Mutator::MutateSeq(s, op);
    return m == s ? s : ir::FlatSeq(ir::As<ir::SeqNode>(m).stmts, m->loc);
  }

  ir::Stmt MutateTileOp(const ir::Stmt& s, const ir::TileOpNode& op) override {
    if (!analysis::IsCrossCoreCopy(op)) return s;
    if (!grid_.has_value()) {
      if (!reported_grid_) {
        ctx_.diag->Error(op.loc)
            << "this copy needs a compiler workspace sized by the launch grid, which must be a "
               "compile-time constant here (got `"
            << grid_text_ << "`)";
      }
      reported_grid_ = true;
      return s;
    }
    const ir::Region& dst = *RegionArg(op, 0);
    const ir::Region& src = *RegionArg(op, 1);
    const bool from_cube = src.buffer->scope == MemScope::kL0C;
    const ir::Buffer& cube_buf = from_cube ? src.buffer : dst.buffer;
    const ir::Region& cube_region = from_cube ? src : dst;
    // The workspace holds the UB side's dtype: an L0C->UB conversion happens on the FIX pipe.
    const ir::DType dtype = from_cube ? dst.buffer->dtype : src.buffer->dtype;
    ir::Buffer ws = NewWorkspace(*cube_buf, dtype, op.loc);
    const ir::Region cube_side = CubeSide(cube_region);
    ir::Region ws_cube = WsRegion(ws, cube_side.ranges, op.loc);
    ir::Region ws_part = WsRegion(ws, cube_region.ranges, op.loc);
    std::vector<ir::Attr> cube_attrs;
    if (const ir::AttrValue* relu = op.FindAttr("enable_relu")) {
      cube_attrs.push_back({"enable_relu", *relu});
    }
    if (from_cube) {
      return ir::Seq(
          {ir::MakeTileOp(ir::TileOpCode::kCopy, {ws_cube, cube_side}, cube_attrs, op.loc),
           ir::MakeTileOp(ir::TileOpCode::kCopy, {dst, ws_part}, {}, op.loc)},
          op.loc);
    }
    ir::Region vec_src = src;
    if (two_aivs_ && !MentionsVid(src) && !MentionsVid(dst)) SplitRows(&ws_part, &vec_src);
    return ir::Seq({ir::MakeTileOp(ir::TileOpCode::kCopy, {ws_part, vec_src}, {}, op.loc),
                    ir::MakeTileOp(ir::TileOpCode::kCopy, {cube_side, ws_cube}, {}, op.loc)},
                   op.loc);
  }

 private:
  bool MentionsVid(const ir::Expr& e) const {
    return ir::UsesVar(e, [&](const ir::VarNode* v) { return vid_vars_.contains(v); });
  }
  bool MentionsVid(const ir::Region& r) const {
    for (const ir::Range& range : r.ranges)
      if (MentionsVid(range.min)) return true;
    return false;
  }

  // The cube buffer's region that the AIVs' copies cover together (see the top of the file).
  ir::Region CubeSide(const ir::Region& r) const {
    ir::Region out = r;
    for (size_t d = 0; d < out.ranges.size(); ++d) {
      ir::Range& range = out.ranges[d];
      if (!MentionsVid(range.min)) continue;
      std::optional<ir::Expr> rest = HalvesBase(range);
      if (rest.has_value()) {
        range = ir::Range{*rest, range.extent * 2};
      } else {
        range = ir::Range{ir::IntImm(0, ir::DType::kInt32, range.min->loc), r.buffer->shape[d]};
      }
    }
    return out;
  }

  // X for a range `X + vid * e` (or `vid * e + X`, or `vid * e`) of extent e, X free of vid.
  std::optional<ir::Expr> HalvesBase(const ir::Range& range) const {
    auto is_step = [&](const ir::Expr& e) {
      const auto* mul = ir::TryAs<ir::BinaryNode>(e);
      if (mul == nullptr || mul->op != ir::BinaryOp::kMul) return false;
      const auto* v = ir::TryAs<ir::VarRefNode>(mul->a);
      const auto* c = ir::TryAs<ir::IntImmNode>(mul->b);
      return v != nullptr && c != nullptr && v->var == vid_ && c->value == range.extent;
    };
    if (is_step(range.min)) return ir::IntImm(0, ir::DType::kInt32, range.min->loc);
    const auto* add = ir::TryAs<ir::BinaryNode>(range.min);
    if (add == nullptr || add->op != ir::BinaryOp::kAdd) return std::nullopt;
    if (is_step(add->b) && !MentionsVid(add->a)) return add->a;
    if (is_step(add->a) && !MentionsVid(add->b)) return add->b;
    return std::nullopt;
  }

  // Both AIVs hold the same (replicated, unsplit) UB data: each writes its own half of the
  // rows, so the two writes of the workspace are disjoint rather than a write-write race.
  // Left whole when the rows do not halve.
  void SplitRows(ir::Region* ws, ir::Region* ub) const {
    auto first_rows = [](ir::Region* r) -> ir::Range* {
      for (ir::Range& range : r->ranges)
        if (range.extent > 1) return &range;
      return nullptr;
    };
    ir::Range* a = first_rows(ws);
    ir::Range* b = first_rows(ub);
    if (a == nullptr || b == nullptr || a->extent != b->extent || a->extent % 2 != 0) return;
    const int64_t half = a->extent / 2;
    for (ir::Range* range : {a, b}) {
      const SourceLoc loc = range->min->loc;
      range->min = ir::Binary(
          ir::BinaryOp::kAdd, range->min,
          ir::Binary(ir::BinaryOp::kMul, ir::Ref(vid_, loc), ir::IntImm(half), loc), loc);
      range->extent = half;
    }
  }

  ir::Buffer NewWorkspace(const ir::BufferNode& cube_buf, ir::DType dtype, SourceLoc loc) {
    std::string name;
    for (int n = static_cast<int>(workspaces.size());; ++n) {
      name = "cv_workspace" + std::to_string(n);
      if (names_.insert(name).second) break;
    }
    ir::BufferNode b;
    b.name = name;
    b.shape.push_back(*grid_);
    b.shape.insert(b.shape.end(), cube_buf.shape.begin(), cube_buf.shape.end());
    b.dtype = dtype;
    b.scope = MemScope::kGM;
    b.role = ir::BufferRole::kWorkspace;
    b.compiler_made = true;
    b.loc = loc;
    ir::Buffer ws = ir::MakeBuffer(std::move(b));
    ctx_.Count("workspace_bytes", ws->size_bytes() / *grid_);
    workspaces.push_back(ws);
    return ws;
  }

  ir::Region WsRegion(const ir::Buffer& ws, const std::vector<ir::Range>& ranges,
                      SourceLoc loc) const {
    ir::Region r{ws, {ir::Range{ir::Ref(cid_, loc), 1}}, loc};
    r.ranges.insert(r.ranges.end(), ranges.begin(), ranges.end());
    return r;
  }

  PassContext& ctx_;
  std::set<std::string> names_;
  std::optional<int64_t> grid_;
  std::string grid_text_;
  ir::Var cid_;
  ir::Var vid_;
  bool two_aivs_ = false;
  std::set<const ir::VarNode*> vid_vars_;
  bool reported_grid_ = false;
};

}  // namespace

Result<ir::Kernel> StageCrossCoreCopies(const ir::Kernel& kernel, PassContext& ctx) {
  Stager stager(ctx, kernel.params);
  ir::Kernel out = stager.MutateKernel(kernel);
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  for (const ir::Buffer& ws : stager.workspaces) {
    out.workspace_idx.push_back(static_cast<int>(out.params.size()));
    out.params.push_back(ws);
  }
  return out;
}

}  // namespace tilejit::passes::legalize_copies_internal
