// SPDX-License-Identifier: Apache-2.0
// Internal to the Tile IR parser (ir_parser.cc: kernel and statements; ir_parser_expr.cc:
// expressions, operands and attributes). Not part of the IR's public API.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/source_loc.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/ir_lexer.h"

namespace tilejit::ir {

// Thrown inside the parser only, to unwind to ParseTileIr at the first error; it never
// leaves ir_parser.cc (see there).
struct IrParseError {
  SourceLoc loc;
  std::string message;
};

class IrParser {
 public:
  IrParser(std::vector<Token> tokens, uint32_t file_id)
      : toks_(std::move(tokens)), file_id_(file_id) {}

  Kernel ParseKernel();

 private:
  // Statements (ir_parser.cc)
  Stmt ParseStmtList();  // until '}' or the end; a single statement stays unwrapped
  Stmt ParseStmt();
  Stmt ParseBlock();
  Stmt ParseLaunch(SourceLoc loc);
  Stmt ParseAlloc(SourceLoc loc);
  Stmt ParseFor(SourceLoc loc);
  Stmt ParseIf(SourceLoc loc);
  Stmt ParseStore(SourceLoc loc);
  Stmt ParseSync(const std::string& word, SourceLoc loc);
  SyncOrigin ParseSyncOrigin();
  Stmt ParseTileOpStmt(TileOpCode op, SourceLoc loc);
  BufferNode ParseBufferType();
  Var ParseVarDef();
  Var ParseSymbolDim();
  std::vector<int> ParseIndexList();
  Pipe ParsePipeName();
  void EndLine();

  // Expressions and operands (ir_parser_expr.cc)
  Expr ParseExpr();
  Expr ParseBinaryLevel(int level);
  Expr ParseUnary();
  Expr ParsePrimary();
  Expr ParseSignedLiteral(std::optional<DType> dtype);
  Expr ParseIdentExpr();
  std::vector<Expr> ParseArgs();
  Operand ParseOperand();
  bool LooksLikeRegion() const;
  Region ParseRegion(const Buffer& b, SourceLoc loc);
  Attr ParseAttr();
  bool LiteralAttrAhead() const;
  AttrValue ParseLiteralAttr();

  // Tokens and names
  const Token& Peek(size_t ahead = 0) const;
  Token Next();
  bool IsPunct(std::string_view p, size_t ahead = 0) const;
  bool IsIdent(std::string_view word, size_t ahead = 0) const;
  bool AcceptPunct(std::string_view p);
  void ExpectPunct(std::string_view p);
  std::string ExpectIdent(std::string_view what);
  int64_t ExpectInt(std::string_view what, bool allow_sign);
  SourceLoc LocOf(const Token& t) const { return SourceLoc{file_id_, t.line, t.column}; }
  SourceLoc Here() const { return LocOf(Peek()); }
  [[noreturn]] void Fail(SourceLoc loc, std::string message) const;
  [[noreturn]] void FailExpected(std::string_view what) const;
  Buffer LookupBuffer(const Token& t) const;
  Var LookupVar(const Token& t) const;
  void DefineBuffer(const Token& t, const Buffer& b);

  // Bounds the recursion depth on hostile input (deep nesting fails, it does not overflow).
  class Guard {
   public:
    explicit Guard(IrParser* p);
    ~Guard() { --p_->depth_; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    IrParser* p_;
  };

  std::vector<Token> toks_;
  size_t pos_ = 0;
  uint32_t file_id_;
  int depth_ = 0;
  std::unordered_map<std::string, Buffer> buffers_;
  std::unordered_map<std::string, Var> vars_;
  std::vector<Var> symbols_;  // in order of definition
};

}  // namespace tilejit::ir
