// SPDX-License-Identifier: Apache-2.0
// Kernel and statement half of the Tile IR parser.
//
// The parser unwinds to ParseTileIr with an internal IrParseError at the first error: the
// grammar is small and recursive, and threading a status through every production would
// double its size for no gain. The exception is caught in this file and never crosses the
// module boundary; callers see a Result and a diagnostic.
#include "compiler/ir/ir_parser.h"

#include <algorithm>
#include <cstdint>

#include "compiler/ir/ir_parser_internal.h"

namespace tilejit::ir {

namespace {
constexpr int kMaxDepth = 400;
}  // namespace

IrParser::Guard::Guard(IrParser* p) : p_(p) {
  if (++p_->depth_ > kMaxDepth) p_->Fail(p_->Here(), "nesting too deep");
}

// ---------------------------------------------------------------------------------------------
// Kernel header

BufferNode IrParser::ParseBufferType() {
  BufferNode b;
  Token scope = Peek();
  std::optional<MemScope> s = ParseMemScope(ExpectIdent("a memory scope"));
  if (!s) Fail(LocOf(scope), "unknown memory scope '" + scope.text + "'");
  b.scope = *s;
  Token dt = Peek();
  std::optional<DType> d = ParseDType(ExpectIdent("a dtype"));
  if (!d) Fail(LocOf(dt), "unknown dtype '" + dt.text + "'");
  b.dtype = *d;
  ExpectPunct("[");
  while (!IsPunct("]")) {
    if (!b.shape.empty()) ExpectPunct(",");
    if (Peek().kind == TokKind::kName) {
      b.dim_symbols.resize(b.shape.size());
      b.dim_symbols.push_back(ParseSymbolDim());
      b.shape.push_back(kSymbolicDim);
      continue;
    }
    int64_t extent = ExpectInt("a dimension", false);
    if (extent <= 0) Fail(Here(), "dimensions must be positive");
    b.shape.push_back(extent);
  }
  if (!b.dim_symbols.empty()) b.dim_symbols.resize(b.shape.size());
  ExpectPunct("]");
  if (Peek().kind == TokKind::kIdent) {
    static constexpr std::string_view kRoles[] = {"local", "input", "output", "workspace"};
    Token role = Next();
    bool found = false;
    for (int i = 0; i < 4; ++i) {
      if (role.text == kRoles[i]) {
        b.role = static_cast<BufferRole>(i);
        found = true;
      }
    }
    if (role.text == "compiler_workspace" || role.text == "compiler_scratch") {
      b.role = role.text == "compiler_scratch" ? BufferRole::kLocal : BufferRole::kWorkspace;
      b.compiler_made = true;
      found = true;
    }
    if (!found) Fail(LocOf(role), "unknown buffer role '" + role.text + "'");
  }
  if (AcceptPunct("@")) b.address = ExpectInt("an address", false);
  return b;
}

// A symbolic dim: the first mention of a name defines the kernel symbol (int32), later ones
// refer to it. Which buffers may have such dims is the verifier's business.
Var IrParser::ParseSymbolDim() {
  Token name = Next();
  if (buffers_.contains(name.text)) Fail(LocOf(name), name.text + " is a buffer, not a symbol");
  auto it = vars_.find(name.text);
  if (it != vars_.end()) {
    if (std::find(symbols_.begin(), symbols_.end(), it->second) == symbols_.end()) {
      Fail(LocOf(name), name.text + " is not a symbol");
    }
    return it->second;
  }
  Var v = MakeVar(name.text.substr(1), DType::kInt32, LocOf(name));
  vars_[name.text] = v;
  symbols_.push_back(v);
  return v;
}

std::vector<int> IrParser::ParseIndexList() {
  std::vector<int> out;
  ExpectPunct("[");
  while (!IsPunct("]")) {
    if (!out.empty()) ExpectPunct(",");
    SourceLoc loc = Here();
    int64_t v = ExpectInt("an index", true);
    if (v < INT32_MIN || v > INT32_MAX) Fail(loc, "index out of range");
    out.push_back(static_cast<int>(v));
  }
  ExpectPunct("]");
  return out;
}

Kernel IrParser::ParseKernel() {
  Kernel k;
  k.name = "main";
  while (Peek().kind == TokKind::kNewline) Next();
  k.loc = Here();
  while (IsIdent("param")) {
    Next();
    if (Peek().kind != TokKind::kName) FailExpected("a %name");
    Token name = Next();
    ExpectPunct(":");
    BufferNode node = ParseBufferType();
    node.name = name.text.substr(1);
    node.loc = LocOf(name);
    Buffer b = MakeBuffer(std::move(node));
    DefineBuffer(name, b);
    k.params.push_back(b);
    EndLine();
  }
  if (!IsIdent("out_idx")) FailExpected("'param' or 'out_idx'");
  k.symbols = symbols_;
  Next();
  ExpectPunct("=");
  k.out_idx = ParseIndexList();
  EndLine();
  if (!IsIdent("workspace_idx")) FailExpected("'workspace_idx'");
  Next();
  ExpectPunct("=");
  k.workspace_idx = ParseIndexList();
  EndLine();
  k.body = ParseStmtList();
  if (Peek().kind != TokKind::kEnd) FailExpected("a statement");
  return k;
}

// ---------------------------------------------------------------------------------------------
// Statements

namespace {

Stmt MakeList(std::vector<Stmt> stmts, SourceLoc loc) {
  if (stmts.size() == 1) return stmts[0];
  return Seq(std::move(stmts), loc);
}

}  // namespace

// A `let` binds over the rest of its block. Long runs of lets are common in generated code,
// so they are collected in a loop and nested afterwards, from the innermost out, rather than
// parsed by recursion.
Stmt IrParser::ParseStmtList() {
  Guard guard(this);
  struct PendingLet {
    Var var;
    Expr value;
    SourceLoc loc;
    std::vector<Stmt> before;  // statements of the enclosing list that precede the let
    SourceLoc list_loc;
  };
  std::vector<PendingLet> lets;
  std::vector<Stmt> stmts;
  while (Peek().kind == TokKind::kNewline) Next();
  SourceLoc list_loc = Here();
  while (!IsPunct("}") && Peek().kind != TokKind::kEnd) {
    if (!IsIdent("let")) {
      stmts.push_back(ParseStmt());
      EndLine();
      continue;
    }
    SourceLoc loc = LocOf(Next());
    Var v = ParseVarDef();
    ExpectPunct("=");
    Expr value = ParseExpr();
    EndLine();
    lets.push_back(PendingLet{v, value, loc, std::move(stmts), list_loc});
    stmts.clear();
    list_loc = Here();
  }
  Stmt body = MakeList(std::move(stmts), list_loc);
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
    it->before.push_back(std::make_shared<LetNode>(it->var, it->value, body, it->loc));
    body = MakeList(std::move(it->before), it->list_loc);
  }
  return body;
}

