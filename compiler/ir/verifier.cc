// SPDX-License-Identifier: Apache-2.0
// The verifier is a Visitor that keeps a stack of the vars in scope and the set of buffers
// the kernel owns; findings are collected (not fatal) so one run reports every problem.
#include "compiler/ir/verifier.h"

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "compiler/ir/visitor.h"

namespace tilejit::ir {

namespace {

constexpr AttrSpec kCopyAttrs[] = {{"atomic_add", AttrType::kBool},
                                   {"enable_relu", AttrType::kBool},
                                   {"pad_value", AttrType::kNumber},
                                   {"transpose", AttrType::kBool}};
constexpr AttrSpec kGemmAttrs[] = {{"init", AttrType::kBoolOrExpr},
                                   {"transpose_A", AttrType::kBool},
                                   {"transpose_B", AttrType::kBool}};
constexpr AttrSpec kMmaAttrs[] = {{"init", AttrType::kBoolOrExpr}};
constexpr AttrSpec kReduceAttrs[] = {{"clear", AttrType::kBool}, {"dim", AttrType::kInt}};
constexpr AttrSpec kCastAttrs[] = {{"count", AttrType::kInt}, {"mode", AttrType::kString}};
constexpr AttrSpec kModeAttrs[] = {{"mode", AttrType::kString}};
constexpr AttrSpec kBroadcastAttrs[] = {{"axis", AttrType::kInt}};
constexpr AttrSpec kRawReduceAttrs[] = {{"dst_rep", AttrType::kInt},  {"mask", AttrType::kInt},
                                        {"order", AttrType::kString}, {"repeat", AttrType::kInt},
                                        {"src_blk", AttrType::kInt},  {"src_rep", AttrType::kInt}};
constexpr AttrSpec kGatherBAttrs[] = {
    {"dst_blk", AttrType::kInt}, {"dst_rep", AttrType::kInt}, {"repeat", AttrType::kInt}};
constexpr AttrSpec kPrintfAttrs[] = {{"format", AttrType::kString}};
constexpr AttrSpec kDumpAttrs[] = {
    {"count", AttrType::kInt}, {"desc", AttrType::kInt}, {"shape", AttrType::kString}};
constexpr AttrSpec kSortAttrs[] = {
    {"count", AttrType::kInt}, {"k", AttrType::kInt}, {"ways", AttrType::kInt}};

// Operand kinds per position: 'r' region, 'e' scalar expression, 'x' either.
std::string OperandPattern(const TileOpNode& node) {
  const TileOpCode op = node.op;
  switch (TileOpFamilyOf(op)) {
    case TileOpFamily::kSort:  // dst, the sources, and the scratch once expand_composites ran
      return std::string(1 + SortSources(node) + (SortScratch(node) ? 1 : 0), 'r');
    case TileOpFamily::kCube:
      return "rrr";
    case TileOpFamily::kFill:
    case TileOpFamily::kIndex:
      return "re";
    case TileOpFamily::kBinary:
    case TileOpFamily::kCompare:
      return "rrx";
    case TileOpFamily::kSelect:
      return "rrrx";
    case TileOpFamily::kGatherB:
      return "rrr";
    case TileOpFamily::kDeqScale:
      return "e";
    case TileOpFamily::kDebug:
      return op == TileOpCode::kPrintf ? std::string(node.args.size(), 'e') : "r";
    case TileOpFamily::kAxpy:
      return "rre";
    case TileOpFamily::kGather:
      return "rrre";
    case TileOpFamily::kCopy:
    case TileOpFamily::kUnary:
    case TileOpFamily::kCast:
    case TileOpFamily::kGatherMask:
    case TileOpFamily::kRawReduce:
    case TileOpFamily::kBroadcast:
    case TileOpFamily::kReduce:
    case TileOpFamily::kTranspose:
      return "rr";
  }
  return "rr";
}

bool AttrValueHasType(const AttrValue& v, AttrType t) {
  switch (t) {
    case AttrType::kBool:
      return std::holds_alternative<bool>(v);
    case AttrType::kInt:
      return std::holds_alternative<int64_t>(v);
    case AttrType::kString:
      return std::holds_alternative<std::string>(v);
    case AttrType::kBoolOrExpr:
      return std::holds_alternative<bool>(v) ||
             (std::holds_alternative<Expr>(v) && std::get<Expr>(v) != nullptr);
    case AttrType::kNumber:
      return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v) ||
             (std::holds_alternative<Expr>(v) && std::get<Expr>(v) != nullptr);
  }
  return false;
}

std::string_view AttrTypeName(AttrType t) {
  static constexpr std::string_view kNames[] = {"bool", "int", "string", "bool or expression",
                                                "number"};
  return kNames[static_cast<int>(t)];
}

class Verifier : public Visitor {
 public:
  void Run(const Kernel& k);
  std::vector<std::pair<SourceLoc, std::string>> errors;

