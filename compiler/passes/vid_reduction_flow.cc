// SPDX-License-Identifier: Apache-2.0
// The data-flow survey of vid_reduction. It does not decide anything: it groups UB buffers
// whose rows must be split alike (union-find: element-wise partners, row broadcasts, row
// reductions, buffers whose rows one loop var picks) and records the evidence for each
// group: split seeds (a copy to/from GM at a block-derived row offset, or to/from a cube
// buffer of the block's rows) and reasons a buffer must stay whole on both AIVs (reduced
// across its rows, used by columns, read at a fixed row).
#include <algorithm>
#include <string>

#include "compiler/analysis/core_kind.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/vid_reduction_internal.h"

namespace tilejit::passes::vid {

using ir::MemScope;
using ir::Region;
using ir::TileOpCode;

int Flow::Find(int b) {
  while (parent[b] != b) b = parent[b] = parent[parent[b]];
  return b;
}

void Flow::Union(int a, int b) {
  a = Find(a);
  b = Find(b);
  if (a != b) parent[std::max(a, b)] = std::min(a, b);
}

RowUse ClassifyRegion(const Region& region) {
  if (region.ranges.empty() || region.buffer->shape.empty()) return {};
  const ir::Range& lead = region.ranges.front();
  const int64_t rows = region.buffer->shape.front();
  if (rows > 1 && lead.extent == rows && ir::AsConstInt(lead.min) == 0) return {RowAccess::kWhole};
  if (lead.extent == 1) {
    if (const auto* ref = ir::TryAs<ir::VarRefNode>(lead.min))
      return {RowAccess::kRowVar, ref->var.get()};
  }
  return {};
}

RowUse ClassifyIndices(const std::vector<ir::Expr>& indices) {
  if (indices.empty()) return {};
  if (const auto* ref = ir::TryAs<ir::VarRefNode>(indices.front()))
    return {RowAccess::kRowVar, ref->var.get()};
  return {};
}

std::optional<size_t> PartnerRowDim(const Region& ub, const Region& partner) {
  const size_t n = ub.ranges.size(), m = partner.ranges.size();
  if (m < n) return std::nullopt;
  for (size_t i = 0; i < n; ++i)
    if (ub.ranges[i].extent != partner.ranges[m - n + i].extent) return std::nullopt;
  return m - n;
}

namespace {

class Surveyor : public ir::Visitor {
 public:
  explicit Surveyor(Flow* flow) : flow_(*flow) {}

 protected:
  void VisitKernelStmt(const ir::KernelNode& op) override {
    if (flow_.launch == nullptr) flow_.launch = &op;
    block_vars_.insert(op.cid.get());
    ir::Visitor::VisitKernelStmt(op);
  }

  void VisitAllocate(const ir::AllocateNode& op) override {
    if (op.buffer->scope != MemScope::kUB) return;
    const int id = static_cast<int>(flow_.ubs.size());
    flow_.ubs.push_back(op.buffer);
    flow_.index[op.buffer.get()] = id;
    flow_.parent.push_back(id);
    flow_.split_reason.emplace_back();
    flow_.weak_split_reason.emplace_back();
    flow_.whole_reason.emplace_back();
    flow_.gm_copy.emplace_back();
    flow_.other_use.push_back(false);
  }

  void VisitLet(const ir::LetNode& op) override {
    if (DependsOnBlock(op.value)) block_vars_.insert(op.var.get());
    ir::Visitor::VisitLet(op);
  }

  void VisitFor(const ir::ForNode& op) override {
    loops_[op.var.get()] = &op;
    ir::Visitor::VisitFor(op);
    loops_.erase(op.var.get());
  }

  void VisitLoad(const ir::LoadNode& op) override {
    ScalarAccess(*op.buffer, op.indices, op.loc);
    ir::Visitor::VisitLoad(op);
  }

  void VisitStore(const ir::StoreNode& op) override {
    ScalarAccess(*op.buffer, op.indices, op.loc);
    ir::Visitor::VisitStore(op);
  }

  void VisitTileOp(const ir::TileOpNode& op) override {
    ir::Visitor::VisitTileOp(op);  // loads in mins and scalar operands
    switch (op.op) {
      case TileOpCode::kGemmV0:
      case TileOpCode::kMma:
        return;
      case TileOpCode::kCopy:
        return Copy(op);
      case TileOpCode::kReduceSum:
      case TileOpCode::kReduceMax:
      case TileOpCode::kReduceMin:
        return Reduce(op);
      default:
        return Elementwise(op);
    }
  }