Stmt IrParser::ParseBlock() {
  ExpectPunct("{");
  Stmt body = ParseStmtList();
  ExpectPunct("}");
  return body;
}

Stmt IrParser::ParseStmt() {
  SourceLoc loc = Here();
  if (Peek().kind == TokKind::kName) return ParseStore(loc);
  if (Peek().kind != TokKind::kIdent) FailExpected("a statement");
  std::string word = Peek().text;
  if (word == "launch") return ParseLaunch(loc);
  if (word == "alloc") return ParseAlloc(loc);
  if (word == "for") return ParseFor(loc);
  if (word == "if") return ParseIf(loc);
  if (word == "scope") {
    Next();
    Token core = Peek();
    std::string name = ExpectIdent("'cube' or 'vector'");
    if (name != "cube" && name != "vector") Fail(LocOf(core), "expected 'cube' or 'vector'");
    Stmt body = ParseBlock();
    return std::make_shared<CoreScopeNode>(name == "cube" ? CoreKind::kCube : CoreKind::kVector,
                                           body, loc);
  }
  if (std::optional<TileOpCode> op = ParseTileOp(word)) {
    Next();
    return ParseTileOpStmt(*op, loc);
  }
  if (word == "barrier" || word == "sync_all" || word == "set_flag" || word == "wait_flag" ||
      word == "set_cross_flag" || word == "wait_cross_flag") {
    Next();
    return ParseSync(word, loc);
  }
  Fail(loc, "unknown statement '" + word + "'");
}