 protected:
  void VisitKernelStmt(const KernelNode& op) override;
  void VisitFor(const ForNode& op) override;
  void VisitIf(const IfNode& op) override;
  void VisitLet(const LetNode& op) override;
  void VisitStore(const StoreNode& op) override;
  void VisitTileOp(const TileOpNode& op) override;
  void VisitFlag(const FlagNode& op) override;
  void VisitCrossFlag(const CrossFlagNode& op) override;
  void VisitCoreScope(const CoreScopeNode& op) override;
  void VisitAllocate(const AllocateNode& op) override;
  void VisitSeq(const SeqNode& op) override;
  void VisitVarRef(const VarRefNode& op) override;
  void VisitBinary(const BinaryNode& op) override;
  void VisitUnary(const UnaryNode& op) override;
  void VisitSelect(const SelectNode& op) override;
  void VisitLoad(const LoadNode& op) override;
  void VisitCall(const CallNode& op) override;

 private:
  void Report(SourceLoc loc, std::string message) { errors.emplace_back(loc, std::move(message)); }
  void Need(const Expr& e, SourceLoc loc, std::string_view what);
  void NeedStmt(const Stmt& s, SourceLoc loc, std::string_view what);
  void Define(const Var& v, SourceLoc loc);
  void Undefine(const Var& v);
  void CheckBuffer(const Buffer& b, SourceLoc loc);
  void CheckDecl(const BufferNode& b, SourceLoc loc);
  void CheckSymbols(const Kernel& k);
  void CheckIndices(const Buffer& b, const std::vector<Expr>& idx, SourceLoc loc);
  void CheckRegion(const Region& r, SourceLoc loc);
  void CheckIndexList(const std::vector<int>& idx, size_t n, std::string_view what, SourceLoc loc);

