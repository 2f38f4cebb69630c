// SPDX-License-Identifier: Apache-2.0
// Cache-key stability, by equalities and inequalities of keys only (never literal values):
// what must not change a key (comments, whitespace, local names, keyword order, config
// spelling, ignored configs) and what must (shapes, dtypes, block sizes, effective configs,
// globals the factory reads, out_idx, Python int/float differences).
#include <gtest/gtest.h>

#include <regex>

#include "tests/compiler/frontend/frontend_test_util.h"

namespace tilejit::frontend {
namespace {

using fetest::KernelCase;

KernelCase Case(const std::string& file) {
  for (const auto& c : fetest::LoadCases()) {
    if (c.file == file) return c;
  }
  ADD_FAILURE() << "no case for " << file;
  return {};
}

std::string Key(const FrontendRequest& req, std::string* diags = nullptr) {
  auto r = fetest::RunRequest(req, diags);
  return r.ok() ? FrontendCacheKey(*r) : "error";
}

FrontendRequest Gemm() { return fetest::CaseRequest(Case("gemm_developer.py")); }

FrontendRequest WithSource(FrontendRequest r, const std::string& from, const std::string& to,
                           bool regex = false) {
  if (regex) {
    r.source = std::regex_replace(r.source, std::regex(from), to);
  } else {
    size_t at = r.source.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) r.source.replace(at, from.size(), to);
  }
  return r;
}

TEST(HashStability, CommentsBlankLinesAndBracketSpacingKeepTheKey) {
  std::string base = Key(Gemm());
  ASSERT_NE(base, "error");
  EXPECT_EQ(Key(WithSource(Gemm(), "    m_num = M // block_M\n",
                           "    # tile counts\n\n    m_num = M // block_M  # rows\n\n")),
            base);
  EXPECT_EQ(Key(WithSource(Gemm(), "T.Tensor((M, K), dtype)", "T.Tensor( ( M ,  K ) ,dtype )")),
            base);
  EXPECT_EQ(Key(WithSource(Gemm(), "\n", "\n\n", true)), base);
}

TEST(HashStability, RenamedLocalVariablesKeepTheKey) {
  std::string base = Key(Gemm());
  auto renamed = WithSource(Gemm(), "\\bbx\\b", "row_block", true);
  renamed = WithSource(renamed, "\\bA_L1\\b", "a_tile", true);
  renamed = WithSource(renamed, "\\bk\\b", "kk", true);
  renamed = WithSource(renamed, "\\bcid\\b", "block_id", true);
  renamed = WithSource(renamed, "\\bmain\\b", "gemm_body", true);
  std::string d;
  EXPECT_EQ(Key(renamed, &d), base) << d;
}

TEST(HashStability, ReorderedDecoratorKeywordsKeepTheKey) {
  EXPECT_EQ(Key(WithSource(Gemm(), "@tilelang.jit(out_idx=[-1], pass_configs=pass_configs)",
                           "@tilelang.jit(pass_configs=pass_configs, out_idx=[-1])")),
            Key(Gemm()));
}

// @tilelang.autotune above @tilelang.jit (TileLang-Ascend's autotune examples) is the client's
// business: its arguments (Python callables) are not evaluated and the kernel is the same.
TEST(HashStability, AnAutotuneDecoratorKeepsTheKey) {
  std::string d;
  EXPECT_EQ(Key(WithSource(Gemm(), "@tilelang.jit(out_idx=[-1], pass_configs=pass_configs)",
                           "@tilelang.autotune(configs=get_config(), ref_prog=torch.matmul,\n"
                           "                   atol=1e-2)\n"
                           "@tilelang.jit(out_idx=[-1], pass_configs=pass_configs)"),
                &d),
            Key(Gemm()))
      << d;
}

TEST(HashStability, ShapesDtypesAndBlockSizesChangeTheKey) {
  std::string base = Key(Gemm());
  auto bigger = Gemm();
  bigger.args[0] = Value::Int(512);  // M
  EXPECT_NE(Key(bigger), base);
  auto block = Gemm();
  block.args[3] = Value::Int(64);  // block_M
  EXPECT_NE(Key(block), base);
  auto dtype = Gemm();
  dtype.kwargs.emplace_back("dtype", Value::Str("bfloat16"));
  EXPECT_NE(Key(dtype), base);
  auto same_dtype = Gemm();
  same_dtype.kwargs.emplace_back("dtype", Value::Str("float16"));
  EXPECT_EQ(Key(same_dtype), base);
}

TEST(HashStability, EffectiveConfigsGlobalsAndOutIdxChangeTheKey) {
  std::string base = Key(Gemm());
  auto cfg = Gemm();
  cfg.pass_configs.emplace_back("tl.ascend_auto_sync", Value::Bool(false));
  EXPECT_NE(Key(cfg), base);
  auto out = Gemm();
  out.out_idx = std::vector<int>{1};
  EXPECT_NE(Key(out), base);
  auto same_out = Gemm();
  same_out.out_idx = std::vector<int>{2};  // what [-1] normalises to
  EXPECT_EQ(Key(same_out), base);
  // A global the factory reads (module-level pass_configs) overrides the file's value.
  auto glob = Gemm();
  glob.globals.emplace_back("pass_configs", Value::Dict({}, {}));
  EXPECT_NE(Key(glob), base);
  auto target = Gemm();
  target.target = "ascend910b4";
  EXPECT_NE(Key(target), base);
}

TEST(HashStability, GlobalConstantReadByTheFactoryChangesTheKey) {
  std::string src = fetest::ReadFile(fetest::KernelsDir() / "elementwise_add_expert.py");
  src = std::regex_replace(src, std::regex("VEC_NUM = 2\n"), "VEC_NUM = SPLIT\n");
  src += "\nSPLIT = 2\n";
  FrontendRequest req = fetest::CaseRequest(Case("elementwise_add_expert.py"));
  req.source = src;
  std::string base = Key(req);
  ASSERT_NE(base, "error");
  req.globals.emplace_back("SPLIT", Value::Int(4));
  EXPECT_NE(Key(req), base);
  FrontendRequest orig = fetest::CaseRequest(Case("elementwise_add_expert.py"));
  EXPECT_EQ(Key(orig), base);  // SPLIT = 2 in the file is the original constant
}

TEST(HashStability, IntVersusFloatArgumentsFollowPython) {
  // A block size of 64.0 makes `M // block_M` a float: shapes must be ints, so Python (and
  // we) refuse it, instead of silently keying it like 64.
  auto f = Gemm();
  f.args[5] = Value::Float(64.0);  // K_L1, used as a shape
  std::string d;
  EXPECT_EQ(Key(f, &d), "error");
  EXPECT_NE(d.find("shapes must be positive ints"), std::string::npos) << d;
  // eps = 1 and eps = 1.0 give the same float immediate in a float tile op: same kernel.
  auto ln = fetest::CaseRequest(Case("layernorm_mixed.py"));
  auto ln_int = ln;
  ln_int.kwargs.emplace_back("eps", Value::Int(1));
  auto ln_float = ln;
  ln_float.kwargs.emplace_back("eps", Value::Float(1.0));
  EXPECT_NE(Key(ln_int), "error");
  EXPECT_EQ(Key(ln_int), Key(ln_float));
  EXPECT_NE(Key(ln_int), Key(ln));
}

TEST(PassConfigs, EmptyAndAllFalseGiveOneKey) {
  auto expert = fetest::CaseRequest(Case("gemm_expert.py"));
  std::string none = Key(expert);
  for (const char* k : {"TL_ASCEND_AUTO_SYNC", "TL_ASCEND_MEMORY_PLANNING",
                        "TL_ASCEND_AUTO_CV_COMBINE", "TL_ASCEND_AUTO_CV_SYNC"}) {
    expert.pass_configs.emplace_back(k, Value::Bool(false));
  }
  EXPECT_EQ(Key(expert), none);
}

TEST(PassConfigs, EnumAndStringSpellingsAreEqual) {
  auto a = fetest::CaseRequest(Case("gemm_expert.py"));
  auto b = a;
  a.pass_configs.emplace_back("TL_ASCEND_AUTO_SYNC", Value::Bool(true));
  b.pass_configs.emplace_back("tl.ascend_auto_sync", Value::Bool(true));
  EXPECT_EQ(Key(a), Key(b));
  auto dec = WithSource(Gemm(), "tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True",
                        "\"tl.ascend_auto_sync\": True");
  EXPECT_EQ(Key(dec), Key(Gemm()));
}

TEST(PassConfigs, MergeStaticSmemIsIgnoredAndKeepsTheKey) {
  auto req = Gemm();
  std::string base = Key(req);
  req.pass_configs.emplace_back("tir.merge_static_smem", Value::Bool(true));
  std::string d;
  auto r = fetest::RunRequest(req, &d);
  ASSERT_TRUE(r.ok()) << d;
  EXPECT_EQ(FrontendCacheKey(*r), base);
  EXPECT_EQ(r->ignored_keys, std::vector<std::string>{"tir.merge_static_smem"});
  EXPECT_NE(d.find("warning: pass config 'tir.merge_static_smem' has no effect"), std::string::npos)
      << d;
}

TEST(PassConfigs, UnknownKeyIsADiagnosticListingKnownKeys) {
  auto req = Gemm();
  req.pass_configs.emplace_back("tl.ascend_auto_magic", Value::Bool(true));
  std::string d;
  EXPECT_EQ(Key(req, &d), "error");
  EXPECT_NE(d.find("tl.ascend_auto_magic"), std::string::npos) << d;
  EXPECT_NE(d.find("tl.ascend_memory_planning"), std::string::npos) << d;
}

}  // namespace
}  // namespace tilejit::frontend