Stmt IrParser::ParseLaunch(SourceLoc loc) {
  Next();
  ExpectPunct("(");
  Expr grid = ParseExpr();
  ExpectPunct(",");
  if (!IsIdent("threads")) FailExpected("'threads'");
  Next();
  ExpectPunct("=");
  SourceLoc tloc = Here();
  int64_t threads = ExpectInt("a thread count", false);
  if (threads > 2) Fail(tloc, "threads must be 0, 1 or 2");
  ExpectPunct(")");
  ExpectPunct("(");
  Var cid = ParseVarDef();
  ExpectPunct(",");
  Var vid = ParseVarDef();
  ExpectPunct(")");
  Stmt body = ParseBlock();
  return std::make_shared<KernelNode>(grid, static_cast<int>(threads), cid, vid, body, loc);
}

Stmt IrParser::ParseAlloc(SourceLoc loc) {
  Next();
  if (Peek().kind != TokKind::kName) FailExpected("a %name");
  Token name = Next();
  ExpectPunct(":");
  BufferNode node = ParseBufferType();
  node.name = name.text.substr(1);
  node.loc = LocOf(name);
  Buffer b = MakeBuffer(std::move(node));
  DefineBuffer(name, b);
  return std::make_shared<AllocateNode>(b, loc);
}

Stmt IrParser::ParseFor(SourceLoc loc) {
  Next();
  Var v = ParseVarDef();
  if (!IsIdent("in")) FailExpected("'in'");
  Next();
  Token kind_tok = Peek();
  std::string kind_name = ExpectIdent("a loop kind");
  ForKind kind = ForKind::kSerial;
  if (kind_name == "pipelined") {
    kind = ForKind::kPipelined;
  } else if (kind_name == "parallel") {
    kind = ForKind::kParallel;
  } else if (kind_name != "serial") {
    Fail(LocOf(kind_tok), "unknown loop kind '" + kind_name + "'");
  }
  ExpectPunct("(");
  Expr min = ParseExpr();
  ExpectPunct(",");
  Expr extent = ParseExpr();
  int64_t stages = 0;
  if (AcceptPunct(",")) {
    if (!IsIdent("stages")) FailExpected("'stages'");
    Next();
    ExpectPunct("=");
    SourceLoc sloc = Here();
    stages = ExpectInt("a stage count", false);
    if (stages > 64) Fail(sloc, "too many stages");
  }
  ExpectPunct(")");
  Stmt body = ParseBlock();
  return std::make_shared<ForNode>(v, min, extent, kind, static_cast<int>(stages), body, loc);
}

Stmt IrParser::ParseIf(SourceLoc loc) {
  Next();
  Expr cond = ParseExpr();
  Stmt then_body = ParseBlock();
  Stmt else_body;
  if (IsIdent("else")) {
    Next();
    else_body = ParseBlock();
  }
  return std::make_shared<IfNode>(cond, then_body, else_body, loc);
}

Stmt IrParser::ParseStore(SourceLoc loc) {
  Token name = Next();
  Buffer b = LookupBuffer(name);
  std::vector<Expr> indices;
  ExpectPunct("[");
  while (!IsPunct("]")) {
    if (!indices.empty()) ExpectPunct(",");
    indices.push_back(ParseExpr());
  }
  ExpectPunct("]");
  ExpectPunct("=");
  Expr value = ParseExpr();
  return std::make_shared<StoreNode>(b, std::move(indices), value, loc);
}

Pipe IrParser::ParsePipeName() {
  Token t = Peek();
  std::optional<Pipe> p = target::ParsePipe(ExpectIdent("a pipe name"));
  if (!p) Fail(LocOf(t), "unknown pipe '" + t.text + "'");
  return *p;
}

