// SPDX-License-Identifier: Apache-2.0
// Statement half of the canonical printer. One walk produces both the text and the statement
// id order, so the two cannot drift apart: StmtIdTable runs the same walk and keeps the
// statements instead of the text.
#include "compiler/ir/printer.h"

#include "compiler/ir/printer_internal.h"

namespace tilejit::ir {

namespace {

class StmtPrinter {
 public:
  StmtPrinter(const PrintOptions& options, std::vector<Stmt>* ids)
      : options_(options), ids_(ids), exprs_(&names_, &out_) {}

  std::string PrintKernel(const Kernel& k);
  std::string PrintStmtOnly(const Stmt& s) {
    PrintStmt(s, 0);
    return std::move(out_);
  }
  std::string PrintExprOnly(const Expr& e) {
    exprs_.Print(e);
    return std::move(out_);
  }

 private:
  void PrintStmt(const Stmt& s, int indent);
  void PrintBlock(const Stmt& body, int indent);  // "{\n" ... "}" (no newline after)
  // Starts a statement line: the id prefix (if enabled) and the indentation.
  void BeginLine(const Stmt& s, int indent);
  void BeginPlainLine(int indent);

  void PrintBufferType(const BufferNode& b, bool print_role);
  void PrintVarDef(const Var& v);
  void PrintRegion(const Region& r);
  void PrintOperand(const Operand& o);
  void PrintAttrValue(const AttrValue& v);
  void PrintTileOp(const TileOpNode& op);
  void PrintLine(const Stmt& s, int indent);  // one non-Seq, non-Let statement
  void PrintLaunch(const KernelNode& k, int indent);
  void PrintAlloc(const AllocateNode& a);
  void PrintFor(const ForNode& f, int indent);
  void PrintStore(const StoreNode& st);
  void PrintSync(const Stmt& s);
  void PrintSyncCall(const Stmt& s);
  void PrintIndexList(const std::vector<int>& idx);

  void Out(std::string_view s) { out_ += s; }
  void E(const Expr& e) { exprs_.Print(e); }

