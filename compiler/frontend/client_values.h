// SPDX-License-Identifier: Apache-2.0
// PRIM_FUNC requests (docs/prim_func_requests.md): the tilejit Python package runs a kernel's
// factory in CPython, as TileLang does, and ships the prim_func it returned by reference (the
// position of its `def` in one of the request's files) with the values of the names it reads:
// constants, modules, tilejit builtins, other user functions (by index into the request's
// function table, so helpers that call themselves need no copies) and T.symbolic dimensions.
// The frontend parses each shipped function on its own (parser.h ParseFunctionAt), so the
// factory and the rest of the file may use any Python, and traces the prim_func with those
// bindings instead of evaluating a factory.
//
// Plain value types; ClientResolver borrows an Evaluator and lives for one compile.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/diagnostic.h"
#include "compiler/frontend/ast.h"
#include "compiler/frontend/value.h"

namespace tilejit::frontend {

class Evaluator;

// Bounds on what one request may ship; the service refuses more before converting.
inline constexpr size_t kMaxClientFiles = 64;
inline constexpr size_t kMaxClientFunctions = 4096;
inline constexpr size_t kMaxClientValues = 1 << 20;  // over the whole request
inline constexpr int kMaxClientValueDepth = 32;      // nested lists, tuples and dicts

struct SourceFile {
  std::string name;
  std::string text;
};

struct ClientValue {
  enum class Kind : uint8_t {
    kConstant,
    kModule,
    kBuiltin,
    kFunction,
    kSymbol,
    kSymbolExpr,  // `name` is a binary operator ("+", "-", "*", "//", "%"), `items` its operands
    kList,
    kTuple,
    kDict
  };
  Kind kind = Kind::kConstant;
  Value constant;         // kConstant: a host constant (Value::IsConstant)
  std::string name;       // kModule: TileLang module path; kBuiltin: qualified name; kSymbol
  uint32_t function = 0;  // kFunction: index into the function table
  std::vector<ClientValue> items;   // kList, kTuple; kDict: the keys
  std::vector<ClientValue> values;  // kDict: the values, parallel to `items`
};

using ClientBindings = std::vector<std::pair<std::string, ClientValue>>;

struct ClientFunction {
  uint32_t file = 0;  // index into the request's files
  uint32_t line = 0;  // of the `def` (or `lambda`) keyword, 1-based
  uint32_t column = 0;
  std::string qualname;
  FunctionKind kind = FunctionKind::kPlain;
  ClientBindings closure;             // free variables and globals the function reads
  std::vector<ClientValue> defaults;  // of the trailing positional parameters
  ClientBindings kwdefaults;          // of keyword-only parameters
};

// A stable text of a function table for request digests: typed (64, 64.0 and "64" differ) and
// independent of the order closure names were sent in.
std::string ClientTableText(const std::vector<ClientFunction>& table);

// Turns a request's function table into frontend function values over the request's files.
class ClientResolver {
 public:
  // `file_ids[i]`: the SourceManager id of the request's file i.
  ClientResolver(Evaluator* ev, std::vector<uint32_t> file_ids);

  // One function value per table entry (diagnostics at the function that has a problem: no
  // def there, a parse error in it, a value tilejit cannot use); nullopt after an error.
  std::optional<std::vector<Value>> Resolve(const std::vector<ClientFunction>& table);

 private:
  std::optional<Value> ToValue(const ClientValue& v, const std::string& name, SourceLoc where,
                               int depth);
  bool BindDefaults(const ClientFunction& c, FunctionValue* fn, SourceLoc where);

  Evaluator* ev_;
  std::vector<uint32_t> file_ids_;
  std::vector<std::shared_ptr<const Stmt>> defs_;  // the parsed functions, kept for the compile
  std::vector<std::shared_ptr<FunctionValue>> fns_;
};

}  // namespace tilejit::frontend
