// SPDX-License-Identifier: Apache-2.0
// One walk finds the [R, 1] UB buffers and the first use of each that needs the padded
// layout; a mutator rewrites the others; a last walk reports the element-wise ops that still
// pair an [R] with an [R, 1] operand, which codegen could not lower (their elements sit in
// different 32-byte positions, and vector operands start on 32-byte blocks).
#include "compiler/passes/squeeze_columns.h"

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"

namespace tilejit::passes {
namespace {

using ir::Buffer;
using ir::BufferNode;
using ir::TileOpFamily;

// The first use that keeps a buffer, and with it every buffer element-wise with it, [R, 1].
struct Kept {
  SourceLoc loc;
  std::string why;  // "the copy of 'x' here"
};

bool IsCandidate(const BufferNode& b) {
  return b.scope == ir::MemScope::kUB && b.shape.size() == 2 && b.shape[1] == 1 && b.shape[0] > 1 &&
         !b.address && !b.compiler_made;
}

// An [R, 1] region (R > 1) after dropping leading unit dims.
bool IsColumn(const ir::Region& r) {
  std::vector<int64_t> s = r.TrimmedShape();
  return s.size() == 2 && s[1] == 1 && s[0] > 1;
}

bool IsElementwise(TileOpFamily f) {
  return f == TileOpFamily::kBinary || f == TileOpFamily::kUnary || f == TileOpFamily::kCast ||
         f == TileOpFamily::kAxpy;
}

bool IsUbCopy(const ir::TileOpNode& op) {
  if (op.op != ir::TileOpCode::kCopy) return false;
  for (const ir::Operand& a : op.args) {
    const auto* r = std::get_if<ir::Region>(&a);
    if (r == nullptr || r->buffer->scope != ir::MemScope::kUB) return false;
  }
  return true;
}

// Whether operand `i` of `op` may be an [R] where the kernel wrote an [R, 1].
bool TakesVector(const ir::TileOpNode& op, size_t i) {
  switch (ir::TileOpFamilyOf(op.op)) {
    case TileOpFamily::kFill:
    case TileOpFamily::kIndex:
      return true;
    case TileOpFamily::kBroadcast:
      return i == 1;
    case TileOpFamily::kReduce:
      return i == 0;
    default:
      return IsElementwise(ir::TileOpFamilyOf(op.op)) || IsUbCopy(op);
  }
}

bool IsZero(const ir::Expr& e) { return ir::AsConstInt(e) == 0; }

std::string Quoted(const BufferNode& b) { return "'" + b.name + "'"; }

// Candidates, the uses that keep them and the element-wise links between them: the column
// operands of one element-wise op (or UB copy) are squeezed together or not at all.
class UseScan : public ir::Visitor {
 public:
  // After the walk: the reason the component of candidate `b` keeps [R, 1] (the first kept
  // member's, in allocation order); nullptr when it is squeezed or `b` is no candidate.
  const Kept* KeptOf(const BufferNode& b) {
    if (root_kept_.empty()) {
      root_kept_.assign(candidates_.size(), nullptr);
      for (size_t i = 0; i < kept_.size(); ++i) {
        const Kept*& k = root_kept_[Find(i)];
        if (kept_[i] && k == nullptr) k = &*kept_[i];
      }
    }
    auto it = slot_.find(&b);
    return it == slot_.end() ? nullptr : root_kept_[Find(it->second)];
  }
  const std::vector<Buffer>& candidates() const { return candidates_; }

