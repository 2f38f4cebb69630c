// SPDX-License-Identifier: Apache-2.0
// Values of the frontend's Python world: what a name or an expression evaluates to while the
// host evaluator runs a factory body and while the tracer walks a prim_func body.
//
// Host constants (None, bool, int, float, str, list, tuple, dict) follow Python semantics;
// they are also the typed values of a request's args, kwargs, globals and pass configs.
// Beside them live the frontend's own objects: module aliases (`T`), builtins (`T.copy`),
// user functions (helpers, macros, prim_funcs) with their closure scope, `DataType(d)`, and the
// tracer's runtime objects: IR scalar expressions, buffers, buffer regions and buffer elements.
//
// Value is a small copyable value type; aggregates share their immutable element vectors.
// Not thread-safe to mutate; values are never mutated after construction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/diagnostic.h"
#include "compiler/frontend/host_budget.h"
#include "compiler/ir/ir.h"

namespace tilejit::frontend {

struct Stmt;
class Scope;
struct Value;
struct FunctionValue;

enum class ValueKind : uint8_t {
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,
  kList,
  kTuple,
  kDict,
  kModule,    // an import alias; `text` is the dotted module path ("tilelang.language")
  kBuiltin,   // a known callable or namespace member; `text` is its qualified name ("T.copy")
  kFunction,  // a user def (plain helper, @T.macro or @T.prim_func)
  kDataType,  // DataType(d); `text` is the dtype name
  kExpr,      // a runtime scalar (IR expression)
  kBuffer,    // a whole buffer
  kRegion,    // a sliced buffer (`A[i, 0:64]`)
  kElement,   // one buffer element (`A[i, j]`): a load, a scalar operand or a copy corner
};

struct Value {
  ValueKind kind = ValueKind::kNone;
  bool b = false;
  int64_t i = 0;
  double f = 0.0;
  std::string text;        // string value, module path, builtin name or dtype name
  HostCharge text_charge;  // a large string's bytes, charged to the frontend budget that made it
  std::shared_ptr<const std::vector<Value>> items;   // list / tuple elements; dict keys
  std::shared_ptr<const std::vector<Value>> values;  // dict values (parallel to items)
  std::shared_ptr<const FunctionValue> func;
  ir::Expr expr;                  // kExpr
  ir::Buffer buffer;              // kBuffer, kRegion, kElement
  ir::Region region;              // kRegion
  std::vector<ir::Expr> indices;  // kElement
  SourceLoc loc;                  // where the value was made (for diagnostics); optional

  static Value None() { return Value{}; }
  static Value Bool(bool v);
  static Value Int(int64_t v);
  static Value Float(double v);
  static Value Str(std::string v);
  static Value List(std::vector<Value> v);
  static Value Tuple(std::vector<Value> v);
  static Value Dict(std::vector<Value> keys, std::vector<Value> vals);
  static Value Module(std::string path);
  static Value Builtin(std::string name);
  static Value Function(std::shared_ptr<const FunctionValue> f);
  static Value DataTypeOf(std::string dtype);
  static Value OfExpr(ir::Expr e);
  static Value OfBuffer(ir::Buffer b);
  static Value OfRegion(ir::Region r);
  static Value OfElement(ir::Buffer b, std::vector<ir::Expr> idx, SourceLoc loc);

  bool is_number() const { return kind == ValueKind::kInt || kind == ValueKind::kFloat; }
  // int, bool (Python bools are ints) or a float; not None.
  bool is_numeric() const { return is_number() || kind == ValueKind::kBool; }
  bool is_sequence() const { return kind == ValueKind::kList || kind == ValueKind::kTuple; }
  // A host constant: None, bool, int, float, str, or a list/tuple/dict of host constants.
  bool IsConstant() const;
  // A runtime scalar: an IR expression or a buffer element.
  bool IsRuntime() const { return kind == ValueKind::kExpr || kind == ValueKind::kElement; }
  size_t size() const { return items ? items->size() : 0; }
  const Value& item(size_t n) const { return (*items)[n]; }
};

enum class FunctionKind : uint8_t { kPlain, kMacro, kPrimFunc };

// A user-defined function: its definition and the scope it closes over.
struct FunctionValue {
  const Stmt* def = nullptr;
  // The defining scope. Weak: a scope holds the functions defined in it, so a strong pointer
  // would make a cycle; the Evaluator keeps every closure scope alive while it runs.
  std::weak_ptr<Scope> closure;
  FunctionKind kind = FunctionKind::kPlain;
  std::vector<std::optional<Value>> defaults;  // one per parameter (nullopt: none)
};

// Python's type name ("int", "float", "str", "list", ..., "buffer", "module").
std::string TypeName(const Value& v);
// Python repr of a constant ("64", "64.0", "'float16'", "[1, 2]", "{'a': True}").
std::string Repr(const Value& v);
// Where a diagnostic about `v` points: its own location when it has one, else `dflt`.
inline SourceLoc LocOr(const Value& v, SourceLoc dflt) { return v.loc.known() ? v.loc : dflt; }

// The element type a dtype value names ("float16", "float", DataType(...)); on anything else
// an "unknown dtype" error at the value's location (else `fallback`) and nullopt.
std::optional<ir::DType> DTypeOfValue(const Value& v, SourceLoc fallback, DiagnosticEngine* diag);
// Python ==, on constants (ints and floats compare numerically; 1 == True). Objects compare
// by identity of their payload.
// A numeric value (int, bool or float; see is_numeric) as an int (floats: unspecified) or as a
// double.
inline int64_t IntOf(const Value& v) { return v.kind == ValueKind::kInt ? v.i : v.b; }
inline double DoubleOf(const Value& v) {
  return v.kind == ValueKind::kFloat ? v.f : static_cast<double>(IntOf(v));
}
bool Equals(const Value& a, const Value& b);
// A T.alloc_var: a one-element buffer that stands for its value.
bool IsScalarVar(const Value& v);
// `v` as an operand (of an operator, an index, a slice bound): a T.alloc_var becomes a read of
// its element, anything else is `v`.
Value ReadScalarVar(const Value& v);
// Python truthiness of a host value. REQUIRES: !v.IsRuntime().
bool Truthy(const Value& v);
// A stable text for digests: typed, so 64 and 64.0 and "64" differ.
std::string TypedText(const Value& v);

}  // namespace tilejit::frontend
