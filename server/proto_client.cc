// SPDX-License-Identifier: Apache-2.0
// PRIM_FUNC requests from the wire (client_values.h). The function table is checked only for
// shape and size here; whether each function is where it says is the frontend's to report (a
// located diagnostic), since only it parses the files.
#include <algorithm>
#include <utility>

#include "server/proto_values.h"
#include "server/utf8.h"

namespace tilejit::server {
namespace {

constexpr size_t kMaxNameBytes = 1024;       // file names, qualnames, closure names
constexpr uint32_t kMaxPosition = 1u << 24;  // lines and columns

}  // namespace

Result<frontend::ClientValue> ValueBudget::Client(const tilejit::v1::ClientValue& v,
                                                  const std::string& where, int depth) {
  using K = tilejit::v1::ClientValue::KindCase;
  using Kind = frontend::ClientValue::Kind;
  frontend::ClientValue out;
  auto named = [&](Kind kind, const std::string& name) -> Result<frontend::ClientValue> {
    TILEJIT_RETURN_IF_ERROR(Count(where, depth));
    TILEJIT_RETURN_IF_ERROR(CheckString(name, where));
    if (name.empty() || name.size() > kMaxNameBytes) return InvalidArgument(where + ": bad name");
    out.kind = kind;
    out.name = name;
    return out;
  };
  auto list = [&](Kind kind, const tilejit::v1::ClientList& l) -> Result<frontend::ClientValue> {
    TILEJIT_RETURN_IF_ERROR(Count(where, depth));
    frontend::ClientValue made;
    made.kind = kind;
    for (int i = 0; i < l.values_size(); ++i) {
      TILEJIT_ASSIGN_OR_RETURN(
          frontend::ClientValue x,
          Client(l.values(i), where + "[" + std::to_string(i) + "]", depth + 1));
      made.items.push_back(std::move(x));
    }
    return made;
  };
  switch (v.kind_case()) {
    case K::kConstant: {
      TILEJIT_ASSIGN_OR_RETURN(out.constant, Typed(v.constant(), where, depth));
      return out;
    }
    case K::kModule:
      return named(Kind::kModule, v.module());
    case K::kBuiltin:
      return named(Kind::kBuiltin, v.builtin());
    case K::kSymbol:
      return named(Kind::kSymbol, v.symbol());
    case K::kSymbolExpr: {
      const tilejit::v1::ClientSymbolExpr& e = v.symbol_expr();
      if (e.operands_size() != 2) {
        return InvalidArgument(where + ": a symbol expression needs exactly two operands");
      }
      tilejit::v1::ClientList operands;
      *operands.mutable_values() = e.operands();
      TILEJIT_ASSIGN_OR_RETURN(out, list(Kind::kSymbolExpr, operands));
      TILEJIT_RETURN_IF_ERROR(CheckString(e.op(), where));
      if (e.op().empty() || e.op().size() > 2) return InvalidArgument(where + ": bad operator");
      out.name = e.op();
      return out;
    }
    case K::kFunction:
      TILEJIT_RETURN_IF_ERROR(Count(where, depth));
      out.kind = Kind::kFunction;
      out.function = v.function();
      return out;
    case K::kListValue:
      return list(Kind::kList, v.list_value());
    case K::kTupleValue:
      return list(Kind::kTuple, v.tuple_value());
    case K::kDictValue: {
      const tilejit::v1::ClientDict& d = v.dict_value();
      if (d.keys_size() != d.values_size()) {
        return InvalidArgument(where + ": a dict needs as many values as keys");
      }
      tilejit::v1::ClientList keys, values;
      *keys.mutable_values() = d.keys();
      *values.mutable_values() = d.values();
      TILEJIT_ASSIGN_OR_RETURN(out, list(Kind::kDict, keys));
      TILEJIT_ASSIGN_OR_RETURN(frontend::ClientValue vals, list(Kind::kList, values));
      out.values = std::move(vals.items);
      return out;
    }
    case K::KIND_NOT_SET:
      break;
  }
  return InvalidArgument(where + ": client value has no kind");
}

Result<frontend::ClientBindings> ValueBudget::ClientNamed(
    const google::protobuf::Map<std::string, tilejit::v1::ClientValue>& in,
    const std::string& where) {
  frontend::ClientBindings out;
  for (const auto& [name, value] : in) {
    TILEJIT_RETURN_IF_ERROR(CheckString(name, where + " name"));
    if (name.empty() || name.size() > kMaxNameBytes) {
      return InvalidArgument(where + ": bad name");
    }
    TILEJIT_ASSIGN_OR_RETURN(frontend::ClientValue v, Client(value, where + "['" + name + "']", 1));
    out.emplace_back(name, std::move(v));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

Result<frontend::ClientFunction> ValueBudget::ClientFn(const tilejit::v1::ClientFunction& in,
                                                       const std::string& where) {
  frontend::ClientFunction f;
  if (in.line() == 0 || in.column() == 0 || in.line() > kMaxPosition ||
      in.column() > kMaxPosition) {
    return InvalidArgument(where + ": line and column must be between 1 and 2^24");
  }
  if (in.qualname().size() > kMaxNameBytes) return InvalidArgument(where + ": qualname too long");
  TILEJIT_RETURN_IF_ERROR(CheckString(in.qualname(), where + ".qualname"));
  f.file = in.file();
  f.line = in.line();
  f.column = in.column();
  f.qualname = in.qualname();
  switch (in.kind()) {
    case tilejit::v1::ClientFunction::PLAIN:
      f.kind = frontend::FunctionKind::kPlain;
      break;
    case tilejit::v1::ClientFunction::MACRO:
      f.kind = frontend::FunctionKind::kMacro;
      break;
    case tilejit::v1::ClientFunction::PRIM_FUNC:
      f.kind = frontend::FunctionKind::kPrimFunc;
      break;
    default:
      return InvalidArgument(where + ": unknown function kind " + std::to_string(in.kind()));
  }
  TILEJIT_ASSIGN_OR_RETURN(f.closure, ClientNamed(in.closure(), where + ".closure"));
  for (int i = 0; i < in.defaults_size(); ++i) {
    TILEJIT_ASSIGN_OR_RETURN(
        frontend::ClientValue v,
        Client(in.defaults(i), where + ".defaults[" + std::to_string(i) + "]", 1));
    f.defaults.push_back(std::move(v));
  }
  TILEJIT_ASSIGN_OR_RETURN(f.kwdefaults, ClientNamed(in.kwdefaults(), where + ".kwdefaults"));
  return f;
}

Status ValueBudget::ClientTable(const tilejit::v1::CompileRequest& in,
                                frontend::FrontendRequest* out) {
  if (in.files_size() == 0 || in.functions_size() == 0) {
    return InvalidArgument("a PRIM_FUNC request needs files and functions");
  }
  if (static_cast<size_t>(in.files_size()) > frontend::kMaxClientFiles ||
      static_cast<size_t>(in.functions_size()) > frontend::kMaxClientFunctions) {
    return InvalidArgument("a PRIM_FUNC request may ship at most " +
                           std::to_string(frontend::kMaxClientFiles) + " files and " +
                           std::to_string(frontend::kMaxClientFunctions) + " functions");
  }
  for (int i = 0; i < in.files_size(); ++i) {
    const std::string where = "files[" + std::to_string(i) + "]";
    if (in.files(i).name().size() > kMaxNameBytes)
      return InvalidArgument(where + ": name too long");
    if (FindInvalidUtf8(in.files(i).name()) || FindInvalidUtf8(in.files(i).text())) {
      return InvalidArgument(where + ": not valid UTF-8");
    }
    out->files.push_back({in.files(i).name(), in.files(i).text()});
  }
  for (int i = 0; i < in.functions_size(); ++i) {
    TILEJIT_ASSIGN_OR_RETURN(frontend::ClientFunction f,
                             ClientFn(in.functions(i), "functions[" + std::to_string(i) + "]"));
    out->functions.push_back(std::move(f));
  }
  return Status::Ok();
}

}  // namespace tilejit::server
