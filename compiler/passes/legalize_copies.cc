// SPDX-License-Identifier: Apache-2.0
// Copy legality is checked here rather than in codegen so that an illegal copy is a user
// diagnostic at the user's statement, before any placement or sync work is spent on it, and
// so that codegen can CHECK its preconditions (ops.h). The legal set is the intersection of
// the target's data paths and the ISA's copy instructions: the hardware's gm->l0a/l0b loads
// have no instruction here, so they are refused with a staging hint rather than silently
// rewritten (the extra L1 tile would need placement the author did not ask for).
#include "compiler/passes/legalize_copies.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/analysis/cv_handoff.h"
#include "compiler/ir/buffer_layout.h"
#include "compiler/ir/mutator.h"
#include "compiler/ir/visitor.h"
#include "compiler/passes/legalize_copies_internal.h"

namespace tilejit::passes {
namespace {

using ir::MemScope;
using Path = std::pair<MemScope, MemScope>;

// The ISA's copies (docs/isa.md section 5), in the order messages list them.
constexpr std::array<Path, 9> kIsaPaths = {{{MemScope::kGM, MemScope::kL1},
                                            {MemScope::kGM, MemScope::kUB},
                                            {MemScope::kUB, MemScope::kGM},
                                            {MemScope::kUB, MemScope::kUB},
                                            {MemScope::kL1, MemScope::kGM},
                                            {MemScope::kL1, MemScope::kL0A},
                                            {MemScope::kL1, MemScope::kL0B},
                                            {MemScope::kL0C, MemScope::kGM},
                                            {MemScope::kL0C, MemScope::kL1}}};

bool IsMemoryScope(MemScope s) {
  return s == MemScope::kGM || s == MemScope::kL1 || s == MemScope::kL0A || s == MemScope::kL0B ||
         s == MemScope::kL0C || s == MemScope::kUB;
}

std::string PathText(MemScope src, MemScope dst) {
  return std::string(ir::MemScopeName(src)) + " -> " + std::string(ir::MemScopeName(dst));
}

using ir::ShapeText;

std::vector<int64_t> Squeezed(const std::vector<int64_t>& shape) {
  std::vector<int64_t> out;
  for (int64_t d : shape)
    if (d != 1) out.push_back(d);
  return out;
}

bool BoolAttr(const ir::TileOpNode& op, std::string_view key) {
  const ir::AttrValue* v = op.FindAttr(key);
  return v != nullptr && std::holds_alternative<bool>(*v) && std::get<bool>(*v);
}

// A converting UB->UB copy: T.copy's conversion, done by the vector unit's cast (the same V
// pipe as copy_ub_ub, so the author's syncs around the copy still order it).
bool IsUbCast(const ir::Region& src, const ir::Region& dst) {
  return src.buffer->scope == MemScope::kUB && dst.buffer->scope == MemScope::kUB &&
         src.buffer->dtype != dst.buffer->dtype;
}

class UbCastRewriter : public ir::Mutator {
 public:
  explicit UbCastRewriter(PassContext& ctx) : ctx_(ctx) {}

 protected:
  ir::Stmt MutateTileOp(const ir::Stmt& s, const ir::TileOpNode& op) override {
    if (op.op != ir::TileOpCode::kCopy || op.args.size() != 2) return s;
    const auto* dst = std::get_if<ir::Region>(&op.args[0]);
    const auto* src = std::get_if<ir::Region>(&op.args[1]);
    if (dst == nullptr || src == nullptr || !IsUbCast(*src, *dst)) return s;
    ctx_.Count("ub_casts");
    return ir::MakeTileOp(ir::TileOpCode::kCast, op.args, {{"mode", std::string("CAST_RINT")}},
                          op.loc);
  }

 private:
  PassContext& ctx_;
};

// A GM -> L1 copy into part of a tile, at the tile's base (every min a constant 0, the last
// two extents not both whole): upstream's copy_gm_to_l1 zero-inits the whole tile first
// (need_clear: only the copy at offset 0 clears, so a later copy spliced into the same tile
// keeps the earlier rows), and rows or columns no copy writes read as zero (K tails, a splice
// that leaves a tail unfilled). The clear is a fill in the IR, so every later pass orders and
// places it like any other write; without TL_ASCEND_AUTO_SYNC the author cannot have ordered
// it against the copy, so a barrier on MTE2 (both run there) comes with it.
bool ClearsTile(const ir::Region& dst) {
  const std::vector<int64_t>& shape = dst.buffer->shape;
  const size_t rank = shape.size();
  if (rank == 0 || dst.ranges.size() != rank) return false;
  for (const ir::Range& r : dst.ranges) {
    const std::optional<int64_t> min = ir::AsConstInt(r.min);
    if (!min.has_value() || *min != 0) return false;
  }
  bool partial = false;
  for (size_t d = rank >= 2 ? rank - 2 : 0; d < rank; ++d)
    partial = partial || dst.ranges[d].extent < shape[d];
  return partial;
}

class TileClearer : public ir::Mutator {
 public:
  explicit TileClearer(PassContext& ctx) : ctx_(ctx) {}