  const PrintOptions& options_;
  std::vector<Stmt>* ids_;
  int next_id_ = 0;
  IrNamer names_;
  std::string out_;
  ExprPrinter exprs_;
};

constexpr int kIdWidth = 6;

// A dimension printed as ":" (the parser builds exactly this range back).
bool IsFullRange(const Range& r, int64_t dim) {
  return r.min != nullptr && r.min->dtype == DType::kInt32 && AsConstInt(r.min) == 0 &&
         r.extent == dim;
}

void StmtPrinter::BeginLine(const Stmt& s, int indent) {
  int id = next_id_++;
  if (ids_ != nullptr) ids_->push_back(s);
  if (options_.show_stmt_ids) {
    std::string tag = "#" + std::to_string(id);
    tag.resize(std::max<size_t>(tag.size() + 1, kIdWidth), ' ');
    out_ += tag;
  }
  out_.append(indent * 2, ' ');
}

void StmtPrinter::BeginPlainLine(int indent) {
  if (options_.show_stmt_ids) out_.append(kIdWidth, ' ');
  out_.append(indent * 2, ' ');
}

void StmtPrinter::PrintIndexList(const std::vector<int>& idx) {
  Out("[");
  for (size_t i = 0; i < idx.size(); ++i) {
    if (i > 0) Out(", ");
    Out(std::to_string(idx[i]));
  }
  Out("]");
}

std::string StmtPrinter::PrintKernel(const Kernel& k) {
  for (const Buffer& p : k.params) {
    if (p == nullptr) {
      Out("param <null>\n");
      continue;
    }
    names_.NameParam(p);
    Out("param ");
    Out(names_.BufferName(p));
    Out(": ");
    PrintBufferType(*p, true);
    Out("\n");
  }
  Out("out_idx = ");
  PrintIndexList(k.out_idx);
  Out("\nworkspace_idx = ");
  PrintIndexList(k.workspace_idx);
  Out("\n");
  if (k.body != nullptr) PrintStmt(k.body, 0);
  return std::move(out_);
}

void StmtPrinter::PrintBufferType(const BufferNode& b, bool print_role) {
  Out(MemScopeName(b.scope));
  Out(" ");
  Out(DTypeName(b.dtype));
  Out("[");
  for (size_t i = 0; i < b.shape.size(); ++i) {
    if (i > 0) Out(", ");
    if (const Var& sym = b.DimSymbol(i)) {
      names_.NameSymbol(sym);
      Out(names_.VarName(sym));
    } else {
      Out(std::to_string(b.shape[i]));
    }
  }
  Out("]");
  if (print_role && (b.role != BufferRole::kLocal || b.compiler_made)) {
    static constexpr std::string_view kRoles[] = {"local", "input", "output", "workspace"};
    Out(" ");
    if (b.compiler_made) {
      Out(b.role == BufferRole::kWorkspace ? "compiler_workspace" : "compiler_scratch");
    } else {
      Out(kRoles[static_cast<int>(b.role)]);
    }
  }
  if (b.address.has_value()) Out(" @" + std::to_string(*b.address));
}

void StmtPrinter::PrintVarDef(const Var& v) {
  if (v == nullptr) return Out("<null>");
  Out(names_.VarName(v));
  if (v->dtype != DType::kInt32) {
    Out(": ");
    Out(DTypeName(v->dtype));
  }
}

void StmtPrinter::PrintBlock(const Stmt& body, int indent) {
  Out("{\n");
  if (body != nullptr) PrintStmt(body, indent + 1);
  BeginPlainLine(indent);
  Out("}");
}

void StmtPrinter::PrintRegion(const Region& r) {
  if (r.buffer == nullptr) return Out("<null>");
  Out(names_.BufferName(r.buffer));
  const std::vector<int64_t>& shape = r.buffer->shape;
  bool whole = r.ranges.size() == shape.size();
  for (size_t i = 0; whole && i < r.ranges.size(); ++i) {
    whole = IsFullRange(r.ranges[i], shape[i]);
  }
  if (whole) return;
  Out("[");
  for (size_t i = 0; i < r.ranges.size(); ++i) {
    if (i > 0) Out(", ");
    const Range& range = r.ranges[i];
    if (i < shape.size() && IsFullRange(range, shape[i])) {
      Out(":");
      continue;
    }
    E(range.min);
    Out(":+" + std::to_string(range.extent));
  }
  Out("]");
}

void StmtPrinter::PrintOperand(const Operand& o) {
  if (const auto* r = std::get_if<Region>(&o)) return PrintRegion(*r);
  E(std::get<Expr>(o));
}

void StmtPrinter::PrintAttrValue(const AttrValue& v) {
  if (const auto* b = std::get_if<bool>(&v)) return Out(*b ? "true" : "false");
  if (const auto* i = std::get_if<int64_t>(&v)) return Out(std::to_string(*i));
  if (const auto* d = std::get_if<double>(&v)) return Out(FormatDouble(*d));
  if (const auto* s = std::get_if<std::string>(&v)) {
    Out("\"");
    for (char c : *s) {
      unsigned char u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += c;
      } else if (u < 0x20 || u >= 0x7f) {
        static constexpr char kHex[] = "0123456789abcdef";
        out_ += "\\x";
        out_ += kHex[u >> 4];
        out_ += kHex[u & 15];
      } else {
        out_ += c;
      }
    }
    return Out("\"");
  }
  const Expr& e = std::get<Expr>(v);
  // A literal expression is wrapped so that it does not read back as an int/double/bool attr.
  bool literal = TryAs<IntImmNode>(e) != nullptr || TryAs<FloatImmNode>(e) != nullptr;
  if (literal) Out("expr(");
  E(e);
  if (literal) Out(")");
}

void StmtPrinter::PrintTileOp(const TileOpNode& op) {
  Out(TileOpName(op.op));
  Out("(");
  for (size_t i = 0; i < op.args.size(); ++i) {
    if (i > 0) Out(", ");
    PrintOperand(op.args[i]);
  }
  Out(")");
  if (op.attrs.empty()) return;
  Out(" {");
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    if (i > 0) Out(", ");
    Out(op.attrs[i].key);
    Out("=");
    PrintAttrValue(op.attrs[i].value);
  }
  Out("}");
}

void StmtPrinter::PrintStmt(const Stmt& s, int indent) {
  if (s == nullptr) {
    BeginPlainLine(indent);
    return Out("<null>\n");
  }
  if (const auto* seq = TryAs<SeqNode>(s)) {
    for (const Stmt& child : seq->stmts) PrintStmt(child, indent);
    return;
  }
  BeginLine(s, indent);
  if (const auto* let = TryAs<LetNode>(s)) {
    // Flat: the body follows at the same indentation (it is the rest of the block).
    Out("let ");
    PrintVarDef(let->var);
    Out(" = ");
    E(let->value);
    Out("\n");
    if (let->body != nullptr) PrintStmt(let->body, indent);
    return;
  }
  PrintLine(s, indent);
  Out("\n");
}

