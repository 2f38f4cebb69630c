// SPDX-License-Identifier: Apache-2.0
// Request values from the wire: google.protobuf.Value (plain JSON) and tilejit.v1.TypedValue
// (exact types) -> frontend::Value, with limits that keep hostile input cheap to reject.
//
// JSON numbers: an integral value within +-2^53 becomes a Python int, any other finite value
// a float (JSON cannot tell 64 from 64.0; TypedValue can). Objects become dicts with their
// keys sorted (protobuf maps have no order). Every failure is kInvalidArgument naming where
// the value was (e.g. "args[2][0]").
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/result.h"
#include "compiler/frontend/frontend.h"
#include "compiler/frontend/value.h"
#include "google/protobuf/struct.pb.h"
#include "tilejit/v1/tilejit.pb.h"

namespace tilejit::server {

struct ValueLimits {
  int max_depth = 16;        // nesting of lists and dicts
  size_t max_nodes = 65536;  // values in one request, all fields together
  size_t max_string_bytes = 1 << 20;
};

// Counts nodes across the calls of one request.
class ValueBudget {
 public:
  explicit ValueBudget(ValueLimits limits) : limits_(limits) {}

  Result<frontend::Value> FromJson(const google::protobuf::Value& v, const std::string& where);
  Result<frontend::Value> FromTyped(const tilejit::v1::TypedValue& v, const std::string& where);
  // A PRIM_FUNC request's files and function table (client_values.h), bounded as documented
  // there; the closure names of each function sorted.
  Status ClientTable(const tilejit::v1::CompileRequest& in, frontend::FrontendRequest* out);
  // A Struct and a typed map (the JSON and exact forms of one field) as named values, sorted
  // by name; a name in both is an error.
  Result<frontend::NamedValues> Named(
      const google::protobuf::Struct& json,
      const google::protobuf::Map<std::string, tilejit::v1::TypedValue>& typed,
      std::string_view field);

 private:
  Result<frontend::Value> Json(const google::protobuf::Value& v, const std::string& where,
                               int depth);
  Result<frontend::Value> Typed(const tilejit::v1::TypedValue& v, const std::string& where,
                                int depth);
  Result<frontend::ClientValue> Client(const tilejit::v1::ClientValue& v, const std::string& where,
                                       int depth);
  Result<frontend::ClientBindings> ClientNamed(
      const google::protobuf::Map<std::string, tilejit::v1::ClientValue>& in,
      const std::string& where);
  Result<frontend::ClientFunction> ClientFn(const tilejit::v1::ClientFunction& in,
                                            const std::string& where);
  Status Count(const std::string& where, int depth);
  Status CheckString(const std::string& s, const std::string& where) const;

  ValueLimits limits_;
  size_t nodes_ = 0;
};

}  // namespace tilejit::server
