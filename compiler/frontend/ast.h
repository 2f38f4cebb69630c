// SPDX-License-Identifier: Apache-2.0
// The Python syntax tree the frontend parses a kernel file into: the statement and expression
// subset TileLang kernels use (reference/tl_language.md section 6), plus decorators and nested
// defs. The shape follows CPython's `ast` module so that readers who know it find their way.
//
// Ownership: a Module owns its whole tree through unique_ptrs. Nodes are not copied; passes
// over the tree (host evaluator, tracer) read it through const references.
//
// Whole-file acceptance: a top-level statement the parser cannot handle (a class, a
// comprehension, a construct outside the subset) does not fail the parse. It becomes an
// Unsupported statement that records its span, the names it binds (so that the entry can be
// told "name X is bound by an unsupported statement at L:C") and the first error; the error
// is reported only if the entry actually needs that statement.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/source_loc.h"

namespace tilejit::frontend {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

// ---------------------------------------------------------------------------------------------
// Expressions

enum class ExprKind : uint8_t {
  kName,       // id
  kConstant,   // int / float / string / bool / None
  kBinOp,      // left op right
  kUnaryOp,    // op operand
  kBoolOp,     // values joined by and/or
  kCompare,    // left op0 c0 op1 c1 ... (chained)
  kCall,       // func(args, keywords)
  kAttribute,  // value.attr
  kSubscript,  // value[index]; index is a Tuple for a[i, j]
  kSlice,      // lower:upper[:step] (only inside a Subscript)
  kTuple,
  kList,
  kDict,
  kIfExp,           // body if test else orelse
  kStarred,         // *value (call arguments, tuple and list displays and targets)
  kLambda,          // lambda params: body (a one-statement function: see Expr::lambda)
  kListComp,        // [elt for ... in ... if ...]
  kDictComp,        // {key: value for ...}
  kGeneratorExp,    // (elt for ...), or the sole argument of a call
  kJoinedStr,       // an f-string (and literals joined to it): its pieces in elts
  kFormattedValue,  // one {field} of an f-string
};

enum class BinOpKind : uint8_t {
  kAdd,
  kSub,
  kMult,
  kDiv,
  kFloorDiv,
  kMod,
  kPow,
  kLShift,
  kRShift,
  kBitAnd,
  kBitOr,
  kBitXor,
  kMatMult,
};
enum class UnaryOpKind : uint8_t { kUSub, kUAdd, kNot, kInvert };
enum class BoolOpKind : uint8_t { kAnd, kOr };
enum class CmpOpKind : uint8_t { kEq, kNotEq, kLt, kLtE, kGt, kGtE, kIs, kIsNot, kIn, kNotIn };

// Python's spelling of an operator: "+", "//", "**", "not in", ...
std::string_view BinOpSymbol(BinOpKind op);
std::string_view CmpOpSymbol(CmpOpKind op);

enum class ConstantKind : uint8_t { kNone, kBool, kInt, kFloat, kString };

struct Keyword {
  std::string arg;  // empty for **kwargs
  ExprPtr value;
  SourceLoc loc;
};

// One `for target in iter [if cond]*` clause of a comprehension, in source order.
struct Comprehension {
  ExprPtr target;
  ExprPtr iter;
  std::vector<ExprPtr> ifs;
};

struct Expr {
  ExprKind kind;
  SourceLoc loc;  // first character of the expression

  // kName: id. kAttribute: attr.
  std::string name;

  // kConstant
  ConstantKind constant_kind = ConstantKind::kNone;
  bool bool_value = false;
  int64_t int_value = 0;  // ints that fit in int64 (others are a diagnostic)
  double float_value = 0.0;
  std::string string_value;  // decoded (escapes processed, adjacent literals joined)

  // kBinOp / kUnaryOp / kBoolOp / kCompare operators
  BinOpKind bin_op = BinOpKind::kAdd;
  UnaryOpKind unary_op = UnaryOpKind::kUSub;
  BoolOpKind bool_op = BoolOpKind::kAnd;
  std::vector<CmpOpKind> cmp_ops;  // kCompare: one per comparator

  // Children, by kind:
  //   kBinOp: left, right
  //   kUnaryOp: operand = left
  //   kBoolOp: values in elts
  //   kCompare: left, comparators in elts
  //   kCall: func = left, args in elts, keywords
  //   kAttribute: value = left
  //   kSubscript: value = left, index = right
  //   kSlice: lower = left, upper = right, step = third (each nullable)
  //   kTuple / kList: elts
  //   kDict: keys in elts, values in values
  //   kIfExp: test = left, body = right, orelse = third
  //   kStarred: value = left
  //   kLambda: the function in `lambda`
  //   kListComp / kGeneratorExp: elt = left; the clauses in generators
  //   kDictComp: key = left, value = right; the clauses in generators
  //   kJoinedStr: pieces in elts, each a string kConstant or a kFormattedValue
  //   kFormattedValue: value = left, format spec = right (a kJoinedStr; null: none), the
  //     conversion ("r", "s", "a" or empty) in name
  ExprPtr left, right, third;
  std::vector<ExprPtr> elts;
  std::vector<ExprPtr> values;
  std::vector<Keyword> keywords;
  std::vector<Comprehension> generators;
  // kLambda: a kFunctionDef named "<lambda>" whose body is `return <body>`, so a lambda is
  // called like any def. Shared: the Stmt type is incomplete here.
  std::shared_ptr<Stmt> lambda;

