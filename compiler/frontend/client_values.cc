// SPDX-License-Identifier: Apache-2.0
// Why every shipped function is parsed on its own rather than found in a parsed module: the
// factory that made it ran in CPython and may use anything (comprehensions, classes, try),
// which would make the whole top-level statement unsupported for this parser; only the
// functions the kernel itself runs must be in the supported subset.
//
// Why function values are made before any closure is filled: closures refer to functions by
// index, possibly to themselves or to each other, so every function must exist first.
#include "compiler/frontend/client_values.h"

#include <algorithm>

#include "compiler/frontend/builtin_registry.h"
#include "compiler/frontend/host_eval.h"
#include "compiler/frontend/parser.h"

namespace tilejit::frontend {
namespace {

void AppendText(const ClientValue& v, std::string* out);

void AppendBindings(const ClientBindings& b, std::string* out) {
  std::vector<const std::pair<std::string, ClientValue>*> sorted;
  for (const auto& entry : b) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](auto* x, auto* y) { return x->first < y->first; });
  *out += '{';
  for (const auto* entry : sorted) {
    *out += std::to_string(entry->first.size()) + ':' + entry->first + '=';
    AppendText(entry->second, out);
    *out += ';';
  }
  *out += '}';
}

void AppendList(char open, const std::vector<ClientValue>& items, std::string* out) {
  *out += open + std::to_string(items.size()) + ':';
  for (const ClientValue& x : items) {
    AppendText(x, out);
    *out += ',';
  }
}

void AppendText(const ClientValue& v, std::string* out) {
  using K = ClientValue::Kind;
  auto named = [&](char tag) { *out += tag + std::to_string(v.name.size()) + ':' + v.name; };
  switch (v.kind) {
    case K::kConstant:
      *out += 'c' + TypedText(v.constant);
      return;
    case K::kModule:
      return named('m');
    case K::kBuiltin:
      return named('b');
    case K::kSymbol:
      return named('s');
    case K::kSymbolExpr:
      named('e');
      return AppendList('(', v.items, out);
    case K::kFunction:
      *out += 'f' + std::to_string(v.function);
      return;
    case K::kList:
      return AppendList('[', v.items, out);
    case K::kTuple:
      return AppendList('(', v.items, out);
    case K::kDict:
      AppendList('{', v.items, out);
      return AppendList(':', v.values, out);
  }
}

// The operator a client's symbol expression names (ClientValue::kSymbolExpr).
std::optional<BinOpKind> SymbolOperator(const std::string& symbol) {
  for (BinOpKind op : {BinOpKind::kAdd, BinOpKind::kSub, BinOpKind::kMult, BinOpKind::kFloorDiv,
                       BinOpKind::kMod}) {
    if (BinOpSymbol(op) == symbol) return op;
  }
  return std::nullopt;
}

}  // namespace

std::string ClientTableText(const std::vector<ClientFunction>& table) {
  std::string out;
  for (const ClientFunction& f : table) {
    out += "fn" + std::to_string(f.file) + ':' + std::to_string(f.line) + ':' +
           std::to_string(f.column) + ':' + std::to_string(static_cast<int>(f.kind)) + ':' +
           std::to_string(f.qualname.size()) + ':' + f.qualname;
    AppendBindings(f.closure, &out);
    AppendList('d', f.defaults, &out);
    AppendBindings(f.kwdefaults, &out);
    out += '\n';
  }
  return out;
}

ClientResolver::ClientResolver(Evaluator* ev, std::vector<uint32_t> file_ids)
    : ev_(ev), file_ids_(std::move(file_ids)) {}

std::optional<std::vector<Value>> ClientResolver::Resolve(
    const std::vector<ClientFunction>& table) {
  DiagnosticEngine& diag = ev_->diag();
  std::vector<SourceLoc> where;
  for (const ClientFunction& c : table) {
    if (c.file >= file_ids_.size()) {
      diag.Error(SourceLoc{}) << "function '" << c.qualname << "' names file " << c.file
                              << " of a request with " << file_ids_.size() << " files";
      return std::nullopt;
    }
    const SourceLoc loc{file_ids_[c.file], c.line, c.column};
    auto def = ParseFunctionAt(*ev_->sources(), loc.file_id, loc, &diag);
    if (!def.ok()) return std::nullopt;
    defs_.push_back(*def);
    fns_.push_back(ev_->AdoptFunction(**def, std::make_shared<Scope>(), c.kind));
    if (fns_.back() == nullptr) return std::nullopt;
    where.push_back(loc);
  }
  for (size_t i = 0; i < table.size(); ++i) {
    const ScopePtr scope = fns_[i]->closure.lock();
    for (const auto& [name, cv] : table[i].closure) {
      auto v = ToValue(cv, name, where[i], 0);
      if (!v) return std::nullopt;
      scope->Set(name, std::move(*v));
    }
    if (!BindDefaults(table[i], fns_[i].get(), where[i])) return std::nullopt;
  }
  std::vector<Value> out;
  for (const auto& fn : fns_) out.push_back(Value::Function(fn));
  return out;
}