void StmtPrinter::PrintLine(const Stmt& s, int indent) {
  switch (s->kind) {
    case StmtKind::kKernel:
      return PrintLaunch(As<KernelNode>(s), indent);
    case StmtKind::kAllocate:
      return PrintAlloc(As<AllocateNode>(s));
    case StmtKind::kFor:
      return PrintFor(As<ForNode>(s), indent);
    case StmtKind::kIf: {
      const auto& i = As<IfNode>(s);
      Out("if ");
      E(i.cond);
      Out(" ");
      PrintBlock(i.then_body, indent);
      if (i.else_body == nullptr) return;
      Out(" else ");
      return PrintBlock(i.else_body, indent);
    }
    case StmtKind::kStore:
      return PrintStore(As<StoreNode>(s));
    case StmtKind::kTileOp:
      return PrintTileOp(As<TileOpNode>(s));
    case StmtKind::kCoreScope: {
      const auto& c = As<CoreScopeNode>(s);
      Out(c.core == CoreKind::kCube ? "scope cube " : "scope vector ");
      return PrintBlock(c.body, indent);
    }
    case StmtKind::kBarrier:
    case StmtKind::kSetFlag:
    case StmtKind::kWaitFlag:
    case StmtKind::kSetCrossFlag:
    case StmtKind::kWaitCrossFlag:
      return PrintSync(s);
    case StmtKind::kSeq:
    case StmtKind::kLet:
      return;  // handled by PrintStmt
  }
}

void StmtPrinter::PrintLaunch(const KernelNode& k, int indent) {
  names_.NameKernelVars(k.cid, k.vid);
  Out("launch(");
  E(k.grid);
  Out(", threads=" + std::to_string(k.threads) + ") (");
  PrintVarDef(k.cid);
  Out(", ");
  PrintVarDef(k.vid);
  Out(") ");
  PrintBlock(k.body, indent);
}

void StmtPrinter::PrintAlloc(const AllocateNode& a) {
  Out("alloc ");
  if (a.buffer == nullptr) return Out("<null>");
  Out(names_.BufferName(a.buffer));
  Out(": ");
  PrintBufferType(*a.buffer, true);
}

void StmtPrinter::PrintFor(const ForNode& f, int indent) {
  Out("for ");
  PrintVarDef(f.var);
  Out(" in ");
  Out(ForKindName(f.for_kind));
  Out("(");
  E(f.min);
  Out(", ");
  E(f.extent);
  if (f.num_stages != 0) Out(", stages=" + std::to_string(f.num_stages));
  Out(") ");
  PrintBlock(f.body, indent);
}

void StmtPrinter::PrintStore(const StoreNode& st) {
  Out(st.buffer == nullptr ? "<null>" : names_.BufferName(st.buffer));
  Out("[");
  for (size_t i = 0; i < st.indices.size(); ++i) {
    if (i > 0) Out(", ");
    E(st.indices[i]);
  }
  Out("] = ");
  E(st.value);
}

void StmtPrinter::PrintSync(const Stmt& s) {
  PrintSyncCall(s);
  if (SyncOriginOf(*s) == SyncOrigin::kCompiler) Out(" {compiler}");
}

void StmtPrinter::PrintSyncCall(const Stmt& s) {
  if (const auto* b = TryAs<BarrierNode>(s)) {
    if (b->grid) return Out("sync_all()");
    Out("barrier(");
    Out(target::PipeName(b->pipe));
    return Out(")");
  }
  if (const auto* f = TryAs<FlagNode>(s)) {
    Out(s->kind == StmtKind::kSetFlag ? "set_flag(" : "wait_flag(");
    Out(target::PipeName(f->src));
    Out(", ");
    Out(target::PipeName(f->dst));
    Out(", ");
    E(f->event);
    return Out(")");
  }
  const auto& c = As<CrossFlagNode>(s);
  if (s->kind == StmtKind::kSetCrossFlag) {
    Out("set_cross_flag(");
    Out(target::PipeName(c.pipe));
    Out(", ");
    E(c.flag);
    return Out(", mode=" + std::to_string(c.mode) + ")");
  }
  Out("wait_cross_flag(");
  E(c.flag);
  if (c.pipe != Pipe::kS) Out(", pipe=" + std::string(target::PipeName(c.pipe)));
  if (c.mode != 0) Out(", mode=" + std::to_string(c.mode));
  Out(")");
}

}  // namespace

std::string PrintKernel(const Kernel& kernel, const PrintOptions& options) {
  return StmtPrinter(options, nullptr).PrintKernel(kernel);
}

std::string PrintStmt(const Stmt& stmt) {
  PrintOptions options;
  return StmtPrinter(options, nullptr).PrintStmtOnly(stmt);
}

std::string PrintExpr(const Expr& expr) {
  PrintOptions options;
  return StmtPrinter(options, nullptr).PrintExprOnly(expr);
}

std::vector<Stmt> StmtIdTable(const Kernel& kernel) {
  std::vector<Stmt> ids;
  PrintOptions options;
  StmtPrinter(options, &ids).PrintKernel(kernel);
  return ids;
}

}  // namespace tilejit::ir