  std::unordered_multiset<const VarNode*> in_scope_;
  std::unordered_set<const BufferNode*> owned_;
};

void Verifier::Need(const Expr& e, SourceLoc loc, std::string_view what) {
  if (e == nullptr) return Report(loc, "missing " + std::string(what));
  Visit(e);
}

void Verifier::NeedStmt(const Stmt& s, SourceLoc loc, std::string_view what) {
  if (s == nullptr) return Report(loc, "missing " + std::string(what));
  Visit(s);
}

void Verifier::Define(const Var& v, SourceLoc loc) {
  if (v == nullptr) return Report(loc, "missing variable definition");
  if (in_scope_.contains(v.get())) Report(loc, "variable '" + v->name + "' re-bound in its scope");
  in_scope_.insert(v.get());
}

void Verifier::Undefine(const Var& v) {
  if (v == nullptr) return;
  auto it = in_scope_.find(v.get());
  if (it != in_scope_.end()) in_scope_.erase(it);
}

void Verifier::CheckIndexList(const std::vector<int>& idx, size_t n, std::string_view what,
                              SourceLoc loc) {
  std::set<int> seen;
  for (int i : idx) {
    if (i < 0 || static_cast<size_t>(i) >= n) {
      Report(loc, std::string(what) + " " + std::to_string(i) + " is not a param index");
    } else if (!seen.insert(i).second) {
      Report(loc, std::string(what) + " lists param " + std::to_string(i) + " twice");
    }
  }
}

void Verifier::Run(const Kernel& k) {
  for (const Buffer& p : k.params) {
    if (p == nullptr) {
      Report(k.loc, "null param");
      continue;
    }
    if (p->scope != MemScope::kGM) Report(p->loc, "param '" + p->name + "' is not in gm");
    CheckDecl(*p, p->loc);
    if (!owned_.insert(p.get()).second) Report(p->loc, "param '" + p->name + "' listed twice");
  }
  CheckIndexList(k.out_idx, k.params.size(), "out_idx", k.loc);
  CheckIndexList(k.workspace_idx, k.params.size(), "workspace_idx", k.loc);
  CheckSymbols(k);
  for (const Var& s : k.symbols) Define(s, k.loc);
  // Allocations live to the end of the kernel, so collect them all before checking uses.
  struct AllocCollector : Visitor {
    Verifier* v;
    void VisitAllocate(const AllocateNode& op) override {
      if (op.buffer == nullptr) return v->Report(op.loc, "allocation of a null buffer");
      if (!v->owned_.insert(op.buffer.get()).second) {
        v->Report(op.loc, "buffer '" + op.buffer->name + "' allocated twice");
      }
    }
  } collector;
  collector.v = this;
  collector.Visit(k.body);
  if (k.body == nullptr) Report(k.loc, "kernel has no body");
  Visit(k.body);
}

// The symbols are exactly the params' symbolic dims, in order of first appearance (the ABI
// order of their launch arguments), and each is the extent of some input's dim, so that a
// launch can bind it from what the caller passes.
void Verifier::CheckSymbols(const Kernel& k) {
  std::vector<const VarNode*> seen;
  std::unordered_set<const VarNode*> bound;
  for (const Buffer& p : k.params) {
    if (p == nullptr || p->dim_symbols.empty()) continue;
    if (p->dim_symbols.size() != p->shape.size()) {
      Report(p->loc, "param '" + p->name + "' has " + std::to_string(p->dim_symbols.size()) +
                         " dim symbols for rank " + std::to_string(p->shape.size()));
      continue;
    }
    for (const Var& v : p->dim_symbols) {
      if (v == nullptr) continue;
      if (std::find(seen.begin(), seen.end(), v.get()) == seen.end()) seen.push_back(v.get());
      if (p->role == BufferRole::kInput) bound.insert(v.get());
    }
  }
  std::vector<const VarNode*> listed;
  for (const Var& v : k.symbols) listed.push_back(v.get());
  if (listed != seen) {
    Report(k.loc, "the kernel's symbols are not the params' symbolic dims in order of appearance");
  }
  for (const Var& v : k.symbols) {
    if (v != nullptr && v->dtype != DType::kInt32) {
      Report(k.loc, "symbol '" + v->name + "' is not int32");
    }
    if (v != nullptr && !bound.contains(v.get())) {
      Report(v->loc.known() ? v->loc : k.loc,
             "symbol '" + v->name + "' is no input's dimension, so no launch can bind it");
    }
  }
}

void Verifier::CheckBuffer(const Buffer& b, SourceLoc loc) {
  if (b == nullptr) return Report(loc, "reference to a null buffer");
  if (!owned_.contains(b.get())) {
    Report(loc, "buffer '" + b->name + "' is neither a param nor allocated in the kernel");
  }
}

void Verifier::CheckIndices(const Buffer& b, const std::vector<Expr>& idx, SourceLoc loc) {
  CheckBuffer(b, loc);
  if (b == nullptr) return;
  if (idx.size() != b->shape.size()) {
    Report(loc, "buffer '" + b->name + "' has rank " + std::to_string(b->shape.size()) +
                    " but is indexed with " + std::to_string(idx.size()) + " indices");
  }
  for (size_t i = 0; i < idx.size(); ++i) {
    Need(idx[i], loc, "index");
    std::optional<int64_t> c = AsConstInt(idx[i]);
    if (c && i < b->shape.size() &&
        (*c < 0 || (b->shape[i] != kSymbolicDim && *c >= b->shape[i]))) {
      Report(loc, "index " + std::to_string(*c) + " out of bounds of dimension " +
                      std::to_string(i) + " of '" + b->name + "'");
    }
  }
}

void Verifier::CheckRegion(const Region& r, SourceLoc loc) {
  SourceLoc at = r.loc.known() ? r.loc : loc;
  CheckBuffer(r.buffer, at);
  if (r.buffer == nullptr) return;
  const std::vector<int64_t>& shape = r.buffer->shape;
  if (r.ranges.size() != shape.size()) {
    Report(at, "region of '" + r.buffer->name + "' has rank " + std::to_string(r.ranges.size()) +
                   ", buffer has rank " + std::to_string(shape.size()));
  }
  for (size_t i = 0; i < r.ranges.size(); ++i) {
    const Range& range = r.ranges[i];
    Need(range.min, at, "region min");
    if (range.extent <= 0) Report(at, "region extent must be positive");
    std::optional<int64_t> min = AsConstInt(range.min);
    // A GM region may run past the tensor's end (a tail: copies clip it); its start may not.
    const bool tail_ok = r.buffer->scope == MemScope::kGM;
    const bool symbolic = i < shape.size() && shape[i] == kSymbolicDim;  // checked at run time
    if (min && i < shape.size() &&
        (*min < 0 ||
         (!symbolic && (tail_ok ? *min >= shape[i] : *min + range.extent > shape[i])))) {
      Report(at, "region [" + std::to_string(*min) + ", " + std::to_string(*min + range.extent) +
                     ") out of bounds of dimension " + std::to_string(i) + " of '" +
                     r.buffer->name + "' (" + std::to_string(shape[i]) + ")");
    }
  }
}

void Verifier::VisitSeq(const SeqNode& op) {
  for (const Stmt& s : op.stmts) NeedStmt(s, op.loc, "statement in sequence");
}

void Verifier::VisitKernelStmt(const KernelNode& op) {
  Need(op.grid, op.loc, "launch grid");
  if (op.threads < 0 || op.threads > 2) Report(op.loc, "launch threads must be 0, 1 or 2");
  if (op.cid == nullptr || op.vid == nullptr) Report(op.loc, "launch needs cid and vid vars");
  Define(op.cid, op.loc);
  Define(op.vid, op.loc);
  NeedStmt(op.body, op.loc, "launch body");
  Undefine(op.vid);
  Undefine(op.cid);
}

void Verifier::VisitAllocate(const AllocateNode& op) {
  if (op.buffer != nullptr) CheckDecl(*op.buffer, op.loc);  // null: reported by the collector
}

void Verifier::CheckDecl(const BufferNode& b, SourceLoc loc) {
  for (size_t i = 0; i < b.shape.size(); ++i) {
    const bool symbolic = b.DimSymbol(i) != nullptr;
    if (symbolic != (b.shape[i] == kSymbolicDim)) {
      Report(loc, "buffer '" + b.name + "' dim " + std::to_string(i) +
                      " is symbolic in one of shape and dim_symbols only");
    } else if (!symbolic && b.shape[i] <= 0) {
      Report(loc, "buffer '" + b.name + "' has a non-positive dimension");
    }
  }
  if (b.dim_symbols.size() > b.shape.size()) {
    Report(loc, "buffer '" + b.name + "' has more dim symbols than dims");
  }
  if (b.has_symbolic_dims() && (b.scope != MemScope::kGM || b.compiler_made)) {
    Report(loc, "buffer '" + b.name + "' has symbolic dims but is not a declared GM tensor");
  }
  if (b.address.has_value() && *b.address < 0) {
    Report(loc, "buffer '" + b.name + "' has a negative address");
  }
}

void Verifier::VisitFor(const ForNode& op) {
  Need(op.min, op.loc, "loop min");
  Need(op.extent, op.loc, "loop extent");
  if (op.num_stages < 0) Report(op.loc, "negative num_stages");
  Define(op.var, op.loc);
  NeedStmt(op.body, op.loc, "loop body");
  Undefine(op.var);
}

void Verifier::VisitIf(const IfNode& op) {
  Need(op.cond, op.loc, "if condition");
  NeedStmt(op.then_body, op.loc, "then body");
  Visit(op.else_body);
}

void Verifier::VisitLet(const LetNode& op) {
  Need(op.value, op.loc, "let value");
  Define(op.var, op.loc);
  Visit(op.body);
  Undefine(op.var);
}

void Verifier::VisitStore(const StoreNode& op) {
  CheckIndices(op.buffer, op.indices, op.loc);
  Need(op.value, op.loc, "stored value");
}

void Verifier::VisitTileOp(const TileOpNode& op) {
  std::string name(TileOpName(op.op));
  const std::string pattern = OperandPattern(op);
  if (op.op == TileOpCode::kMergeSort && (SortSources(op) < 2 || SortSources(op) > 4)) {
    Report(op.loc, "merge_sort merges 2 to 4 lists, not " + std::to_string(SortSources(op)));
  }
  if (op.args.size() != pattern.size()) {
    Report(op.loc, name + " takes " + std::to_string(pattern.size()) + " operands, got " +
                       std::to_string(op.args.size()));
  }
  for (size_t i = 0; i < op.args.size(); ++i) {
    bool is_region = std::holds_alternative<Region>(op.args[i]);
    char want = i < pattern.size() ? pattern[i] : 'x';
    if (want == 'r' && !is_region) {
      Report(op.loc, name + " operand " + std::to_string(i) + " must be a buffer region");
    } else if (want == 'e' && is_region) {
      Report(op.loc, name + " operand " + std::to_string(i) + " must be a scalar");
    }
    if (is_region) {
      CheckRegion(std::get<Region>(op.args[i]), op.loc);
    } else {
      Need(std::get<Expr>(op.args[i]), op.loc, "scalar operand");
    }
  }
  std::span<const AttrSpec> known = KnownTileOpAttrs(op.op);
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    const Attr& a = op.attrs[i];
    if (i > 0 && op.attrs[i - 1].key >= a.key) {
      Report(op.loc, "attributes of " + name + " not sorted and unique at '" + a.key + "'");
    }
    auto spec =
        std::find_if(known.begin(), known.end(), [&](const AttrSpec& s) { return s.key == a.key; });
    if (spec == known.end()) {
      Report(op.loc, "unknown attribute '" + a.key + "' of " + name);
    } else if (!AttrValueHasType(a.value, spec->type)) {
      Report(op.loc, "attribute '" + a.key + "' of " + name + " must be a " +
                         std::string(AttrTypeName(spec->type)));
    }
    VisitAttr(a);
  }
}

