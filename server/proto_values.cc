// SPDX-License-Identifier: Apache-2.0
#include "server/proto_values.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "server/utf8.h"

namespace tilejit::server {
namespace {

constexpr double kMaxExactInt = 9007199254740992.0;  // 2^53

}  // namespace

Status ValueBudget::Count(const std::string& where, int depth) {
  if (depth > limits_.max_depth) {
    return InvalidArgument(where + ": value nested deeper than " +
                           std::to_string(limits_.max_depth) + " levels");
  }
  if (++nodes_ > limits_.max_nodes) {
    return InvalidArgument(where + ": request holds more than " +
                           std::to_string(limits_.max_nodes) + " values");
  }
  return Status::Ok();
}

Status ValueBudget::CheckString(const std::string& s, const std::string& where) const {
  if (s.size() > limits_.max_string_bytes) {
    return InvalidArgument(where + ": string of " + std::to_string(s.size()) +
                           " bytes is over the limit of " +
                           std::to_string(limits_.max_string_bytes));
  }
  if (FindInvalidUtf8(s)) return InvalidArgument(where + ": string is not valid UTF-8");
  return Status::Ok();
}

Result<frontend::Value> ValueBudget::FromJson(const google::protobuf::Value& v,
                                              const std::string& where) {
  return Json(v, where, 0);
}

Result<frontend::Value> ValueBudget::FromTyped(const tilejit::v1::TypedValue& v,
                                               const std::string& where) {
  return Typed(v, where, 0);
}

Result<frontend::Value> ValueBudget::Json(const google::protobuf::Value& v,
                                          const std::string& where, int depth) {
  TILEJIT_RETURN_IF_ERROR(Count(where, depth));
  using K = google::protobuf::Value::KindCase;
  switch (v.kind_case()) {
    case K::kNullValue:
      return frontend::Value::None();
    case K::kBoolValue:
      return frontend::Value::Bool(v.bool_value());
    case K::kNumberValue: {
      const double d = v.number_value();
      if (!std::isfinite(d)) return InvalidArgument(where + ": number is not finite");
      if (d == std::trunc(d) && std::fabs(d) <= kMaxExactInt) {
        return frontend::Value::Int(static_cast<int64_t>(d));
      }
      return frontend::Value::Float(d);
    }
    case K::kStringValue:
      TILEJIT_RETURN_IF_ERROR(CheckString(v.string_value(), where));
      return frontend::Value::Str(v.string_value());
    case K::kListValue: {
      std::vector<frontend::Value> items;
      for (int i = 0; i < v.list_value().values_size(); ++i) {
        TILEJIT_ASSIGN_OR_RETURN(
            frontend::Value item,
            Json(v.list_value().values(i), where + "[" + std::to_string(i) + "]", depth + 1));
        items.push_back(std::move(item));
      }
      return frontend::Value::List(std::move(items));
    }
    case K::kStructValue: {
      std::vector<std::string> names;
      for (const auto& [name, value] : v.struct_value().fields()) names.push_back(name);
      std::sort(names.begin(), names.end());
      std::vector<frontend::Value> keys, values;
      for (const std::string& name : names) {
        TILEJIT_RETURN_IF_ERROR(CheckString(name, where + " key"));
        TILEJIT_ASSIGN_OR_RETURN(
            frontend::Value value,
            Json(v.struct_value().fields().at(name), where + "['" + name + "']", depth + 1));
        keys.push_back(frontend::Value::Str(name));
        values.push_back(std::move(value));
      }
      return frontend::Value::Dict(std::move(keys), std::move(values));
    }
    case K::KIND_NOT_SET:
      break;
  }
  return InvalidArgument(where +
                         ": value has no kind (set one of null, number, string, bool, "
                         "list or struct)");
}

Result<frontend::Value> ValueBudget::Typed(const tilejit::v1::TypedValue& v,
                                           const std::string& where, int depth) {
  TILEJIT_RETURN_IF_ERROR(Count(where, depth));
  using K = tilejit::v1::TypedValue::KindCase;
  switch (v.kind_case()) {
    case K::kNone:
      return frontend::Value::None();
    case K::kBoolValue:
      return frontend::Value::Bool(v.bool_value());
    case K::kIntValue:
      return frontend::Value::Int(v.int_value());
    case K::kFloatValue:
      if (!std::isfinite(v.float_value())) return InvalidArgument(where + ": float is not finite");
      return frontend::Value::Float(v.float_value());
    case K::kStringValue:
      TILEJIT_RETURN_IF_ERROR(CheckString(v.string_value(), where));
      return frontend::Value::Str(v.string_value());
    case K::kListValue:
    case K::kTupleValue: {
      const tilejit::v1::TypedList& list =
          v.kind_case() == K::kListValue ? v.list_value() : v.tuple_value();
      std::vector<frontend::Value> items;
      for (int i = 0; i < list.values_size(); ++i) {
        TILEJIT_ASSIGN_OR_RETURN(
            frontend::Value item,
            Typed(list.values(i), where + "[" + std::to_string(i) + "]", depth + 1));
        items.push_back(std::move(item));
      }
      return v.kind_case() == K::kListValue ? frontend::Value::List(std::move(items))
                                            : frontend::Value::Tuple(std::move(items));
    }
    case K::KIND_NOT_SET:
      break;
  }
  return InvalidArgument(where + ": typed value has no kind");
}

Result<frontend::NamedValues> ValueBudget::Named(
    const google::protobuf::Struct& json,
    const google::protobuf::Map<std::string, tilejit::v1::TypedValue>& typed,
    std::string_view field) {
  frontend::NamedValues out;
  const std::string f(field);
  for (const auto& [name, value] : json.fields()) {
    TILEJIT_RETURN_IF_ERROR(CheckString(name, f + " name"));
    TILEJIT_ASSIGN_OR_RETURN(frontend::Value v, Json(value, f + "['" + name + "']", 1));
    out.emplace_back(name, std::move(v));
  }
  for (const auto& [name, value] : typed) {
    TILEJIT_RETURN_IF_ERROR(CheckString(name, "typed_" + f + " name"));
    if (json.fields().contains(name)) {
      return InvalidArgument("'" + name + "' is given in both " + f + " and typed_" + f);
    }
    TILEJIT_ASSIGN_OR_RETURN(frontend::Value v, Typed(value, "typed_" + f + "['" + name + "']", 1));
    out.emplace_back(name, std::move(v));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace tilejit::server