 private:
  bool DependsOnBlock(const ir::Expr& e) {
    return ir::UsesVar(e, [&](const ir::VarNode* v) { return block_vars_.contains(v); });
  }

  int Id(const ir::BufferNode& b) const {
    auto it = flow_.index.find(&b);
    return it == flow_.index.end() ? -1 : it->second;
  }

  // The row use of a UB region, with kRowVar only for enclosing loop vars.
  RowUse Use(const Region& r) {
    RowUse u = ClassifyRegion(r);
    if (u.kind == RowAccess::kRowVar && !loops_.contains(u.var)) return {};
    return u;
  }

  void Split(int b, SourceLoc loc, std::string why) {
    if (!flow_.split_reason[b]) flow_.split_reason[b] = Reason{loc, std::move(why)};
  }
  void WeakSplit(int b, SourceLoc loc, std::string why) {
    if (!flow_.weak_split_reason[b]) flow_.weak_split_reason[b] = Reason{loc, std::move(why)};
  }
  void Whole(int b, SourceLoc loc, std::string why) {
    if (!flow_.whole_reason[b]) flow_.whole_reason[b] = Reason{loc, std::move(why)};
  }

  void RowLoop(const ir::VarNode* var, int b) {
    Flow::RowLoop& rl = flow_.row_loops[var];
    if (rl.loop == nullptr) {
      rl.loop = loops_.at(var);
      flow_.row_loop_order.push_back(var);
    }
    if (!rl.buffers.empty()) flow_.Union(rl.buffers.front(), b);
    rl.buffers.push_back(b);
  }

  void ScalarAccess(const ir::BufferNode& buffer, const std::vector<ir::Expr>& indices,
                    SourceLoc loc) {
    const int b = Id(buffer);
    if (b < 0) return;
    flow_.other_use[b] = true;
    RowUse u = ClassifyIndices(indices);
    if (u.kind == RowAccess::kRowVar && loops_.contains(u.var)) return RowLoop(u.var, b);
    Whole(b, loc, "a scalar access at a row that is not a loop over its rows");
  }

  // Two UB operands of one op whose shapes line up row for row.
  void Pair(const Region& dst, const Region& src, SourceLoc loc) {
    const int d = Id(*dst.buffer), s = Id(*src.buffer);
    flow_.other_use[d] = flow_.other_use[s] = true;
    RowUse du = Use(dst), su = Use(src);
    if (du.kind == RowAccess::kRowVar) RowLoop(du.var, d);
    if (su.kind == RowAccess::kRowVar) RowLoop(su.var, s);
    if (du.kind == RowAccess::kWhole && su.kind == RowAccess::kWhole &&
        dst.ranges.front().extent == src.ranges.front().extent) {
      flow_.Union(d, s);
      return;
    }
    if (du.kind == RowAccess::kRowVar && su.kind == RowAccess::kRowVar && du.var == su.var)
      return;  // joined through the loop var
    // One side indexed by rows, the other by columns of that row.
    if (du.kind == RowAccess::kRowVar && su.kind == RowAccess::kWhole)
      Whole(s, loc, "it is used by columns against one row of another buffer");
    if (du.kind == RowAccess::kWhole && su.kind == RowAccess::kRowVar)
      Whole(d, loc, "it is computed by columns from one row of another buffer");
    // Rows that do not line up: fine either way, except split data into a replicated buffer.
    flow_.derives.push_back({d, s, loc});
  }

  void Copy(const ir::TileOpNode& op) {
    if (op.args.size() != 2) return;
    const Region* dst = std::get_if<Region>(&op.args[0]);
    const Region* src = std::get_if<Region>(&op.args[1]);
    if (dst == nullptr || src == nullptr) return;
    const bool dst_ub = Id(*dst->buffer) >= 0, src_ub = Id(*src->buffer) >= 0;
    if (dst_ub && src_ub) return Pair(*dst, *src, op.loc);
    if (src_ub) return Outside(*src, *dst, op.loc, /*write=*/true);
    if (dst_ub) return Outside(*dst, *src, op.loc, /*write=*/false);
  }

