// SPDX-License-Identifier: Apache-2.0
// Upper bounds on what the Developer-mode passes produce for the shared kernels: sync pairs,
// barriers, cross-core flags, workspace bytes and on-chip bytes per memory. A change that makes
// any of them worse fails here and must either be fixed or re-pinned on purpose (the numbers
// are the values measured when they were pinned; lower is better for every one).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "frontend/frontend_test_util.h"

namespace tilejit::compiler {
namespace {

using frontend::fetest::CaseRequest;
using frontend::fetest::LoadCases;

struct Pin {
  std::string pass;
  std::string stat;
  int64_t max;
};

// Keyed by the case name of cases.json ("<file stem>_<args>").
const std::map<std::string, std::vector<Pin>>& Pins() {
  static const auto* pins = new std::map<std::string, std::vector<Pin>>{
      {"gemm_developer_256_512_384_128_256_64",
       {{"sync_insert", "set_wait_pairs", 13},
        {"sync_insert", "barriers", 0},
        {"legalize_copies", "workspace_bytes", 0},
        {"memory_planning", "onchip_bytes_l1", 98304},
        {"memory_planning", "onchip_bytes_l0a", 32768},
        {"memory_planning", "onchip_bytes_l0b", 65536},
        {"memory_planning", "onchip_bytes_l0c", 131072}}},
      {"gemm_developer_1024_1024_1024_128_256_64",
       {{"sync_insert", "set_wait_pairs", 13},
        {"sync_insert", "barriers", 0},
        {"legalize_copies", "workspace_bytes", 0},
        {"memory_planning", "onchip_bytes_l1", 98304},
        {"memory_planning", "onchip_bytes_l0a", 32768},
        {"memory_planning", "onchip_bytes_l0b", 65536},
        {"memory_planning", "onchip_bytes_l0c", 131072}}},
      {"softmax_mixed_256_1024_16",
       {{"sync_insert", "set_wait_pairs", 2},
        {"sync_insert", "barriers", 5},
        {"memory_planning", "onchip_bytes_ub", 65568}}},
      {"layernorm_mixed_128_512_16",
       {{"sync_insert", "set_wait_pairs", 3},
        {"sync_insert", "barriers", 10},
        {"memory_planning", "onchip_bytes_ub", 36896}}},
      {"matmul_add_developer_256_256_256_64_128_64",
       {{"sync_insert", "set_wait_pairs", 15},
        {"sync_insert", "barriers", 0},
        {"cross_core_sync", "cross_flags", 2},
        {"legalize_copies", "workspace_bytes", 32768},
        {"memory_planning", "onchip_bytes_l1", 49152},
        {"memory_planning", "onchip_bytes_l0a", 16384},
        {"memory_planning", "onchip_bytes_l0b", 32768},
        {"memory_planning", "onchip_bytes_l0c", 32768},
        {"memory_planning", "onchip_bytes_ub", 32768}}},
      {"flash_attn_developer_1_2_256_128_64_64",
       // 69 pairs since memory_planning v2: two of them (a V->MTE2 refill, an MTE3->V rewrite)
       // were covered before by a false wait through a reused UB address.
       {{"sync_insert", "set_wait_pairs", 69},
        {"sync_insert", "barriers", 38},
        {"cross_core_sync", "cross_flags", 60},
        {"legalize_copies", "workspace_bytes", 57344},
        {"memory_planning", "onchip_bytes_l1", 49152},
        {"memory_planning", "onchip_bytes_l0a", 32768},
        {"memory_planning", "onchip_bytes_l0b", 32768},
        {"memory_planning", "onchip_bytes_l0c", 65536},
        {"memory_planning", "onchip_bytes_ub", 62080}}},
  };
  return *pins;
}

// "pass.stat" -> value for every pass that ran; "pass." marks that the pass ran (a pass
// records no statistic it never counted, so an absent one of a pass that ran is zero).
std::map<std::string, int64_t> Stats(const CompiledKernel& k) {
  std::map<std::string, int64_t> out;
  for (const PassRecord& r : k.passes) {
    out[r.pass + "."] = 0;
    for (const auto& [name, value] : r.stats) out[r.pass + "." + name] = value;
  }
  return out;
}

TEST(PassStats, SharedDeveloperKernelsStayWithinTheirPinnedBounds) {
  int checked = 0;
  for (const auto& c : LoadCases()) {
    auto pins = Pins().find(c.name);
    if (pins == Pins().end()) continue;
    SourceManager sources;
    DiagnosticEngine diag(&sources);
    Result<CompiledKernel> k = Compile({CaseRequest(c), {}}, &sources, &diag);
    ASSERT_TRUE(k.ok()) << c.name << ": " << diag.RenderAll() << k.status();
    std::map<std::string, int64_t> stats = Stats(*k);
    for (const Pin& p : pins->second) {
      ASSERT_TRUE(stats.contains(p.pass + ".")) << c.name << ": pass " << p.pass << " did not run";
      const std::string key = p.pass + "." + p.stat;
      EXPECT_LE(stats[key], p.max) << c.name << ": " << key << " regressed";
    }
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(Pins().size())) << "a pinned case left cases.json";
}

}  // namespace
}  // namespace tilejit::compiler