 protected:
  void VisitAllocate(const ir::AllocateNode& op) override {
    if (IsCandidate(*op.buffer)) {
      slot_[op.buffer.get()] = candidates_.size();
      candidates_.push_back(op.buffer);
      parent_.push_back(parent_.size());
      kept_.emplace_back();
    }
    ir::Visitor::VisitAllocate(op);
  }
  void VisitTileOp(const ir::TileOpNode& op) override {
    const std::string name(ir::TileOpName(op.op));
    const bool linked = IsElementwise(ir::TileOpFamilyOf(op.op)) || IsUbCopy(op);
    std::vector<const ir::Region*> columns;
    for (size_t i = 0; i < op.args.size(); ++i) {
      const auto* r = std::get_if<ir::Region>(&op.args[i]);
      if (r == nullptr) continue;
      const std::string of = " of " + Quoted(*r->buffer) + " here";
      if (!TakesVector(op, i)) {
        Keep(*r->buffer, op.loc, "the " + name + of);
      } else if (!IsZero(r->ranges.back().min)) {
        Keep(*r->buffer, op.loc, "the " + name + " at a column offset" + of);
      }
      if (linked && IsColumn(*r)) columns.push_back(r);
    }
    Link(op, name, columns);
    ir::Visitor::VisitTileOp(op);
  }
  void VisitLoad(const ir::LoadNode& op) override {
    if (!IsZero(op.indices.back())) {
      Keep(*op.buffer, op.loc, "the load with a column index from " + Quoted(*op.buffer) + " here");
    }
    ir::Visitor::VisitLoad(op);
  }
  void VisitStore(const ir::StoreNode& op) override {
    if (!IsZero(op.indices.back())) {
      Keep(*op.buffer, op.loc, "the store with a column index to " + Quoted(*op.buffer) + " here");
    }
    ir::Visitor::VisitStore(op);
  }

 private:
  size_t Find(size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void Keep(const BufferNode& b, SourceLoc loc, std::string why) {
    auto it = slot_.find(&b);
    if (it != slot_.end() && !kept_[it->second]) kept_[it->second] = Kept{loc, std::move(why)};
  }
  // Columns of one op: candidates join one component; a column that cannot be squeezed (of a
  // wider buffer) keeps them all.
  void Link(const ir::TileOpNode& op, const std::string& name,
            const std::vector<const ir::Region*>& columns) {
    const ir::Region* fixed = nullptr;
    std::optional<size_t> first;
    for (const ir::Region* c : columns) {
      auto it = slot_.find(c->buffer.get());
      if (it == slot_.end()) {
        fixed = fixed ? fixed : c;
      } else if (!first) {
        first = it->second;
      } else {
        parent_[Find(it->second)] = Find(*first);
      }
    }
    if (fixed == nullptr || !first) return;
    for (const ir::Region* c : columns) {
      Keep(*c->buffer, op.loc,
           "the " + name + " with " + Quoted(*fixed->buffer) +
               " (an [R, 1] part of a larger buffer) here");
    }
  }

  std::vector<Buffer> candidates_;  // in allocation order
  std::unordered_map<const BufferNode*, size_t> slot_;
  std::vector<size_t> parent_;
  std::vector<std::optional<Kept>> kept_;
  std::vector<const Kept*> root_kept_;  // by component root, filled by the first KeptOf
};

class Squeezer : public ir::Mutator {
 public:
  explicit Squeezer(ir::BufferMap squeezed) : squeezed_(std::move(squeezed)) {}

  Buffer MutateBuffer(const Buffer& b) override {
    auto it = squeezed_.find(b.get());
    return it == squeezed_.end() ? b : it->second;
  }
  ir::Region MutateRegion(const ir::Region& region) override {
    ir::Region out = ir::Mutator::MutateRegion(region);
    if (squeezed_.count(region.buffer.get())) out.ranges.pop_back();
    return out;
  }

 protected:
  ir::Expr MutateLoad(const ir::Expr& e, const ir::LoadNode& op) override {
    auto it = squeezed_.find(op.buffer.get());
    if (it == squeezed_.end()) return ir::Mutator::MutateLoad(e, op);
    bool changed = false;
    std::vector<ir::Expr> indices = MutateExprs(op.indices, &changed);
    indices.pop_back();
    return std::make_shared<ir::LoadNode>(it->second, std::move(indices), op.loc);
  }
  ir::Stmt MutateStore(const ir::Stmt& s, const ir::StoreNode& op) override {
    auto it = squeezed_.find(op.buffer.get());
    if (it == squeezed_.end()) return ir::Mutator::MutateStore(s, op);
    bool changed = false;
    std::vector<ir::Expr> indices = MutateExprs(op.indices, &changed);
    indices.pop_back();
    return std::make_shared<ir::StoreNode>(it->second, std::move(indices), Mutate(op.value),
                                           op.loc);
  }

