// SPDX-License-Identifier: Apache-2.0
// The rewrite of vid_reduction. Each AIV keeps rows [vid * half, vid * half + half) of a
// split buffer, stored at local rows [0, half). So:
//  - a whole-row access of a split buffer becomes rows [0, half) of the halved buffer, and
//    the GM or cube region it is copied to or from moves by vid * half rows and halves;
//  - a halved loop `for i in (0, R)` runs over (0, half): i is the local row, which is how a
//    split buffer's row index uses it, while every other use of i (a GM row, a scalar
//    expression) wants the original row, i + vid * half.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/diagnostic.h"
#include "compiler/ir/mutator.h"
#include "compiler/passes/vid_reduction_internal.h"

namespace tilejit::passes::vid {
namespace {

using ir::Expr;
using ir::Region;

class SplitRewriter : public ir::Mutator {
 public:
  SplitRewriter(const ir::KernelNode& launch, const SplitPlan& plan, DiagnosticEngine* diag)
      : vid_(launch.vid), plan_(plan), diag_(diag) {}

  bool ok = true;

  ir::Buffer MutateBuffer(const ir::Buffer& b) override {
    auto it = plan_.split.find(b.get());
    if (it == plan_.split.end()) return b;
    auto done = halved_.find(b.get());
    if (done != halved_.end()) return done->second;
    ir::BufferNode node = *b;
    node.shape.front() = it->second;
    ir::Buffer out = ir::MakeBuffer(std::move(node));
    halved_[b.get()] = out;
    return out;
  }

 protected:
  Expr MutateVarRef(const Expr& e, const ir::VarRefNode& op) override {
    auto it = plan_.halved_loops.find(op.var.get());
    if (it == plan_.halved_loops.end()) return e;
    return ir::Binary(ir::BinaryOp::kAdd, e, VidRows(it->second, op.loc), op.loc);
  }

  ir::Stmt MutateFor(const ir::Stmt& s, const ir::ForNode& op) override {
    auto it = plan_.halved_loops.find(op.var.get());
    if (it == plan_.halved_loops.end()) return ir::Mutator::MutateFor(s, op);
    return std::make_shared<ir::ForNode>(op.var, op.min,
                                         ir::IntImm(it->second, op.extent->dtype, op.extent->loc),
                                         op.for_kind, op.num_stages, Mutate(op.body), op.loc);
  }

  Expr MutateLoad(const Expr& e, const ir::LoadNode& op) override {
    if (!IsSplit(*op.buffer)) return ir::Mutator::MutateLoad(e, op);
    return ir::Load(MutateBuffer(op.buffer), SplitIndices(*op.buffer, op.indices, op.loc), op.loc);
  }

  ir::Stmt MutateStore(const ir::Stmt& s, const ir::StoreNode& op) override {
    if (!IsSplit(*op.buffer)) return ir::Mutator::MutateStore(s, op);
    return std::make_shared<ir::StoreNode>(MutateBuffer(op.buffer),
                                           SplitIndices(*op.buffer, op.indices, op.loc),
                                           Mutate(op.value), op.loc);
  }

  ir::Stmt MutateTileOp(const ir::Stmt& s, const ir::TileOpNode& op) override {
    std::vector<ir::Operand> args;
    for (const ir::Operand& a : op.args) {
      const Region* r = std::get_if<Region>(&a);
      if (r == nullptr) {
        args.push_back(Mutate(std::get<Expr>(a)));
      } else if (IsSplit(*r->buffer)) {
        args.push_back(SplitRegion(*r, op.loc));
      } else {
        args.push_back(MutateRegion(*r));
      }
    }
    if (op.op == ir::TileOpCode::kCopy) ShiftCopyPartner(op, &args);
    std::vector<ir::Attr> attrs;
    for (const ir::Attr& at : op.attrs) {
      const Expr* e = std::get_if<Expr>(&at.value);
      attrs.push_back(e == nullptr ? at : ir::Attr{at.key, Mutate(*e)});
    }
    ScaleCount(op, args, &attrs);
    (void)s;
    return ir::MakeTileOp(op.op, std::move(args), std::move(attrs), op.loc);
  }

 private:
  bool IsSplit(const ir::BufferNode& b) const { return plan_.split.contains(&b); }
  int64_t Half(const ir::BufferNode& b) const { return plan_.split.at(&b); }

  Expr VidRows(int64_t half, SourceLoc loc) const {
    return ir::Binary(ir::BinaryOp::kMul, ir::Ref(vid_, loc), ir::IntImm(half), loc);
  }

