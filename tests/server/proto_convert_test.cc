// SPDX-License-Identifier: Apache-2.0
// Wire conversions: JSON and typed values into frontend values, request validation, tensors,
// and the one Status -> gRPC code mapping.
#include "server/proto_convert.h"

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include "server/grpc_adapter.h"

namespace tilejit::server {
namespace {

v1::CompileRequest FromJson(const std::string& json) {
  v1::CompileRequest r;
  auto status = google::protobuf::util::JsonStringToMessage(json, &r);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return r;
}

Result<frontend::FrontendRequest> Convert(const v1::CompileRequest& r) {
  CompileOptions options;
  return RequestFromProto(r, ValueLimits{}, &options);
}

std::string bad_status(const v1::CompileRequest& r) {
  auto c = Convert(r);
  return c.ok() ? std::string("ok") : c.status().message();
}

TEST(ProtoConvert, JsonArgsBecomeTypedPythonValues) {
  auto r = Convert(FromJson(R"({"source": "x", "entry": "matmul",
      "args": [1024, 1.5, "float16", true, null, [1, [2]], {"b": 1, "a": 2}],
      "pass_configs": {"tl.ascend_auto_sync": true}})"));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->args.size(), 7u);
  EXPECT_EQ(frontend::TypedText(r->args[0]), frontend::TypedText(frontend::Value::Int(1024)));
  EXPECT_EQ(r->args[1].kind, frontend::ValueKind::kFloat);
  EXPECT_EQ(r->args[2].text, "float16");
  EXPECT_EQ(r->args[3].kind, frontend::ValueKind::kBool);
  EXPECT_EQ(r->args[4].kind, frontend::ValueKind::kNone);
  EXPECT_EQ(r->args[5].kind, frontend::ValueKind::kList);
  ASSERT_EQ(r->args[6].kind, frontend::ValueKind::kDict);
  EXPECT_EQ(r->args[6].item(0).text, "a");  // sorted keys
  ASSERT_EQ(r->pass_configs.size(), 1u);
  EXPECT_EQ(r->pass_configs[0].first, "tl.ascend_auto_sync");
  EXPECT_FALSE(r->out_idx.has_value());
  EXPECT_FALSE(r->target.has_value());
}

TEST(ProtoConvert, TypedArgsKeepFloatsThatLookIntegral) {
  auto r = Convert(FromJson(
      R"({"source": "x", "entry": "f", "typed_args": [{"float_value": 64}, {"int_value": "64"},
          {"tuple_value": {"values": [{"string_value": "a"}]}}]})"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->args[0].kind, frontend::ValueKind::kFloat);
  EXPECT_EQ(r->args[1].kind, frontend::ValueKind::kInt);
  EXPECT_EQ(r->args[2].kind, frontend::ValueKind::kTuple);
}

TEST(ProtoConvert, IndicesHavePresence) {
  auto given = Convert(FromJson(R"({"source": "x", "entry": "f", "out_idx": [-1]})"));
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(*given->out_idx, std::vector<int>{-1});
  auto empty = Convert(FromJson(R"({"source": "x", "entry": "f", "workspace_idx_set": true})"));
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(empty->workspace_idx.has_value());
  EXPECT_TRUE(empty->workspace_idx->empty());
}

TEST(ProtoConvert, RejectsMalformedValuesNamingTheField) {
  auto code_and_message = [](const v1::CompileRequest& r) {
    auto c = Convert(r);
    EXPECT_FALSE(c.ok());
    return c.status();
  };
  // Both forms of args.
  Status both = code_and_message(FromJson(
      R"({"source": "x", "entry": "f", "args": [1], "typed_args": [{"int_value": "1"}]})"));
  EXPECT_EQ(both.code(), StatusCode::kInvalidArgument);
  // Deeply nested JSON.
  std::string deep = "1";
  for (int i = 0; i < 40; ++i) deep = "[" + deep + "]";
  Status nested =
      code_and_message(FromJson(R"({"source": "x", "entry": "f", "args": [)" + deep + "]}"));
  EXPECT_NE(nested.message().find("nested deeper"), std::string::npos) << nested;
  // Too many values.
  v1::CompileRequest big = FromJson(R"({"source": "x", "entry": "f"})");
  for (int i = 0; i < 70000; ++i) big.add_args()->set_number_value(i);
  EXPECT_NE(code_and_message(big).message().find("more than"), std::string::npos);
  // A value with no kind, an unknown format, a bad target name, a name in both forms.
  v1::CompileRequest no_kind = FromJson(R"({"source": "x", "entry": "f"})");
  no_kind.add_args();
  EXPECT_NE(code_and_message(no_kind).message().find("args[0]"), std::string::npos);
  v1::CompileRequest bad_format = FromJson(R"({"source": "x", "entry": "f"})");
  bad_format.set_format(static_cast<v1::Format>(7));
  EXPECT_EQ(code_and_message(bad_format).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(code_and_message(FromJson(R"({"source": "x", "entry": "f", "target": "a b"})")).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(code_and_message(FromJson(R"({"source": "x", "entry": "f", "kwargs": {"n": 1},
                                          "typed_kwargs": {"n": {"int_value": "1"}}})"))
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(ProtoConvert, PrimFuncRequestsCarryTheirFilesAndFunctionTable) {
  auto r = Convert(FromJson(R"({"format": "PRIM_FUNC",
      "files": [{"name": "k.py", "text": "def f(): pass\n"}],
      "functions": [{"file": 0, "line": 3, "column": 5, "qualname": "f.<locals>.main",
                     "kind": "PRIM_FUNC", "closure": {
        "n": {"constant": {"int_value": "16"}}, "T": {"module": "tilelang.language"},
        "op": {"function": 1}, "red": {"builtin": "T.reduce_max"},
        "cfg": {"dict_value": {"keys": [{"constant": {"string_value": "a"}}],
                               "values": [{"tuple_value": {"values": [{"symbol": "M"}]}}]}}},
        "defaults": [{"constant": {"float_value": 1}}]},
        {"line": 1, "column": 1}]})"));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->files.size(), 1u);
  ASSERT_EQ(r->functions.size(), 2u);
  const frontend::ClientFunction& f = r->functions[0];
  EXPECT_EQ(f.kind, frontend::FunctionKind::kPrimFunc);
  ASSERT_EQ(f.closure.size(), 5u);
  EXPECT_EQ(f.closure[0].first, "T");  // sorted by name
  EXPECT_EQ(f.closure[1].second.kind, frontend::ClientValue::Kind::kDict);
  EXPECT_EQ(f.closure[1].second.values[0].items[0].kind, frontend::ClientValue::Kind::kSymbol);
  EXPECT_EQ(f.closure[3].second.function, 1u);
  ASSERT_EQ(f.defaults.size(), 1u);
  EXPECT_EQ(f.defaults[0].constant.kind, frontend::ValueKind::kFloat);
}

TEST(ProtoConvert, RejectsMalformedPrimFuncRequests) {
  auto bad = [](const std::string& json) {
    auto c = Convert(FromJson(json));
    return c.ok() ? std::string("ok") : c.status().message();
  };
  EXPECT_NE(bad(R"({"format": "PRIM_FUNC", "files": [{"name": "k.py"}]})").find("needs files"),
            std::string::npos);
  EXPECT_NE(bad(R"({"format": "PRIM_FUNC", "files": [{"name": "k.py"}],
                   "functions": [{"line": 0, "column": 1}]})")
                .find("line and column"),
            std::string::npos);
  EXPECT_NE(bad(R"({"format": "PRIM_FUNC", "files": [{"name": "k.py"}],
                   "functions": [{"line": 1, "column": 1, "closure": {"x": {}}}]})")
                .find("no kind"),
            std::string::npos);
  EXPECT_NE(bad(R"({"format": "PRIM_FUNC", "files": [{"name": "k.py"}],
                   "functions": [{"line": 1, "column": 1, "closure": {"x": {"dict_value":
                     {"keys": [{"symbol": "a"}]}}}}]})")
                .find("as many values as keys"),
            std::string::npos);
  EXPECT_NE(bad(R"({"source": "x", "entry": "f", "files": [{"name": "k.py"}]})")
                .find("belong to PRIM_FUNC"),
            std::string::npos);
  v1::CompileRequest many = FromJson(R"({"format": "PRIM_FUNC", "functions": [{"line": 1,
                                         "column": 1}]})");
  for (int i = 0; i < 65; ++i) many.add_files()->set_name("f" + std::to_string(i));
  EXPECT_NE(bad_status(many).find("at most 64 files"), std::string::npos);
}