  // A copy between UB region `ub` and a GM or cube region.
  void Outside(const Region& ub, const Region& other, SourceLoc loc, bool write) {
    const int b = Id(*ub.buffer);
    const MemScope scope = other.buffer->scope;
    if (write && (scope == MemScope::kGM || analysis::IsCubeScope(scope)))
      flow_.writes.push_back({b, loc, std::string(ir::MemScopeName(scope))});
    RowUse u = Use(ub);
    std::optional<size_t> dim = PartnerRowDim(ub, other);
    const bool whole = u.kind == RowAccess::kWhole;
    if (scope == MemScope::kGM && whole && dim.has_value()) {
      if (!flow_.gm_copy[b])
        flow_.gm_copy[b] = Reason{loc,
                                  "it only moves data between GM regions, so each vector "
                                  "core moves half of it"};
    } else {
      flow_.other_use[b] = true;
    }
    if (u.kind == RowAccess::kRowVar) RowLoop(u.var, b);
    if (u.kind == RowAccess::kOther) return;
    if (!dim.has_value()) return;
    const char* dir = write ? "to" : "from";
    if (analysis::IsCubeScope(scope) && u.kind == RowAccess::kWhole) {
      Split(b, loc, std::string("it is copied ") + dir + " a cube buffer of the block's rows");
      return;
    }
    if (scope != MemScope::kGM || !DependsOnBlock(other.ranges[*dim].min)) return;
    // Along a GM tensor's last dim the offset may pick columns (a bias slice) as well as rows.
    if (*dim + 1 < other.buffer->shape.size()) {
      Split(b, loc, std::string("it is copied ") + dir + " GM at a block-derived row offset");
    } else {
      WeakSplit(b, loc, std::string("it is copied ") + dir + " GM at a block-derived offset");
    }
  }

  void Reduce(const ir::TileOpNode& op) {
    if (op.args.size() < 2) return;
    const Region* dst = std::get_if<Region>(&op.args[0]);
    const Region* src = std::get_if<Region>(&op.args[1]);
    if (dst == nullptr || src == nullptr || Id(*src->buffer) < 0) return;
    flow_.other_use[Id(*src->buffer)] = true;
    if (Id(*dst->buffer) >= 0) flow_.other_use[Id(*dst->buffer)] = true;
    const int64_t rank = static_cast<int64_t>(src->ranges.size());
    int64_t dim = -1;
    if (const auto* v = op.FindAttr("dim"); v != nullptr && std::holds_alternative<int64_t>(*v))
      dim = std::get<int64_t>(*v);
    if (dim < 0) dim += rank;
    if (rank >= 2 && dim == rank - 1) {
      if (Id(*dst->buffer) >= 0) Pair(*dst, *src, op.loc);
      return;
    }
    Whole(Id(*src->buffer), op.loc, "it is reduced across its rows");
    if (Id(*dst->buffer) >= 0)
      flow_.derives.push_back({Id(*dst->buffer), Id(*src->buffer), op.loc});
  }

  // Element-wise ops, casts, broadcasts, fills, compare/select: every UB source against the
  // destination; a [R] or [R, 1] source against an [R, C] destination is a row broadcast,
  // which lines rows up like an element-wise operand.
  void Elementwise(const ir::TileOpNode& op) {
    if (op.args.empty()) return;
    const Region* dst = std::get_if<Region>(&op.args.front());
    if (dst == nullptr) return;
    const bool dst_ub = Id(*dst->buffer) >= 0;
    if (dst_ub) flow_.other_use[Id(*dst->buffer)] = true;
    if (dst_ub && Use(*dst).kind == RowAccess::kRowVar) RowLoop(Use(*dst).var, Id(*dst->buffer));
    for (size_t i = 1; i < op.args.size(); ++i) {
      const Region* src = std::get_if<Region>(&op.args[i]);
      if (src == nullptr || Id(*src->buffer) < 0) continue;
      flow_.other_use[Id(*src->buffer)] = true;
      if (!dst_ub) {
        if (Use(*src).kind == RowAccess::kRowVar) RowLoop(Use(*src).var, Id(*src->buffer));
        continue;
      }
      Pair(*dst, *src, op.loc);
    }
  }

  Flow& flow_;
  std::unordered_set<const ir::VarNode*> block_vars_;
  std::unordered_map<const ir::VarNode*, const ir::ForNode*> loops_;
};

}  // namespace

Flow SurveyFlow(const ir::Kernel& kernel) {
  Flow flow;
  Surveyor s(&flow);
  s.VisitKernel(kernel);
  for (size_t b = 0; b < flow.ubs.size(); ++b) {
    if (flow.gm_copy[b] && !flow.other_use[b] && !flow.weak_split_reason[b])
      flow.weak_split_reason[b] = flow.gm_copy[b];
  }
  return flow;
}

}  // namespace tilejit::passes::vid
