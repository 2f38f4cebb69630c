// SPDX-License-Identifier: Apache-2.0
#include "compiler/frontend/value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "compiler/frontend/host_budget.h"

namespace tilejit::frontend {

Value Value::Bool(bool v) {
  Value r;
  r.kind = ValueKind::kBool;
  r.b = v;
  return r;
}

Value Value::Int(int64_t v) {
  Value r;
  r.kind = ValueKind::kInt;
  r.i = v;
  return r;
}

Value Value::Float(double v) {
  Value r;
  r.kind = ValueKind::kFloat;
  r.f = v;
  return r;
}

Value Value::Str(std::string v) {
  Value r;
  r.kind = ValueKind::kString;
  r.text = std::move(v);
  HostBudget* budget = HostBudget::Current();
  if (budget != nullptr && r.text.capacity() >= HostCharge::kMinBytes) {
    r.text_charge = HostCharge(budget->meter(), static_cast<int64_t>(r.text.capacity()));
  }
  return r;
}

namespace {

constexpr size_t kSmallString = 15;  // libstdc++ keeps shorter strings inside the object

// What `items` holds on the heap: the vector and what its elements own directly (strings past
// the small-string buffer and not charged on their own, element indices); aggregates inside are
// charged on their own.
int64_t HeapBytes(const std::vector<Value>& items) {
  int64_t bytes = static_cast<int64_t>(items.capacity() * sizeof(Value));
  for (const Value& v : items) {
    if (v.text.capacity() > kSmallString && !v.text_charge) {
      bytes += static_cast<int64_t>(v.text.capacity());
    }
    bytes += static_cast<int64_t>(v.indices.capacity() * sizeof(ir::Expr));
  }
  return bytes;
}

// Aggregate storage, charged to the thread's active frontend budget while it lives.
std::shared_ptr<const std::vector<Value>> Storage(std::vector<Value> items) {
  HostBudget* budget = HostBudget::Current();
  if (budget == nullptr) return std::make_shared<const std::vector<Value>>(std::move(items));
  const int64_t bytes = HeapBytes(items);
  std::shared_ptr<HostMeter> meter = budget->meter();
  meter->Add(bytes);
  return std::shared_ptr<const std::vector<Value>>(new std::vector<Value>(std::move(items)),
                                                   [meter, bytes](const std::vector<Value>* p) {
                                                     delete p;
                                                     meter->Add(-bytes);
                                                   });
}

}  // namespace

Value Value::List(std::vector<Value> v) {
  Value r;
  r.kind = ValueKind::kList;
  r.items = Storage(std::move(v));
  return r;
}

Value Value::Tuple(std::vector<Value> v) {
  Value r = List(std::move(v));
  r.kind = ValueKind::kTuple;
  return r;
}

Value Value::Dict(std::vector<Value> keys, std::vector<Value> vals) {
  Value r;
  r.kind = ValueKind::kDict;
  r.items = Storage(std::move(keys));
  r.values = Storage(std::move(vals));
  return r;
}

Value Value::Module(std::string path) {
  Value r;
  r.kind = ValueKind::kModule;
  r.text = std::move(path);
  return r;
}

Value Value::Builtin(std::string name) {
  Value r;
  r.kind = ValueKind::kBuiltin;
  r.text = std::move(name);
  return r;
}

Value Value::Function(std::shared_ptr<const FunctionValue> f) {
  Value r;
  r.kind = ValueKind::kFunction;
  r.func = std::move(f);
  return r;
}

Value Value::DataTypeOf(std::string dtype) {
  Value r;
  r.kind = ValueKind::kDataType;
  r.text = std::move(dtype);
  return r;
}

Value Value::OfExpr(ir::Expr e) {
  Value r;
  r.kind = ValueKind::kExpr;
  r.expr = std::move(e);
  return r;
}

Value Value::OfBuffer(ir::Buffer b) {
  Value r;
  r.kind = ValueKind::kBuffer;
  r.buffer = std::move(b);
  return r;
}

Value Value::OfRegion(ir::Region reg) {
  Value r;
  r.kind = ValueKind::kRegion;
  r.buffer = reg.buffer;
  r.region = std::move(reg);
  return r;
}

Value Value::OfElement(ir::Buffer b, std::vector<ir::Expr> idx, SourceLoc loc) {
  Value r;
  r.kind = ValueKind::kElement;
  r.buffer = std::move(b);
  r.indices = std::move(idx);
  r.loc = loc;
  return r;
}

bool Value::IsConstant() const {
  switch (kind) {
    case ValueKind::kNone:
    case ValueKind::kBool:
    case ValueKind::kInt:
    case ValueKind::kFloat:
    case ValueKind::kString:
      return true;
    case ValueKind::kList:
    case ValueKind::kTuple:
      for (const Value& v : *items) {
        if (!BudgetTick() || !v.IsConstant()) return false;
      }
      return true;
    case ValueKind::kDict:
      for (size_t n = 0; n < items->size(); ++n) {
        if (!BudgetTick() || !(*items)[n].IsConstant() || !(*values)[n].IsConstant()) return false;
      }
      return true;
    default:
      return false;
  }
}

std::string TypeName(const Value& v) {
  switch (v.kind) {
    case ValueKind::kNone:
      return "NoneType";
    case ValueKind::kBool:
      return "bool";
    case ValueKind::kInt:
      return "int";
    case ValueKind::kFloat:
      return "float";
    case ValueKind::kString:
      return "str";
    case ValueKind::kList:
      return "list";
    case ValueKind::kTuple:
      return "tuple";
    case ValueKind::kDict:
      return "dict";
    case ValueKind::kModule:
      return "module";
    case ValueKind::kBuiltin:
      return "builtin";
    case ValueKind::kFunction:
      return "function";
    case ValueKind::kDataType:
      return "DataType";
    case ValueKind::kExpr:
      return "runtime value";
    case ValueKind::kBuffer:
      return "buffer";
    case ValueKind::kRegion:
      return "buffer region";
    case ValueKind::kElement:
      return "buffer element";
  }
  return "object";
}

namespace {

// Python's float repr: the fewest digits that read back as the same double, in fixed notation
// when the decimal exponent is in [-4, 16) (with at least one decimal: "10.0") and in
// scientific notation otherwise ("1e+16", "1.5e-05").
// Python's repr of a str: single quotes unless the text holds one and no double quote;
// backslashes, the quote and control characters escaped.
std::string StringRepr(const std::string& text) {
  const char q =
      text.find('\'') != std::string::npos && text.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, q);
  for (unsigned char c : text) {
    if (c == '\\' || c == q) {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back(q);
  return out;
}

std::string FloatRepr(double d) {
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (std::isnan(d)) return "nan";
  char buf[64];
  int digits = 1;
  for (; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof(buf), "%.*e", digits - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  const int exponent = std::atoi(std::strchr(buf, 'e') + 1);
  if (exponent < -4 || exponent >= 16) return buf;
  std::snprintf(buf, sizeof(buf), "%.*f", std::max(digits - 1 - exponent, 1), d);
  return buf;
}

// repr() of a value that holds no other values.
std::string ScalarRepr(const Value& v) {
  switch (v.kind) {
    case ValueKind::kNone:
      return "None";
    case ValueKind::kBool:
      return v.b ? "True" : "False";
    case ValueKind::kInt:
      return std::to_string(v.i);
    case ValueKind::kFloat:
      return FloatRepr(v.f);
    case ValueKind::kString:
      return StringRepr(v.text);
    case ValueKind::kModule:
      return "<module '" + v.text + "'>";
    case ValueKind::kBuiltin:
      return "<" + v.text + ">";
    case ValueKind::kDataType:
      return "DataType('" + v.text + "')";
    case ValueKind::kBuffer:
    case ValueKind::kRegion:
    case ValueKind::kElement:
      return "<" + TypeName(v) + " " + (v.buffer ? v.buffer->name : std::string("?")) + ">";
    default:
      return "<" + TypeName(v) + ">";
  }
}

// Appends repr(v) to *out: one buffer for the whole walk, so a deeply nested value costs its
// text once, not once per level. Each element walked is a budget tick; once the budget is
// exhausted the text ends in "..." (the evaluator reports the budget at its next step).
void AppendRepr(const Value& v, std::string* out);

void AppendItems(const std::vector<Value>& items, std::string* out) {
  for (size_t n = 0; n < items.size(); ++n) {
    if (!BudgetTick(out->size())) {
      *out += "...";
      return;
    }
    if (n > 0) *out += ", ";
    AppendRepr(items[n], out);
  }
}

void AppendRepr(const Value& v, std::string* out) {
  switch (v.kind) {
    case ValueKind::kList:
      *out += "[";
      AppendItems(*v.items, out);
      *out += "]";
      return;
    case ValueKind::kTuple:
      *out += "(";
      AppendItems(*v.items, out);
      *out += v.items->size() == 1 ? ",)" : ")";
      return;
    case ValueKind::kDict:
      *out += "{";
      for (size_t n = 0; n < v.items->size(); ++n) {
        if (!BudgetTick(out->size())) {
          *out += "...";
          break;
        }
        if (n > 0) *out += ", ";
        AppendRepr((*v.items)[n], out);
        *out += ": ";
        AppendRepr((*v.values)[n], out);
      }
      *out += "}";
      return;
    default:
      *out += ScalarRepr(v);
  }
}

}  // namespace

std::string Repr(const Value& v) {
  std::string out;
  AppendRepr(v, &out);
  return out;
}

bool IsScalarVar(const Value& v) {
  return v.kind == ValueKind::kBuffer && v.buffer->scope == ir::MemScope::kLocalVar;
}

Value ReadScalarVar(const Value& v) {
  if (!IsScalarVar(v)) return v;
  return Value::OfElement(v.buffer, {ir::IntImm(0, ir::DType::kInt32, v.loc)}, v.loc);
}

bool Equals(const Value& a, const Value& b) {
  if (a.is_numeric() && b.is_numeric()) {
    if (a.kind == ValueKind::kFloat || b.kind == ValueKind::kFloat) {
      double x = a.kind == ValueKind::kFloat
                     ? a.f
                     : static_cast<double>(a.kind == ValueKind::kInt ? a.i : a.b);
      double y = b.kind == ValueKind::kFloat
                     ? b.f
                     : static_cast<double>(b.kind == ValueKind::kInt ? b.i : b.b);
      return x == y;
    }
    int64_t x = a.kind == ValueKind::kInt ? a.i : a.b;
    int64_t y = b.kind == ValueKind::kInt ? b.i : b.b;
    return x == y;
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case ValueKind::kNone:
      return true;
    case ValueKind::kString:
    case ValueKind::kModule:
    case ValueKind::kBuiltin:
    case ValueKind::kDataType:
      return a.text == b.text;
    case ValueKind::kList:
    case ValueKind::kTuple:
      if (a.size() != b.size()) return false;
      for (size_t n = 0; n < a.size(); ++n) {
        if (!BudgetTick() || !Equals(a.item(n), b.item(n))) return false;
      }
      return true;
    case ValueKind::kDict:
      if (a.size() != b.size()) return false;
      for (size_t n = 0; n < a.size(); ++n) {
        if (!BudgetTick() || !Equals(a.item(n), b.item(n)) ||
            !Equals((*a.values)[n], (*b.values)[n])) {
          return false;
        }
      }
      return true;
    case ValueKind::kFunction:
      return a.func == b.func;
    case ValueKind::kExpr:
      return a.expr == b.expr;
    case ValueKind::kBuffer:
      return a.buffer == b.buffer;
    default:
      return false;
  }
}

bool Truthy(const Value& v) {
  switch (v.kind) {
    case ValueKind::kNone:
      return false;
    case ValueKind::kBool:
      return v.b;
    case ValueKind::kInt:
      return v.i != 0;
    case ValueKind::kFloat:
      return v.f != 0.0;
    case ValueKind::kString:
      return !v.text.empty();
    case ValueKind::kList:
    case ValueKind::kTuple:
    case ValueKind::kDict:
      return v.size() != 0;
    default:
      return true;
  }
}

namespace {

// Appends TypedText(v) to *out, one buffer for the walk (as AppendRepr).
void AppendTyped(const Value& v, std::string* out) {
  switch (v.kind) {
    case ValueKind::kList:
    case ValueKind::kTuple:
      *out += v.kind == ValueKind::kList ? "list[" : "tuple[";
      for (const Value& e : *v.items) {
        if (!BudgetTick(out->size())) break;
        AppendTyped(e, out);
        *out += ",";
      }
      *out += "]";
      return;
    case ValueKind::kDict:
      *out += "dict{";
      for (size_t n = 0; n < v.size(); ++n) {
        if (!BudgetTick(out->size())) break;
        AppendTyped(v.item(n), out);
        *out += ":";
        AppendTyped((*v.values)[n], out);
        *out += ",";
      }
      *out += "}";
      return;
    case ValueKind::kString:
      *out += "str:" + std::to_string(v.text.size()) + ":" + v.text;
      return;
    default:
      *out += TypeName(v) + ":" + Repr(v);
  }
}

}  // namespace

std::string TypedText(const Value& v) {
  std::string out;
  AppendTyped(v, &out);
  return out;
}

std::optional<ir::DType> DTypeOfValue(const Value& v, SourceLoc fallback, DiagnosticEngine* diag) {
  if (v.kind == ValueKind::kString || v.kind == ValueKind::kDataType) {
    if (auto dt = ir::ParseDType(v.text)) return dt;
  }
  if (v.kind == ValueKind::kBuiltin) {
    // T.float16 and the other dtype names, uncalled; Python's int and float as TVM reads them.
    if (v.text.rfind("T.", 0) == 0) {
      if (auto dt = ir::ParseDType(std::string_view(v.text).substr(2))) return dt;
    }
    if (v.text == "int") return ir::DType::kInt32;
    if (v.text == "float") return ir::DType::kFloat32;
  }
  const SourceLoc at = v.loc.known() ? v.loc : fallback;
  if (v.text.find("float8") != std::string::npos || v.text.find("fp8") != std::string::npos) {
    diag->Error(at) << "dtype " << Repr(v)
                    << " is out of scope: fp8 types belong to the A5 target, and the Ascend 910B "
                       "tilejit compiles for has no fp8 arithmetic";
    return std::nullopt;
  }
  diag->Error(at) << "unknown dtype " << Repr(v);
  return std::nullopt;
}

}  // namespace tilejit::frontend