TEST(ProtoConvert, TensorsAreCheckedAgainstDtypeAndShape) {
  v1::Tensor t;
  t.set_dtype("float16");
  t.add_shape(4);
  t.set_data(std::string(8, '\0'));
  EXPECT_TRUE(TensorFromProto(t, "inputs[0]").ok());
  v1::Tensor short_data = t;
  short_data.set_data(std::string(7, '\0'));
  EXPECT_NE(TensorFromProto(short_data, "inputs[0]").status().message().find("need 8"),
            std::string::npos);
  v1::Tensor bad_dtype = t;
  bad_dtype.set_dtype("float128");
  EXPECT_EQ(TensorFromProto(bad_dtype, "x").status().code(), StatusCode::kInvalidArgument);
  v1::Tensor negative = t;
  negative.set_shape(0, -1);
  EXPECT_EQ(TensorFromProto(negative, "x").status().code(), StatusCode::kInvalidArgument);
  v1::Tensor huge = t;
  for (int i = 0; i < 4; ++i) huge.add_shape(int64_t{1} << 20);
  EXPECT_EQ(TensorFromProto(huge, "x").status().code(), StatusCode::kInvalidArgument);
}

TEST(ProtoConvert, LaunchCheckModeMustBeKnown) {
  v1::LaunchRequest r;
  r.set_check_mode("sloppy");
  EXPECT_EQ(LaunchFromProto(r).status().code(), StatusCode::kInvalidArgument);
  r.set_check_mode("fast");
  EXPECT_EQ(LaunchFromProto(r)->mode, runner::CheckMode::kFast);
}