void Verifier::VisitFlag(const FlagNode& op) {
  if (op.src == Pipe::kAll || op.dst == Pipe::kAll) {
    Report(op.loc, "flags need real pipes, not 'all'");
  } else if (op.src == op.dst) {
    Report(op.loc, "flag source and destination pipe are both '" +
                       std::string(target::PipeName(op.src)) + "'");
  }
  Need(op.event, op.loc, "event id");
}

void Verifier::VisitCrossFlag(const CrossFlagNode& op) {
  if (op.pipe == Pipe::kAll) Report(op.loc, "cross flags need a real pipe, not 'all'");
  if (op.mode < 0 || op.mode > 2) Report(op.loc, "cross-flag mode must be 0, 1 or 2");
  Need(op.flag, op.loc, "cross-flag id");
}

void Verifier::VisitCoreScope(const CoreScopeNode& op) { NeedStmt(op.body, op.loc, "scope body"); }

void Verifier::VisitVarRef(const VarRefNode& op) {
  if (op.var == nullptr) return Report(op.loc, "reference to a null variable");
  if (!in_scope_.contains(op.var.get())) {
    Report(op.loc, "variable '" + op.var->name + "' used outside its scope");
  }
}

void Verifier::VisitBinary(const BinaryNode& op) {
  Need(op.a, op.loc, "operand");
  Need(op.b, op.loc, "operand");
}

