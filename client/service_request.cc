// SPDX-License-Identifier: Apache-2.0
// The CLI sends typed values only (never google.protobuf.Value), so `--arg 64` stays an int
// and `--arg 64.0` a float on the wire exactly as they do offline; that is what makes a
// daemon compile and an offline compile of the same command produce the same key.
#include "client/service_request.h"

#include <fstream>
#include <iterator>

#include "client/cli_values.h"
#include "compiler/target/kernel_metadata.h"

namespace tilejit::client {
namespace {

Status AddNamed(const std::vector<std::string>& in, const char* flag,
                std::vector<std::pair<std::string, v1::TypedValue>>* out) {
  for (const std::string& s : in) {
    auto nv = ParseNamedValue(s);
    if (!nv) return InvalidArgument(std::string(flag) + " expects NAME=VALUE, got '" + s + "'");
    TILEJIT_ASSIGN_OR_RETURN(v1::TypedValue v, ToTypedValue(nv->second));
    out->emplace_back(nv->first, std::move(v));
  }
  return Status::Ok();
}

Status FillList(const frontend::Value& value, v1::TypedList* out) {
  for (size_t i = 0; i < value.size(); ++i) {
    TILEJIT_ASSIGN_OR_RETURN(*out->add_values(), ToTypedValue(value.item(i)));
  }
  return Status::Ok();
}

}  // namespace

Result<v1::TypedValue> ToTypedValue(const frontend::Value& value) {
  using frontend::ValueKind;
  v1::TypedValue t;
  switch (value.kind) {
    case ValueKind::kNone:
      t.set_none(true);
      return t;
    case ValueKind::kBool:
      t.set_bool_value(value.b);
      return t;
    case ValueKind::kInt:
      t.set_int_value(value.i);
      return t;
    case ValueKind::kFloat:
      t.set_float_value(value.f);
      return t;
    case ValueKind::kString:
      t.set_string_value(value.text);
      return t;
    case ValueKind::kList:
      TILEJIT_RETURN_IF_ERROR(FillList(value, t.mutable_list_value()));
      return t;
    case ValueKind::kTuple:
      TILEJIT_RETURN_IF_ERROR(FillList(value, t.mutable_tuple_value()));
      return t;
    default:
      return InvalidArgument("a value the daemon's typed form cannot carry (dict or object)");
  }
}

Result<KernelSpec> KernelSpecFromOptions(const KernelSourceOptions& o) {
  std::ifstream in(o.file, std::ios::binary);
  if (!in) return InvalidArgument("cannot read '" + o.file + "'");
  KernelSpec spec;
  spec.source.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  spec.file_name = o.file;
  spec.tile_ir = o.format == "tile_ir";
  spec.entry = o.entry;
  if (!spec.tile_ir && o.entry.empty()) {
    return InvalidArgument("--entry is required for TileLang sources");
  }
  for (const std::string& a : o.args) {
    TILEJIT_ASSIGN_OR_RETURN(v1::TypedValue v, ToTypedValue(ParseCliValue(a)));
    spec.args.push_back(std::move(v));
  }
  TILEJIT_RETURN_IF_ERROR(AddNamed(o.kwargs, "--kwarg", &spec.kwargs));
  TILEJIT_RETURN_IF_ERROR(AddNamed(o.configs, "--config", &spec.pass_configs));
  TILEJIT_RETURN_IF_ERROR(AddNamed(o.globals, "--global", &spec.globals));
  spec.out_idx = o.out_idx;
  spec.workspace_idx = o.workspace_idx;
  spec.target = o.target;
  return spec;
}

v1::Tensor TensorFromNpy(const runner::NpyArray& array) {
  v1::Tensor t;
  t.set_dtype(std::string(target::ElementTypeName(array.dtype)));
  for (int64_t d : array.shape) t.add_shape(d);
  t.set_data(array.data.data(), array.data.size());
  return t;
}

Result<runner::NpyArray> NpyFromTensor(const v1::Tensor& tensor) {
  std::optional<target::ElementType> dtype = target::ParseElementType(tensor.dtype());
  if (!dtype) return InvalidArgument("unknown tensor dtype '" + tensor.dtype() + "'");
  runner::NpyArray a;
  a.dtype = *dtype;
  a.shape.assign(tensor.shape().begin(), tensor.shape().end());
  a.data.assign(tensor.data().begin(), tensor.data().end());
  const int64_t want = a.ElementCount() * target::ElementTypeBytes(*dtype);
  if (want < 0 || static_cast<uint64_t>(want) != a.data.size()) {
    return InvalidArgument("tensor of " + std::to_string(a.data.size()) +
                           " bytes disagrees with its shape and dtype");
  }
  return a;
}

}  // namespace tilejit::client