TEST(GrpcStatus, MapsEveryCodeInOnePlace) {
  using G = grpc::StatusCode;
  EXPECT_TRUE(ToGrpcStatus(Status::Ok()).ok());
  EXPECT_EQ(ToGrpcStatus(InvalidArgument("m")).error_code(), G::INVALID_ARGUMENT);
  EXPECT_EQ(ToGrpcStatus(NotFound("m")).error_code(), G::NOT_FOUND);
  EXPECT_EQ(ToGrpcStatus(ResourceExhausted("m")).error_code(), G::RESOURCE_EXHAUSTED);
  EXPECT_EQ(ToGrpcStatus(DeadlineExceeded("m")).error_code(), G::DEADLINE_EXCEEDED);
  EXPECT_EQ(ToGrpcStatus(Cancelled("m")).error_code(), G::CANCELLED);
  EXPECT_EQ(ToGrpcStatus(Unavailable("m")).error_code(), G::UNAVAILABLE);
  EXPECT_EQ(ToGrpcStatus(Corruption("m")).error_code(), G::DATA_LOSS);
  EXPECT_EQ(ToGrpcStatus(Internal("m")).error_code(), G::INTERNAL);
  EXPECT_EQ(ToGrpcStatus(ResourceExhausted("queue full")).error_message(), "queue full");
}

}  // namespace
}  // namespace tilejit::server
