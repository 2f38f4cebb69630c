// SPDX-License-Identifier: Apache-2.0
// Every kernel of cases.json specialises, traces and prints canonical IR equal to its golden
// file; the IR round-trips through the Tile IR parser; the request's source map points into
// the user's file. TILEJIT_REGEN_GOLDEN=1 rewrites the golden files instead of comparing.
#include "compiler/frontend/frontend.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "compiler/ir/hash.h"
#include "compiler/ir/ir_parser.h"
#include "compiler/ir/printer.h"
#include "tests/compiler/frontend/frontend_test_util.h"

namespace tilejit::frontend {
namespace {

using fetest::LoadCases;
using fetest::RunRequest;

std::filesystem::path GoldenDir() {
  return std::filesystem::path(TILEJIT_SOURCE_DIR) / "tests/compiler/frontend/golden";
}

TEST(Frontend, EveryCaseMatchesItsGoldenIr) {
  auto cases = LoadCases();
  ASSERT_GE(cases.size(), 10u);
  bool regen = std::getenv("TILEJIT_REGEN_GOLDEN") != nullptr;
  for (const auto& c : cases) {
    std::string diags;
    auto r = RunRequest(fetest::CaseRequest(c), &diags);
    ASSERT_TRUE(r.ok()) << c.name << ":\n" << diags;
    auto path = GoldenDir() / (c.name + ".ir");
    if (regen) {
      std::ofstream(path, std::ios::binary) << r->ir_text;
      continue;
    }
    ASSERT_TRUE(std::filesystem::exists(path)) << "missing golden file " << path;
    EXPECT_EQ(r->ir_text, fetest::ReadFile(path)) << c.name;
  }
}

TEST(Frontend, EveryCaseRoundTripsThroughTheIrParser) {
  for (const auto& c : LoadCases()) {
    auto r = RunRequest(fetest::CaseRequest(c));
    ASSERT_TRUE(r.ok()) << c.name;
    auto parsed = ir::ParseTileIrString(r->ir_text);
    ASSERT_TRUE(parsed.ok()) << c.name << ": " << parsed.status();
    EXPECT_EQ(ir::PrintKernel(*parsed), r->ir_text) << c.name;
    EXPECT_EQ(ir::IrHash(*parsed), r->ir_hash) << c.name;
  }
}

TEST(Frontend, TileIrInputGivesTheSameKeyAsItsSource) {
  for (const auto& c : LoadCases()) {
    auto r = RunRequest(fetest::CaseRequest(c));
    ASSERT_TRUE(r.ok()) << c.name;
    FrontendRequest ir_req;
    ir_req.source = r->ir_text;
    ir_req.file_name = c.name + ".ir";
    ir_req.format = SourceFormat::kTileIr;
    for (const auto& pc : r->pass_configs) {
      Value v = std::holds_alternative<bool>(pc.value) ? Value::Bool(std::get<bool>(pc.value))
                                                       : Value::Str("?");
      ir_req.pass_configs.emplace_back(pc.key, v);
    }
    std::string diags;
    auto from_ir = RunRequest(ir_req, &diags);
    ASSERT_TRUE(from_ir.ok()) << c.name << ":\n" << diags;
    EXPECT_EQ(from_ir->ir_text, r->ir_text);
    EXPECT_EQ(FrontendCacheKey(*from_ir), FrontendCacheKey(*r)) << c.name;
  }
}

TEST(Frontend, SourceMapPointsIntoTheUserFile) {
  auto cases = LoadCases();
  auto r = RunRequest(fetest::CaseRequest(cases[0]));
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->source_map.empty());
  for (SourceLoc loc : r->source_map) {
    EXPECT_TRUE(loc.known());
    EXPECT_GT(loc.line, 1u);
  }
  // Statement 0 is the launch: `with T.Kernel(...)` in gemm_developer.py is on line 26.
  EXPECT_EQ(r->source_map[0].line, 26u);
}

TEST(Frontend, RecordsKernelKinds) {
  for (const auto& c : LoadCases()) {
    auto r = RunRequest(fetest::CaseRequest(c));
    ASSERT_TRUE(r.ok());
    KernelKind want = KernelKind::kMixed;
    if (c.file.rfind("gemm", 0) == 0) want = KernelKind::kCubeOnly;
    if (c.file.rfind("elementwise", 0) == 0 || c.file.rfind("softmax", 0) == 0 ||
        c.file.rfind("layernorm", 0) == 0) {
      want = KernelKind::kVectorOnly;
    }
    EXPECT_EQ(r->kind, want) << c.name << " is " << KernelKindName(r->kind);
  }
}

TEST(Frontend, DecoratorSettingsAreReportedAndOverridable) {
  auto cases = LoadCases();
  auto req = fetest::CaseRequest(cases[0]);  // gemm_developer: out_idx=[-1], all four on
  auto r = RunRequest(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out_idx, std::vector<int>{2});
  EXPECT_TRUE(r->normalized_configs.configs.auto_sync);
  EXPECT_EQ(r->target, "ascend910b2");
  req.pass_configs.emplace_back("tl.ascend_auto_sync", Value::Bool(false));
  req.target = "ascend910b4";
  auto o = RunRequest(req);
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->normalized_configs.configs.auto_sync);
  EXPECT_TRUE(o->normalized_configs.configs.memory_planning);
  EXPECT_EQ(o->target, "ascend910b4");
}

}  // namespace
}  // namespace tilejit::frontend