 protected:
  ir::Stmt MutateSeq(const ir::Stmt& s, const ir::SeqNode& op) override {
    ir::Stmt m = ir::Mutator::MutateSeq(s, op);
    return m == s ? s : ir::FlatSeq(ir::As<ir::SeqNode>(m).stmts, m->loc);
  }

  ir::Stmt MutateTileOp(const ir::Stmt& s, const ir::TileOpNode& op) override {
    if (op.op != ir::TileOpCode::kCopy || op.args.size() != 2) return s;
    const auto* dst = std::get_if<ir::Region>(&op.args[0]);
    const auto* src = std::get_if<ir::Region>(&op.args[1]);
    if (dst == nullptr || src == nullptr || dst->buffer->scope != MemScope::kL1 ||
        src->buffer->scope != MemScope::kGM || !ClearsTile(*dst))
      return s;
    ctx_.Count("tile_clears");
    ir::Region tile = *dst;  // the matrices the copy writes into, whole
    const size_t rank = tile.ranges.size();
    for (size_t d = rank >= 2 ? rank - 2 : 0; d < rank; ++d)
      tile.ranges[d].extent = tile.buffer->shape[d];
    const ir::Expr zero = ir::IsFloat(dst->buffer->dtype)
                              ? ir::FloatImm(0.0, dst->buffer->dtype, op.loc)
                              : ir::IntImm(0, dst->buffer->dtype, op.loc);
    std::vector<ir::Stmt> out{ir::MakeTileOp(ir::TileOpCode::kFill, {tile, zero}, {}, op.loc)};
    if (!ctx_.configs.auto_sync)
      out.push_back(
          std::make_shared<ir::BarrierNode>(ir::Pipe::kMte2, op.loc, ir::SyncOrigin::kCompiler));
    out.push_back(s);
    return ir::Seq(std::move(out), op.loc);
  }

 private:
  PassContext& ctx_;
};

bool HasCoreScope(const ir::Kernel& kernel) {
  class Finder : public ir::Visitor {
   public:
    bool found = false;

   protected:
    void VisitCoreScope(const ir::CoreScopeNode& op) override {
      found = true;
      ir::Visitor::VisitCoreScope(op);
    }
  } finder;
  finder.Visit(kernel.body);
  return finder.found;
}

class CopyChecker : public ir::Visitor {
 public:
  CopyChecker(PassContext& ctx, bool defer_cv) : ctx_(ctx), defer_cv_(defer_cv) {}

 protected:
  void VisitTileOp(const ir::TileOpNode& op) override {
    if (op.op == ir::TileOpCode::kCopy && op.args.size() == 2 &&
        std::holds_alternative<ir::Region>(op.args[0]) &&
        std::holds_alternative<ir::Region>(op.args[1])) {
      ctx_.Count("copies");
      Check(op, std::get<ir::Region>(op.args[1]), std::get<ir::Region>(op.args[0]));
    }
    ir::Visitor::VisitTileOp(op);
  }

 private:
  bool IsLegal(MemScope src, MemScope dst) const {
    if (std::find(kIsaPaths.begin(), kIsaPaths.end(), Path{src, dst}) == kIsaPaths.end())
      return false;
    return target::FindPath(*ctx_.target, ir::MemOf(src), ir::MemOf(dst)) != nullptr;
  }

  void Check(const ir::TileOpNode& op, const ir::Region& src, const ir::Region& dst) {
    MemScope s = src.buffer->scope;
    MemScope d = dst.buffer->scope;
    for (MemScope scope : {s, d}) {
      if (IsMemoryScope(scope)) continue;
      ctx_.diag->Error(op.loc) << "copy " << PathText(s, d) << " has an operand in scope "
                               << ir::MemScopeName(scope)
                               << ", which is not a memory a copy can move data in";
      return;
    }
    if (defer_cv_ && analysis::IsCrossCoreCopy(op)) {
      // Staged through a workspace below; the round trip must still be a legal copy pair.
      ctx_.Count("cv_round_trips");
      CheckShapes(op, src, dst);
      CheckConversion(op, src, dst);
      return;
    }
    if (!IsLegal(s, d)) return ReportPath(op, s, d);
    CheckShapes(op, src, dst);
    CheckConversion(op, src, dst);
  }

  void ReportPath(const ir::TileOpNode& op, MemScope s, MemScope d) {
    if ((s == MemScope::kL0C && d == MemScope::kUB) || (s == MemScope::kUB && d == MemScope::kL1))
      return ReportCrossCore(op, s, d);
    if (s == MemScope::kGM && (d == MemScope::kL0A || d == MemScope::kL0B)) {
      ctx_.diag->Error(op.loc) << "copy " << PathText(s, d)
                               << " is not supported by this ISA: stage through L1 ("
                               << PathText(s, MemScope::kL1) << ", then "
                               << PathText(MemScope::kL1, d) << ")";
      return;
    }
    std::vector<std::string> from, into;
    for (const Path& p : kIsaPaths) {
      if (!IsLegal(p.first, p.second)) continue;
      if (p.first == s) from.push_back(PathText(p.first, p.second));
      if (p.second == d) into.push_back(PathText(p.first, p.second));
    }
    auto join = [](const std::vector<std::string>& v) {
      std::string out;
      for (const std::string& x : v) out += (out.empty() ? "" : ", ") + x;
      return out.empty() ? std::string("none") : out;
    };
    ctx_.diag->Error(op.loc) << "copy " << PathText(s, d) << " is not a legal path; legal from "
                             << ir::MemScopeName(s) << ": " << join(from) << "; legal into "
                             << ir::MemScopeName(d) << ": " << join(into);
  }

