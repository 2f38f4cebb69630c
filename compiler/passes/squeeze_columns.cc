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

// The first use that keeps a buffer [R, 1].
struct Kept {
  SourceLoc loc;
  std::string why;
};

bool IsCandidate(const BufferNode& b) {
  return b.scope == ir::MemScope::kUB && b.shape.size() == 2 && b.shape[1] == 1 && b.shape[0] > 1 &&
         !b.address && !b.compiler_made;
}

// Whether operand `i` of `op` may be an [R] where the kernel wrote an [R, 1].
bool TakesVector(const ir::TileOpNode& op, size_t i) {
  switch (ir::TileOpFamilyOf(op.op)) {
    case TileOpFamily::kFill:
    case TileOpFamily::kBinary:
    case TileOpFamily::kUnary:
    case TileOpFamily::kCast:
    case TileOpFamily::kAxpy:
    case TileOpFamily::kIndex:
      return true;
    case TileOpFamily::kBroadcast:
      return i == 1;
    case TileOpFamily::kReduce:
      return i == 0;
    default:
      return false;
  }
}

bool IsZero(const ir::Expr& e) { return ir::AsConstInt(e) == 0; }

class UseScan : public ir::Visitor {
 public:
  std::vector<Buffer> candidates;  // in allocation order
  std::unordered_map<const BufferNode*, std::optional<Kept>> kept;

 protected:
  void VisitAllocate(const ir::AllocateNode& op) override {
    if (IsCandidate(*op.buffer)) {
      candidates.push_back(op.buffer);
      kept[op.buffer.get()];
    }
    ir::Visitor::VisitAllocate(op);
  }
  void VisitTileOp(const ir::TileOpNode& op) override {
    for (size_t i = 0; i < op.args.size(); ++i) {
      const auto* r = std::get_if<ir::Region>(&op.args[i]);
      if (r == nullptr) continue;
      if (!TakesVector(op, i)) {
        Keep(*r->buffer, op.loc, "its " + std::string(ir::TileOpName(op.op)) + " here");
      } else if (!IsZero(r->ranges.back().min)) {
        Keep(*r->buffer, op.loc, "a region of its column at a computed offset here");
      }
    }
    ir::Visitor::VisitTileOp(op);
  }
  void VisitLoad(const ir::LoadNode& op) override {
    if (!IsZero(op.indices.back()))
      Keep(*op.buffer, op.loc, "an element load with a column index here");
    ir::Visitor::VisitLoad(op);
  }
  void VisitStore(const ir::StoreNode& op) override {
    if (!IsZero(op.indices.back()))
      Keep(*op.buffer, op.loc, "an element store with a column index here");
    ir::Visitor::VisitStore(op);
  }

 private:
  void Keep(const BufferNode& b, SourceLoc loc, std::string why) {
    auto it = kept.find(&b);
    if (it != kept.end() && !it->second) it->second = Kept{loc, std::move(why)};
  }
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
  MixedShapeCheck(const UseScan& scan, PassContext& ctx) : scan_(scan), ctx_(ctx) {}

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
    auto it = scan_.kept.find(column.buffer.get());
    const std::string col = "'" + column.buffer->name + "'";
    auto err = ctx_.diag->Error(op.loc);
    std::string why = "it is a column of a wider buffer";
    if (it != scan_.kept.end() && it->second) {
      err.Note(it->second->loc, col + " keeps its [n, 1] layout for " + it->second->why);
      why = "it needs one value per 32-byte UB row elsewhere";
    } else if (column.buffer->address) {
      why = "its address is annotated";
    }
    err << ir::TileOpName(op.op) << " pairs '" << row.buffer->name << "' "
        << ShapeText(row.TrimmedShape()) << " with " << col << " "
        << ShapeText(column.TrimmedShape()) << " element by element, which needs " << col
        << " to be " << ShapeText(row.TrimmedShape()) << "; it cannot be: " << why
        << " (declare the two alike)";
  }

  const UseScan& scan_;
  PassContext& ctx_;
};

}  // namespace

Result<ir::Kernel> SqueezeColumns(const ir::Kernel& kernel, PassContext& ctx) {
  UseScan scan;
  scan.Visit(kernel.body);
  ir::BufferMap squeezed;
  for (const Buffer& b : scan.candidates) {
    if (scan.kept.at(b.get())) continue;
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