  explicit Expr(ExprKind k, SourceLoc l) : kind(k), loc(l) {}
};

// ---------------------------------------------------------------------------------------------
// Statements

enum class StmtKind : uint8_t {
  kExpr,         // expression statement (value)
  kAssign,       // targets = value (a = b = v has two targets)
  kAugAssign,    // target op= value
  kAnnAssign,    // target: annotation [= value]
  kFor,          // for target in iter: body [else is rejected]
  kWhile,        // while test: body [else: orelse] (host code; the tracer rejects it)
  kIf,           // if test: body else: orelse (elif is a nested If in orelse)
  kWith,         // with items: body
  kFunctionDef,  // [decorators] def name(params): body
  kReturn,
  kPass,
  kBreak,
  kContinue,
  kImport,  // import / from ... import (names bound recorded in bound_names)
  kGlobal,  // global / nonlocal (recorded, not evaluated)
  kAssert,
  kUnsupported,  // a top-level statement outside the subset (see file comment)
};

struct WithItem {
  ExprPtr context;
  ExprPtr target;  // nullable (no `as`)
};

struct Param {
  std::string name;
  ExprPtr annotation;     // nullable
  ExprPtr default_value;  // nullable
  enum class Kind : uint8_t {
    kPositional,
    kVarArgs,
    kKeywordOnly,
    kVarKeywords
  } kind = Kind::kPositional;
  SourceLoc loc;
};

// One name bound by an import statement: `import a.b` binds a (module "a.b", name ""),
// `import a.b as c` binds c (module "a.b"), `from a.b import c as d` binds d (module "a.b",
// name "c"; relative modules keep their leading dots; `*` is name "*" and binds nothing).
struct ImportAlias {
  std::string module;
  std::string name;   // from-import only
  std::string bound;  // the local name
  SourceLoc loc;
  bool aliased = false;  // written with `as` (`import a.b as c` binds c to a.b, not a to a)
};

struct Stmt {
  StmtKind kind;
  SourceLoc loc;      // first character of the statement
  SourceLoc end_loc;  // one past its last character (line/column of the end)

  // kExpr / kReturn / kAssert(test): value. kAssign / kAugAssign / kAnnAssign: value (nullable
  // for a bare annotation). kFor: iter. kWhile / kIf: test.
  ExprPtr value;
  std::vector<ExprPtr> targets;  // kAssign: one or more; kAugAssign / kAnnAssign / kFor: one
  BinOpKind aug_op = BinOpKind::kAdd;
  ExprPtr annotation;                // kAnnAssign
  ExprPtr msg;                       // kAssert: the message (nullable)
  std::vector<ImportAlias> imports;  // kImport: one per imported name, in source order

  StmtList body;                // kFor, kWhile, kIf, kWith, kFunctionDef
  StmtList orelse;              // kIf, kWhile (and kFor else, which is rejected)
  std::vector<WithItem> items;  // kWith

  // kFunctionDef
  std::string name;
  SourceLoc def_loc;  // the `def` keyword (`loc` is that of the first decorator), or `lambda`
  std::vector<ExprPtr> decorators;
  std::vector<Param> params;
  ExprPtr returns;  // nullable

  // kImport / kGlobal / kUnsupported / kFunctionDef / kAssign: names this statement binds at
  // its level (for import: the local names). For kUnsupported also the first parse error.
  std::vector<std::string> bound_names;
  std::string unsupported_reason;  // kUnsupported: e.g. "class definitions are not supported"
  SourceLoc unsupported_loc;       // kUnsupported: where the parser gave up

  explicit Stmt(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
};

// An error that makes the whole file invalid Python.
struct FileError {
  SourceLoc loc;
  std::string message;
};

struct Module {
  uint32_t file_id = 0;
  StmtList body;
  // The file's first tokenizer error that CPython refuses the whole file for (an unterminated
  // string, brackets nested past 200, inconsistent indentation, ...). CPython tokenizes the
  // whole file before running any of it, so a file it would not run is refused here too,
  // whichever statement holds the error. Unset when there is none.
  std::optional<FileError> refused;
};

}  // namespace tilejit::frontend