void Verifier::VisitUnary(const UnaryNode& op) { Need(op.a, op.loc, "operand"); }

void Verifier::VisitSelect(const SelectNode& op) {
  Need(op.cond, op.loc, "select condition");
  Need(op.t, op.loc, "select value");
  Need(op.f, op.loc, "select value");
}

void Verifier::VisitLoad(const LoadNode& op) { CheckIndices(op.buffer, op.indices, op.loc); }

void Verifier::VisitCall(const CallNode& op) {
  if (!IsKnownScalarCall(op.op)) Report(op.loc, "unknown scalar intrinsic '" + op.op + "'");
  for (const Expr& a : op.args) Need(a, op.loc, "call argument");
}

}  // namespace

std::span<const AttrSpec> KnownTileOpAttrs(TileOpCode op) {
  switch (TileOpFamilyOf(op)) {
    case TileOpFamily::kCopy:
      return kCopyAttrs;
    case TileOpFamily::kCube:
      return op == TileOpCode::kGemmV0 ? std::span<const AttrSpec>(kGemmAttrs) : kMmaAttrs;
    case TileOpFamily::kReduce:
      return kReduceAttrs;
    case TileOpFamily::kCast:
      return kCastAttrs;
    case TileOpFamily::kCompare:
    case TileOpFamily::kSelect:
    case TileOpFamily::kGatherMask:
      return kModeAttrs;
    case TileOpFamily::kBroadcast:
      return kBroadcastAttrs;
    case TileOpFamily::kSort:
      return kSortAttrs;
    case TileOpFamily::kRawReduce:
      return kRawReduceAttrs;
    case TileOpFamily::kGatherB:
      return kGatherBAttrs;
    case TileOpFamily::kDebug:
      return op == TileOpCode::kPrintf ? std::span<const AttrSpec>(kPrintfAttrs) : kDumpAttrs;
    case TileOpFamily::kFill:
    case TileOpFamily::kBinary:
    case TileOpFamily::kUnary:
    case TileOpFamily::kAxpy:
    case TileOpFamily::kTranspose:
    case TileOpFamily::kGather:
    case TileOpFamily::kIndex:
    case TileOpFamily::kDeqScale:
      return {};
  }
  return {};
}

bool IsKnownScalarCall(std::string_view op) {
  static constexpr std::array<std::string_view, 6> kCalls = {"abs", "cast",  "exp",
                                                             "log", "rsqrt", "sqrt"};
  return std::find(kCalls.begin(), kCalls.end(), op) != kCalls.end();
}

Status Verify(const Kernel& kernel, DiagnosticEngine* diag) {
  Verifier v;
  v.Run(kernel);
  if (v.errors.empty()) return Status::Ok();
  if (diag != nullptr) {
    for (const auto& [loc, message] : v.errors) diag->Error(loc) << message;
  }
  std::string first = v.errors.front().second;
  if (v.errors.size() > 1) {
    first += " (and " + std::to_string(v.errors.size() - 1) + " more IR verifier errors)";
  }
  return InvalidArgument("IR verifier: " + first);
}

}  // namespace tilejit::ir