std::optional<Value> ClientResolver::ToValue(const ClientValue& v, const std::string& name,
                                             SourceLoc where, int depth) {
  DiagnosticEngine& diag = ev_->diag();
  using K = ClientValue::Kind;
  if (depth > kMaxClientValueDepth) {
    diag.Error(where) << "the value of '" << name << "' is nested too deeply (limit "
                      << kMaxClientValueDepth << ")";
    return std::nullopt;
  }
  auto items = [&](const std::vector<ClientValue>& in) -> std::optional<std::vector<Value>> {
    std::vector<Value> out;
    for (const ClientValue& x : in) {
      auto e = ToValue(x, name, where, depth + 1);
      if (!e) return std::nullopt;
      out.push_back(std::move(*e));
    }
    return out;
  };
  switch (v.kind) {
    case K::kConstant:
      return v.constant;
    case K::kModule:
      return Value::Module(v.name);
    case K::kBuiltin: {
      const BuiltinRow* row = ResolveBuiltin(v.name);  // an alias sent by name means its target
      if (row == nullptr) {
        diag.Error(where) << "the value of '" << name << "' is '" << v.name
                          << "', which tilejit does not know";
        return std::nullopt;
      }
      return Value::Builtin(std::string(row->name));
    }
    case K::kFunction:
      if (v.function >= fns_.size()) {
        diag.Error(where) << "the value of '" << name << "' names function " << v.function
                          << " of a table of " << fns_.size();
        return std::nullopt;
      }
      return Value::Function(fns_[v.function]);
    case K::kSymbol:
      return Value::OfExpr(ir::Ref(ev_->env().Symbol(v.name, where), where));
    case K::kSymbolExpr: {
      const std::optional<BinOpKind> op = SymbolOperator(v.name);
      if (!op.has_value() || v.items.size() != 2) {
        diag.Error(where) << "the value of '" << name << "' applies '" << v.name << "' to "
                          << v.items.size()
                          << " operand(s); a symbol expression is +, -, *, // or % of two";
        return std::nullopt;
      }
      auto xs = items(v.items);
      if (!xs) return std::nullopt;
      return ev_->BinOp(*op, (*xs)[0], (*xs)[1], where);
    }
    case K::kList:
    case K::kTuple: {
      auto xs = items(v.items);
      if (!xs) return std::nullopt;
      return v.kind == K::kList ? Value::List(std::move(*xs)) : Value::Tuple(std::move(*xs));
    }
    case K::kDict: {
      auto keys = items(v.items);
      auto vals = keys ? items(v.values) : std::nullopt;
      if (!vals) return std::nullopt;
      return Value::Dict(std::move(*keys), std::move(*vals));
    }
  }
  return std::nullopt;
}

// The client's __defaults__ belong to the trailing positional parameters, its __kwdefaults__
// to keyword-only ones by name.
bool ClientResolver::BindDefaults(const ClientFunction& c, FunctionValue* fn, SourceLoc where) {
  const std::vector<Param>& params = fn->def->params;
  size_t positional = 0;
  for (const Param& p : params) positional += p.kind == Param::Kind::kPositional ? 1 : 0;
  if (c.defaults.size() > positional) {
    ev_->diag().Error(where) << "'" << c.qualname << "' has " << positional
                             << " positional parameters but " << c.defaults.size()
                             << " defaults were sent";
    return false;
  }
  size_t n = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const Param& p = params[i];
    std::optional<Value> d;
    if (p.kind == Param::Kind::kPositional && n++ >= positional - c.defaults.size()) {
      d = ToValue(c.defaults[n - 1 - (positional - c.defaults.size())], p.name, where, 0);
      if (!d) return false;
    }
    for (const auto& [name, cv] : c.kwdefaults) {
      if (p.kind != Param::Kind::kKeywordOnly || name != p.name) continue;
      if (!(d = ToValue(cv, name, where, 0))) return false;
    }
    fn->defaults[i] = std::move(d);
  }
  return true;
}

}  // namespace tilejit::frontend
