// SPDX-License-Identifier: Apache-2.0
// Internals of lower_parallel shared by its two files: lower_parallel.cc (nest recognition,
// temporaries, op emission, the rewrite) and lower_parallel_expr.cc (one store's expression
// tree -> tile ops). Not part of the pass API. Single-threaded, like the pass.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes::parallel {

// How an operand's region relates to the nest: the whole [R, C] (or [N]) tile, one value per
// row ([R] / [R, 1]) or one per column ([1, C]).
enum class Cls : uint8_t { kFull, kRow, kCol };

struct Nest {
  std::vector<ir::Var> vars;  // outer (rows) to inner (columns); 1 or 2
  std::vector<int64_t> mins, extents;

  // Index of `v` among the nest vars, or -1.
  int VarIndex(const ir::VarNode* v) const;
  bool UsesVar(const ir::Expr& e) const;
  // The canonical temporary shape of a class: full = extents, row = [R], col = [1, C].
  std::vector<int64_t> Shape(Cls c) const;
};

// A lowered (sub)expression: a scalar operand or a UB region of some class.
struct Value {
  bool is_scalar = false;
  ir::Expr scalar;
  ir::Region region;
  Cls cls = Cls::kFull;
  ir::DType dtype = ir::DType::kFloat32;
  bool temp = false;  // region is a pass-owned temporary (may be overwritten in place)
};

// UB temporaries shared by every nest of a kernel: one Allocate per distinct buffer, reused
// by later stores once the store that took it is done.
class TempPool {
 public:
  explicit TempPool(PassContext& ctx) : ctx_(ctx) {}
  ir::Buffer Acquire(const std::vector<int64_t>& shape, ir::DType dtype, SourceLoc loc);
  void ReleaseAll();
  std::vector<ir::Stmt> TakeAllocs();

 private:
  struct Entry {
    ir::Buffer buffer;
    bool in_use = false;
  };
  PassContext& ctx_;
  std::vector<Entry> entries_;
  std::vector<ir::Stmt> allocs_;
};

// Collects the generated statements of one nest. With `barriers` (Expert mode) it puts a
// barrier(v) before an op that reads a buffer written, or writes a buffer read or written,
// by an op since the previous barrier; barrier(all) instead when a staging copy with GM is
// among them, and at the end of a nest that has an unbarriered one.
class OpSink {
 public:
  OpSink(PassContext& ctx, bool barriers) : ctx_(ctx), barriers_(barriers) {}
  void Emit(ir::TileOpCode op, std::vector<ir::Operand> args, std::vector<ir::Attr> attrs,
            SourceLoc loc);
  std::vector<ir::Stmt> Take();

 private:
  void Barrier(ir::Pipe pipe, SourceLoc loc);

  PassContext& ctx_;
  bool barriers_;
  std::vector<ir::Stmt> stmts_;
  std::set<const ir::BufferNode*> read_, written_;  // membership only, never iterated
  bool mte_since_barrier_ = false;                  // a GM copy since the last barrier
};

// Lowers the stores of one nest, in order. Each method returns false (or nullopt) after a
// diagnostic.
class StoreLowerer {
 public:
  StoreLowerer(const Nest& nest, TempPool& temps, OpSink& sink, PassContext& ctx)
      : nest_(nest), temps_(temps), sink_(sink), ctx_(ctx) {}
  bool Lower(const ir::StoreNode& store);

 private:
  // A store to GM: the value in a UB tile, then a copy out (upstream's automatic copy).
  bool LowerToGm(const ir::StoreNode& store, const ir::Region& dest);
  std::optional<ir::Region> Access(const ir::Buffer& b, const std::vector<ir::Expr>& indices,
                                   SourceLoc loc, Cls* cls);
  std::optional<Value> LowerExpr(const ir::Expr& e, const ir::Region* into);
  std::optional<Value> LowerScalar(const ir::Expr& e);
  std::optional<Value> LowerLoad(const ir::LoadNode& load);
  std::optional<Value> LowerBinary(const ir::BinaryNode& b, const ir::Region* into);
  std::optional<Value> LowerUnary(const ir::UnaryNode& u, const ir::Region* into);
  std::optional<Value> LowerCall(const ir::CallNode& c, const ir::Region* into);
  std::optional<Value> LowerSelect(const ir::SelectNode& s, const ir::Region* into);
  std::optional<ir::Region> EmitMask(Value x, Value y, std::string mode);
  std::optional<Value> Combine(ir::BinaryOp op, Value a, Value b, const ir::Region* into);
  bool SameDtype(const Value& a, const Value& b);
  Value Slot(Cls cls, ir::DType dtype, const ir::Region* into, const Value* a, const Value* b);
  Value ToFull(const Value& v);
  Value Staged(const ir::Region& r, Cls cls, ir::DType dtype);
  void Emit(ir::TileOpCode op, std::vector<ir::Operand> args, std::vector<ir::Attr> attrs = {});
  bool Finish(const ir::StoreNode& store, const ir::Region& dest, const Value& v);
  ir::Expr MinusOne(ir::DType dtype) const;

  const Nest& nest_;
  TempPool& temps_;
  OpSink& sink_;
  PassContext& ctx_;
  SourceLoc loc_;  // the store being lowered: every generated op keeps its loc
};

// Structural equality of expressions (vars and buffers by identity).
bool ExprEqual(const ir::Expr& a, const ir::Expr& b);
bool RegionEqual(const ir::Region& a, const ir::Region& b);
std::vector<int64_t> Trim(const std::vector<int64_t>& shape);  // drop leading unit dims
// The element-wise tile op of a binary operator (add sub mul div min max), or nullopt.
std::optional<ir::TileOpCode> BinaryTileOp(ir::BinaryOp op);

}  // namespace tilejit::passes::parallel