  // `min + vid * half`, folding a zero min.
  Expr Shift(const Expr& min, int64_t half, SourceLoc loc) const {
    if (ir::AsConstInt(min) == 0) return VidRows(half, loc);
    return ir::Binary(ir::BinaryOp::kAdd, min, VidRows(half, loc), loc);
  }

  bool IsHalvedLoopVar(const Expr& e) const {
    const auto* ref = ir::TryAs<ir::VarRefNode>(e);
    return ref != nullptr && plan_.halved_loops.contains(ref->var.get());
  }

  void Unsplittable(const ir::BufferNode& b, SourceLoc loc, const std::string& access) {
    ok = false;
    diag_->Error(loc).Note(b.loc, "'" + b.name + "' is allocated here")
        << "vid_reduction splits '" << b.name
        << "' between the two vector cores (threads=2), but cannot split " << access
        << ": only accesses of all its rows, or of row i in a loop over its rows, can be split; "
           "use threads=1 or the (cid, vid) form to split rows yourself";
  }

  std::vector<Expr> SplitIndices(const ir::BufferNode& b, const std::vector<Expr>& indices,
                                 SourceLoc loc) {
    if (indices.empty() || !IsHalvedLoopVar(indices[0])) Unsplittable(b, loc, "this scalar access");
    std::vector<Expr> out;
    for (size_t i = 0; i < indices.size(); ++i)
      out.push_back(i == 0 && IsHalvedLoopVar(indices[0]) ? indices[0] : Mutate(indices[i]));
    return out;
  }

  Region SplitRegion(const Region& r, SourceLoc loc) {
    Region out = r;
    out.buffer = MutateBuffer(r.buffer);
    for (size_t i = 1; i < r.ranges.size(); ++i) out.ranges[i].min = Mutate(r.ranges[i].min);
    RowUse u = ClassifyRegion(r);
    if (u.kind == RowAccess::kWhole) {
      out.ranges[0] = {ir::IntImm(0), Half(*r.buffer)};
    } else if (!(u.kind == RowAccess::kRowVar && IsHalvedLoopVar(r.ranges[0].min))) {
      Unsplittable(*r.buffer, loc, "a region of some of its rows");
    }
    return out;
  }

  // `count` (cast) is a prefix of the destination's elements: all of them stays all of them;
  // a shorter prefix would straddle the two cores' rows.
  void ScaleCount(const ir::TileOpNode& op, const std::vector<ir::Operand>& args,
                  std::vector<ir::Attr>* attrs) {
    const Region* dst = std::get_if<Region>(&op.args.front());
    if (dst == nullptr || !IsSplit(*dst->buffer)) return;
    for (ir::Attr& at : *attrs) {
      const int64_t* count = std::get_if<int64_t>(&at.value);
      if (at.key != "count" || count == nullptr) continue;
      if (*count != dst->num_elements()) {
        Unsplittable(*dst->buffer, op.loc, "a count that is not all of its elements");
        continue;
      }
      at.value = std::get<Region>(args.front()).num_elements();
    }
  }

  // A copy between a whole split buffer and a GM, cube or replicated region: the other side
  // takes this AIV's half of the rows.
  void ShiftCopyPartner(const ir::TileOpNode& op, std::vector<ir::Operand>* args) {
    if (op.args.size() != 2) return;
    const Region* dst = std::get_if<Region>(&op.args[0]);
    const Region* src = std::get_if<Region>(&op.args[1]);
    if (dst == nullptr || src == nullptr) return;
    for (int side = 0; side < 2; ++side) {
      const Region& ub = side == 0 ? *dst : *src;
      const Region& other = side == 0 ? *src : *dst;
      if (!IsSplit(*ub.buffer) || IsSplit(*other.buffer)) continue;
      if (ClassifyRegion(ub).kind != RowAccess::kWhole) continue;
      std::optional<size_t> dim = PartnerRowDim(ub, other);
      if (!dim.has_value()) {
        Unsplittable(*ub.buffer, op.loc, "a copy whose other side does not line up with its rows");
        continue;
      }
      Region& target = std::get<Region>((*args)[1 - side]);
      const int64_t half = Half(*ub.buffer);
      target.ranges[*dim] = {Shift(target.ranges[*dim].min, half, op.loc), half};
    }
  }

  ir::Var vid_;
  const SplitPlan& plan_;
  DiagnosticEngine* diag_;
  std::unordered_map<const ir::BufferNode*, ir::Buffer> halved_;
};

}  // namespace

bool RewriteSplit(const ir::Kernel& kernel, const ir::KernelNode& launch, const SplitPlan& plan,
                  DiagnosticEngine* diag, ir::Kernel* out) {
  SplitRewriter rewriter(launch, plan, diag);
  *out = rewriter.MutateKernel(kernel);
  return rewriter.ok;
}

}  // namespace tilejit::passes::vid