 private:
  ir::BufferMap squeezed_;
};

using ir::ShapeText;

// `a` is [n] and `b` is [n, 1].
bool RowAgainstColumn(const ir::Region& a, const ir::Region& b) {
  std::vector<int64_t> x = a.TrimmedShape(), y = b.TrimmedShape();
  return x.size() == 1 && y.size() == 2 && y[1] == 1 && y[0] == x[0];
}

// Reports every element-wise op that still pairs an [n] with an [n, 1] operand. An [n, 1]
// destination with an [n] second source of a binary op stays legal: one value per row.
class MixedShapeCheck : public ir::Visitor {
 public:
  MixedShapeCheck(UseScan& scan, PassContext& ctx) : scan_(scan), ctx_(ctx) {}

 protected:
  void VisitTileOp(const ir::TileOpNode& op) override {
    const TileOpFamily f = ir::TileOpFamilyOf(op.op);
    const bool elementwise = f == TileOpFamily::kBinary || f == TileOpFamily::kUnary ||
                             f == TileOpFamily::kCast || f == TileOpFamily::kAxpy;
    const auto* dst = op.args.empty() ? nullptr : std::get_if<ir::Region>(&op.args[0]);
    if (elementwise && dst != nullptr) {
      for (size_t i = 1; i < op.args.size() && i < 3; ++i) {
        const auto* src = std::get_if<ir::Region>(&op.args[i]);
        if (src == nullptr) continue;
        const bool dst_row = RowAgainstColumn(*dst, *src);
        if (dst_row || (i == 1 && RowAgainstColumn(*src, *dst))) {
          Report(op, dst_row ? *dst : *src, dst_row ? *src : *dst);
          return;
        }
      }
    }
    ir::Visitor::VisitTileOp(op);
  }

 private:
  void Report(const ir::TileOpNode& op, const ir::Region& row, const ir::Region& column) {
    const std::string col = Quoted(*column.buffer);
    const Kept* kept = scan_.KeptOf(*column.buffer);
    std::string why = "it is an [R, 1] part of a larger buffer";
    if (kept != nullptr) {
      why = "it needs one value per 32-byte UB row elsewhere";
    } else if (column.buffer->address) {
      why = "its address is annotated";
    }
    auto err = ctx_.diag->Error(op.loc);
    if (kept != nullptr) err.Note(kept->loc, col + " keeps its [R, 1] layout for " + kept->why);
    err << ir::TileOpName(op.op) << " pairs " << Quoted(*row.buffer) << " "
        << ShapeText(row.TrimmedShape()) << " with " << col << " "
        << ShapeText(column.TrimmedShape()) << " element by element, which needs " << col
        << " to be " << ShapeText(row.TrimmedShape()) << "; it cannot be: " << why
        << " (declare the two alike)";
  }

  UseScan& scan_;
  PassContext& ctx_;
};

}  // namespace

Result<ir::Kernel> SqueezeColumns(const ir::Kernel& kernel, PassContext& ctx) {
  UseScan scan;
  scan.Visit(kernel.body);
  ir::BufferMap squeezed;
  for (const Buffer& b : scan.candidates()) {
    if (scan.KeptOf(*b) != nullptr) continue;
    BufferNode node = *b;
    node.shape.pop_back();
    squeezed[b.get()] = ir::MakeBuffer(std::move(node));
  }
  ctx.Count("squeezed", static_cast<int64_t>(squeezed.size()));
  ir::Kernel out = squeezed.empty() ? kernel : Squeezer(std::move(squeezed)).MutateKernel(kernel);
  MixedShapeCheck(scan, ctx).Visit(out.body);
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  return out;
}

}  // namespace tilejit::passes