  void ReportCrossCore(const ir::TileOpNode& op, MemScope s, MemScope d) {
    const bool from_cube = s == MemScope::kL0C;
    ctx_.diag->Error(op.loc) << "copy " << PathText(s, d) << " has no on-chip path on "
                             << ctx_.target->soc
                             << ": declare a GM workspace (workspace_idx), copy "
                             << PathText(s, MemScope::kGM) << " on the "
                             << (from_cube ? "cube" : "vector") << " core and "
                             << PathText(MemScope::kGM, d) << " on the "
                             << (from_cube ? "vector" : "cube")
                             << " core, ordered with set_cross_flag / wait_cross_flag (the "
                                "compiler stages it itself only with TL_ASCEND_AUTO_CV_COMBINE "
                                "on and no T.Scope)";
  }

  void CheckShapes(const ir::TileOpNode& op, const ir::Region& src, const ir::Region& dst) {
    std::vector<int64_t> s = src.TrimmedShape();
    std::vector<int64_t> d = dst.TrimmedShape();
    bool transpose = BoolAttr(op, "transpose");
    std::vector<int64_t> expect = s;
    if (transpose && expect.size() >= 2)
      std::swap(expect[expect.size() - 1], expect[expect.size() - 2]);
    if (Squeezed(expect) == Squeezed(d)) return;
    ctx_.diag->Error(op.loc) << "copy shape mismatch: source is " << ShapeText(s)
                             << (transpose ? " (transposed)" : "") << " but destination is "
                             << ShapeText(d);
  }

  void CheckConversion(const ir::TileOpNode& op, const ir::Region& src, const ir::Region& dst) {
    MemScope s = src.buffer->scope;
    MemScope d = dst.buffer->scope;
    const bool fixpipe = s == MemScope::kL0C;
    ir::DType st = src.buffer->dtype;
    ir::DType dt = dst.buffer->dtype;
    if (!fixpipe && st != dt && !IsUbCast(src, dst)) {
      ctx_.diag->Error(op.loc) << "copy " << PathText(s, d) << " cannot convert "
                               << ir::DTypeName(st) << " to " << ir::DTypeName(dt)
                               << ": only the fixpipe paths (l0c -> gm, l0c -> l1) convert "
                                  "dtypes; use cast on the vector core";
    }
    if (fixpipe) {
      bool ok =
          (st == ir::DType::kFloat32 && (dt == ir::DType::kFloat32 || dt == ir::DType::kFloat16 ||
                                         dt == ir::DType::kBFloat16)) ||
          (st == ir::DType::kInt32 && dt == ir::DType::kInt32);
      if (!ok) {
        ctx_.diag->Error(op.loc) << "copy " << PathText(s, d) << " cannot convert "
                                 << ir::DTypeName(st) << " to " << ir::DTypeName(dt)
                                 << ": the fixpipe converts float32 to float32, float16 or "
                                    "bfloat16 and int32 to int32";
      }
    }
    if (!fixpipe && BoolAttr(op, "enable_relu")) {
      ctx_.diag->Error(op.loc) << "enable_relu is only supported on the fixpipe paths (l0c -> "
                                  "gm, l0c -> l1), not on "
                               << PathText(s, d);
    }
    if (BoolAttr(op, "transpose")) {
      if (s != MemScope::kL1 || (d != MemScope::kL0A && d != MemScope::kL0B)) {
        ctx_.diag->Error(op.loc) << "transpose is only supported on l1 -> l0a and l1 -> l0b "
                                    "loads, not on "
                                 << PathText(s, d);
      } else if (ir::DTypeBits(st) != 16) {
        ctx_.diag->Error(op.loc) << "a transposing " << PathText(s, d)
                                 << " load needs a 16-bit dtype, not " << ir::DTypeName(st);
      }
    }
  }

  PassContext& ctx_;
  bool defer_cv_;
};

}  // namespace

Result<ir::Kernel> LegalizeCopies(const ir::Kernel& kernel, PassContext& ctx) {
  TILEJIT_CHECK(ctx.target != nullptr && ctx.diag != nullptr) << "PassContext incomplete";
  const bool defer_cv = ctx.configs.auto_cv_combine && !HasCoreScope(kernel);
  CopyChecker checker(ctx, defer_cv);
  checker.Visit(kernel.body);
  if (ctx.diag->has_errors()) return ctx.diag->ToStatus();
  ir::Kernel out = UbCastRewriter(ctx).MutateKernel(kernel);
  out = TileClearer(ctx).MutateKernel(out);
  if (defer_cv) return legalize_copies_internal::StageCrossCoreCopies(out, ctx);
  return out;
}

}  // namespace tilejit::passes