Stmt IrParser::ParseSync(const std::string& word, SourceLoc loc) {
  ExpectPunct("(");
  if (word == "barrier") {
    Pipe pipe = ParsePipeName();
    ExpectPunct(")");
    return std::make_shared<BarrierNode>(pipe, loc, ParseSyncOrigin());
  }
  if (word == "sync_all") {
    ExpectPunct(")");
    return std::make_shared<BarrierNode>(Pipe::kAll, loc, ParseSyncOrigin(), true);
  }
  if (word == "set_flag" || word == "wait_flag") {
    Pipe src = ParsePipeName();
    ExpectPunct(",");
    Pipe dst = ParsePipeName();
    ExpectPunct(",");
    Expr event = ParseExpr();
    StmtKind kind = word == "set_flag" ? StmtKind::kSetFlag : StmtKind::kWaitFlag;
    ExpectPunct(")");
    return std::make_shared<FlagNode>(kind, src, dst, event, loc, ParseSyncOrigin());
  }
  bool is_set = word == "set_cross_flag";
  Pipe pipe = Pipe::kS;
  if (is_set) {
    pipe = ParsePipeName();
    ExpectPunct(",");
  }
  Expr flag = ParseExpr();
  int64_t mode = 0;
  while (AcceptPunct(",")) {
    Token key = Peek();
    std::string name = ExpectIdent("'mode' or 'pipe'");
    ExpectPunct("=");
    if (name == "pipe" && !is_set) {
      pipe = ParsePipeName();
    } else if (name == "mode") {
      SourceLoc mloc = Here();
      mode = ExpectInt("a mode", false);
      if (mode > 2) Fail(mloc, "cross-flag mode must be 0, 1 or 2");
    } else {
      Fail(LocOf(key), "unknown argument '" + name + "'");
    }
  }
  StmtKind kind = is_set ? StmtKind::kSetCrossFlag : StmtKind::kWaitCrossFlag;
  ExpectPunct(")");
  return std::make_shared<CrossFlagNode>(kind, pipe, flag, static_cast<int>(mode), loc,
                                         ParseSyncOrigin());
}

// The optional `{compiler}` suffix of a sync a pass made.
SyncOrigin IrParser::ParseSyncOrigin() {
  if (!AcceptPunct("{")) return SyncOrigin::kAuthor;
  Token word = Peek();
  if (ExpectIdent("'compiler'") != "compiler") Fail(LocOf(word), "expected 'compiler'");
  ExpectPunct("}");
  return SyncOrigin::kCompiler;
}

Stmt IrParser::ParseTileOpStmt(TileOpCode op, SourceLoc loc) {
  ExpectPunct("(");
  std::vector<Operand> args;
  while (!IsPunct(")")) {
    if (!args.empty()) ExpectPunct(",");
    args.push_back(ParseOperand());
  }
  ExpectPunct(")");
  std::vector<Attr> attrs;
  if (AcceptPunct("{")) {
    while (!IsPunct("}")) {
      if (!attrs.empty()) ExpectPunct(",");
      SourceLoc aloc = Here();
      Attr a = ParseAttr();
      for (const Attr& prev : attrs) {
        if (prev.key == a.key) Fail(aloc, "duplicate attribute '" + a.key + "'");
      }
      attrs.push_back(std::move(a));
    }
    ExpectPunct("}");
  }
  return MakeTileOp(op, std::move(args), std::move(attrs), loc);
}

// ---------------------------------------------------------------------------------------------
// Entry points

Result<Kernel> ParseTileIr(const SourceManager& sources, uint32_t file_id, DiagnosticEngine* diag) {
  IrParser parser(LexTileIr(sources.text(file_id)), file_id);
  try {
    return parser.ParseKernel();
  } catch (const IrParseError& e) {
    diag->Error(e.loc) << e.message;
    return diag->ToStatus();
  }
}

Result<Kernel> ParseTileIr(std::string_view text, SourceManager* sources, DiagnosticEngine* diag,
                           std::string file_name) {
  uint32_t id = sources->AddFile(std::move(file_name), std::string(text));
  return ParseTileIr(*sources, id, diag);
}

Result<Kernel> ParseTileIrString(std::string_view text) {
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  Result<Kernel> k = ParseTileIr(text, &sources, &diag);
  if (!k.ok()) return Status(k.status().code(), diag.RenderAll());
  return k;
}

}  // namespace tilejit::ir
