// SPDX-License-Identifier: Apache-2.0
// The CLI's daemon requests: command-line values typed exactly as offline, and .npy arrays
// to and from wire tensors.
#include "client/service_request.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "client/cli_values.h"

namespace tilejit::client {
namespace {

TEST(ToTypedValue, KeepsIntFloatBoolStringAndNoneApart) {
  EXPECT_EQ(ToTypedValue(ParseCliValue("64"))->int_value(), 64);
  EXPECT_EQ(ToTypedValue(ParseCliValue("64.0"))->kind_case(), v1::TypedValue::kFloatValue);
  EXPECT_EQ(ToTypedValue(ParseCliValue("1e-5"))->float_value(), 1e-5);
  EXPECT_TRUE(ToTypedValue(ParseCliValue("true"))->bool_value());
  EXPECT_EQ(ToTypedValue(ParseCliValue("float16"))->string_value(), "float16");
  EXPECT_EQ(ToTypedValue(ParseCliValue("none"))->kind_case(), v1::TypedValue::kNone);
}

TEST(ToTypedValue, ConvertsNestedListsAndTuples) {
  using frontend::Value;
  Value v = Value::List({Value::Int(1), Value::Tuple({Value::Float(2.5), Value::Str("x")})});
  Result<v1::TypedValue> t = ToTypedValue(v);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->list_value().values_size(), 2);
  EXPECT_EQ(t->list_value().values(1).tuple_value().values(1).string_value(), "x");
}

TEST(ToTypedValue, RefusesDicts) {
  using frontend::Value;
  Value d = Value::Dict({Value::Str("k")}, {Value::Int(1)});
  EXPECT_EQ(ToTypedValue(d).status().code(), StatusCode::kInvalidArgument);
}

class KernelSpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("tilejit_spec_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
              ".py"))
                .string();
    std::ofstream(path_) << "# kernel\n";
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(KernelSpecTest, TypesEveryOptionAndKeepsIndices) {
  KernelSourceOptions o;
  o.file = path_;
  o.entry = "matmul";
  o.args = {"64", "0.5"};
  o.kwargs = {"dtype=float16"};
  o.configs = {"tl.ascend_auto_sync=true"};
  o.out_idx = std::vector<int>{-1};
  Result<KernelSpec> spec = KernelSpecFromOptions(o);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->source, "# kernel\n");
  EXPECT_EQ(spec->file_name, path_);
  ASSERT_EQ(spec->args.size(), 2u);
  EXPECT_EQ(spec->args[1].float_value(), 0.5);
  EXPECT_TRUE(spec->pass_configs.at(0).second.bool_value());
  v1::CompileRequest req = BuildCompileRequest(*spec);
  EXPECT_TRUE(req.out_idx_set());
  EXPECT_EQ(req.out_idx(0), -1);
  EXPECT_FALSE(req.workspace_idx_set());
  EXPECT_EQ(req.typed_kwargs().at("dtype").string_value(), "float16");
  EXPECT_EQ(req.format(), v1::TILELANG);
}

TEST_F(KernelSpecTest, RefusesMissingEntryBadPairsAndUnreadableFiles) {
  KernelSourceOptions o;
  o.file = path_;
  EXPECT_EQ(KernelSpecFromOptions(o).status().code(), StatusCode::kInvalidArgument);
  o.entry = "matmul";
  o.configs = {"no-equals-sign"};
  EXPECT_NE(KernelSpecFromOptions(o).status().message().find("--config"), std::string::npos);
  o.configs.clear();
  o.file = path_ + ".missing";
  EXPECT_EQ(KernelSpecFromOptions(o).status().code(), StatusCode::kInvalidArgument);
}

TEST(Tensors, RoundTripThroughTheWire) {
  runner::NpyArray a;
  a.dtype = target::ElementType::kFloat16;
  a.shape = {2, 3};
  a.data.assign(12, 7);
  v1::Tensor t = TensorFromNpy(a);
  EXPECT_EQ(t.dtype(), "float16");
  Result<runner::NpyArray> back = NpyFromTensor(t);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape, a.shape);
  EXPECT_EQ(back->data, a.data);
}

TEST(Tensors, RefusesUnknownDtypeAndWrongSize) {
  v1::Tensor t;
  t.set_dtype("float99");
  EXPECT_EQ(NpyFromTensor(t).status().code(), StatusCode::kInvalidArgument);
  t.set_dtype("float32");
  t.add_shape(4);
  t.set_data(std::string(15, '\0'));
  EXPECT_EQ(NpyFromTensor(t).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tilejit::client
