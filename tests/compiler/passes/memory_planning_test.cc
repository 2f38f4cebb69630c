// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/memory_planning.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/passes/memory_planning_internal.h"
#include "pass_test_util.h"

namespace tilejit::passes {
namespace {

using testing::PassRunner;

constexpr std::string_view kPlanningHeader = R"(param %p0: gm float32[64, 64] input
out_idx = []
workspace_idx = []
)";

// `body` in a launch, followed by one element store to each buffer it allocates but does not
// otherwise name: a buffer nothing accesses gets no address (UnusedBuffersTakeNoBytes).
std::string PlanningKernel(std::string_view body) {
  const std::string text(body);
  std::string touches;
  static const std::regex kAlloc(R"(alloc (%\w+): \w+ (\w+)\[([0-9, ]+)\])");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kAlloc);
       it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    if (std::regex_search(text, std::regex(name + R"([\[,)])"))) continue;  // used
    const std::string dims = (*it)[3];
    std::string zeros = "0";
    for (char c : dims)
      if (c == ',') zeros += ", 0";
    const std::string dtype = (*it)[2];
    touches += "  " + name + "[" + zeros + "] = " + (dtype.find("float") == 0 ? "0.0" : "0") + "\n";
  }
  return std::string(kPlanningHeader) + "launch(1, threads=0) (%cid, %vid) {\n" + text + touches +
         "}\n";
}

TEST(MemoryPlanning, PlacesBuffersSequentiallyPerMemoryWithLayoutSizes) {
  PassRunner r;
  std::string out = r.Run(MemoryPlanning, PlanningKernel("  alloc %ub_0: ub float32[32, 64]\n"
                                                         "  alloc %l1_0: l1 float16[128, 64]\n"
                                                         "  alloc %ub_1: ub float32[32]\n"
                                                         "  alloc %l1_1: l1 float16[64, 256]\n"
                                                         "  alloc %ub_2: ub float16[16, 20]\n"
                                                         "  alloc %l0c_0: l0c float32[128, 256]\n"
                                                         "  alloc %ub_3: ub float32[8]\n"));
  // ub: 8192 B, then a dense 1-D 128 B, then 16 rows padded to 64 B; l1: zN 16384 B then 32768 B.
  EXPECT_EQ(out, PlanningKernel("  alloc %ub_0: ub float32[32, 64] @0\n"
                                "  alloc %l1_0: l1 float16[128, 64] @0\n"
                                "  alloc %ub_1: ub float32[32] @8192\n"
                                "  alloc %l1_1: l1 float16[64, 256] @16384\n"
                                "  alloc %ub_2: ub float16[16, 20] @8320\n"
                                "  alloc %l0c_0: l0c float32[128, 256] @0\n"
                                "  alloc %ub_3: ub float32[8] @9344\n"));
  EXPECT_EQ(r.ctx.stats["onchip_bytes_ub"], 9376);
  EXPECT_EQ(r.ctx.stats["onchip_bytes_l1"], 49152);
  EXPECT_EQ(r.ctx.stats["onchip_bytes_l0c"], 131072);
  EXPECT_EQ(r.ctx.stats.count("onchip_bytes_l0a"), 0u);
}

TEST(MemoryPlanning, UnusedBuffersTakeNoBytes) {
  // Upstream's rms_norm declares cast staging tiles that its float path never touches
  // (tile-ai/tilelang-ascend examples/normalization/rms_norm.py, a_ub_0 and a_ub_1).
  const std::string in = std::string(kPlanningHeader) +
                         "launch(1, threads=0) (%cid, %vid) {\n"
                         "  alloc %ub_0: ub float32[64, 64]\n"
                         "  alloc %ub_1: ub float32[64, 64]\n"
                         "  alloc %ub_2: ub float32[64, 64]\n"
                         "  copy(%ub_2, %p0)\n"
                         "  copy(%p0, %ub_2)\n"
                         "}\n";
  for (bool planning : {false, true}) {
    PassRunner r;
    r.ctx.configs.memory_planning = r.ctx.configs.auto_sync = planning;
    std::string out = r.Run(MemoryPlanning, in);
    EXPECT_NE(out.find("alloc %ub_0: ub float32[64, 64]\n"), std::string::npos) << out;
    EXPECT_NE(out.find("alloc %ub_2: ub float32[64, 64] @0\n"), std::string::npos) << out;
    EXPECT_EQ(r.ctx.stats["onchip_bytes_ub"], 16384);
    EXPECT_EQ(r.ctx.stats["unused_buffers"], 2);
  }
}

TEST(MemoryPlanning, PadsFractalTilesAndAlignsL0Buffers) {
  PassRunner r;
  // l0a f16 [20, 20]: 2 x 2 fractals of 512 B; l0c f32 [20, 20]: 32 x 16 x 4 x 2 = 4096 B.
  std::string out = r.Run(MemoryPlanning, PlanningKernel("  alloc %l0a_0: l0a float16[20, 20]\n"
                                                         "  alloc %l0a_1: l0a float16[16, 16]\n"
                                                         "  alloc %l0c_0: l0c float32[20, 20]\n"
                                                         "  alloc %l0c_1: l0c float32[16, 16]\n"));
  EXPECT_EQ(out, PlanningKernel("  alloc %l0a_0: l0a float16[20, 20] @0\n"
                                "  alloc %l0a_1: l0a float16[16, 16] @2048\n"
                                "  alloc %l0c_0: l0c float32[20, 20] @0\n"
                                "  alloc %l0c_1: l0c float32[16, 16] @4096\n"));
}

TEST(MemoryPlanning, GemmScratchOfEveryGemmSharesOneOffsetPerMemory) {
  // Two gemms' L0 scratch (expand_composites) each need 32 KiB of l0b and so could not both
  // sit next to the kernel's own 16 KiB: they share the bytes after it, sized by the largest.
  PassRunner r;
  std::string out = r.Run(
      MemoryPlanning, PlanningKernel("  alloc %l0b_0: l0b float16[128, 64]\n"
                                     "  alloc %l0a_0: l0a float16[1, 32, 512] compiler_scratch\n"
                                     "  alloc %l0b_1: l0b float16[1, 512, 32] compiler_scratch\n"
                                     "  alloc %l0a_1: l0a float16[1, 32, 64] compiler_scratch\n"
                                     "  alloc %l0b_2: l0b float16[1, 64, 256] compiler_scratch\n"));
  EXPECT_EQ(out,
            PlanningKernel("  alloc %l0b_0: l0b float16[128, 64] @0\n"
                           "  alloc %l0a_0: l0a float16[1, 32, 512] compiler_scratch @0\n"
                           "  alloc %l0b_1: l0b float16[1, 512, 32] compiler_scratch @16384\n"
                           "  alloc %l0a_1: l0a float16[1, 32, 64] compiler_scratch @0\n"
                           "  alloc %l0b_2: l0b float16[1, 64, 256] compiler_scratch @16384\n"));
  EXPECT_EQ(r.ctx.stats["onchip_bytes_l0b"], 16384 + 32768);
  EXPECT_EQ(r.ctx.stats["onchip_bytes_l0a"], 32768);
}

TEST(MemoryPlanning, KeepsAnnotatedAddressesAndFillsTheGapsAroundThem) {
  PassRunner r;
  std::string out = r.Run(MemoryPlanning, PlanningKernel("  alloc %ub_0: ub float32[8, 64] @4096\n"
                                                         "  alloc %ub_1: ub float32[16, 64]\n"
                                                         "  alloc %ub_2: ub float32[8, 64]\n"
                                                         "  alloc %ub_3: ub float32[8]\n"));
  EXPECT_EQ(out, PlanningKernel("  alloc %ub_0: ub float32[8, 64] @4096\n"
                                "  alloc %ub_1: ub float32[16, 64] @0\n"
                                "  alloc %ub_2: ub float32[8, 64] @6144\n"
                                "  alloc %ub_3: ub float32[8] @8192\n"));
}

TEST(MemoryPlanning, SkipsOverAnAnnotatedBufferTheNextOneWouldHit) {
  PassRunner r;
  std::string out = r.Run(MemoryPlanning, PlanningKernel("  alloc %ub_0: ub float32[8, 64]\n"
                                                         "  alloc %ub_1: ub float32[8] @2080\n"
                                                         "  alloc %ub_2: ub float32[8, 64]\n"));
  EXPECT_EQ(out, PlanningKernel("  alloc %ub_0: ub float32[8, 64] @0\n"
                                "  alloc %ub_1: ub float32[8] @2080\n"
                                "  alloc %ub_2: ub float32[8, 64] @2112\n"));
}

TEST(MemoryPlanning, LeavesAKernelWithoutOnChipBuffersUntouched) {
  PassRunner r;
  Result<ir::Kernel> in = ir::ParseTileIrString(PlanningKernel("  alloc %var_0: var int32[1]\n"));
  ASSERT_TRUE(in.ok());
  Result<ir::Kernel> out = MemoryPlanning(*in, r.ctx);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->body, in->body);
}

TEST(MemoryPlanning, MisalignedAnnotationIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(MemoryPlanning, PlanningKernel("  alloc %ub_0: ub float32[8, 64] @100\n")), "");
  EXPECT_EQ(r.FirstError(),
            "annotated address 100 of ub buffer 'ub_0' is not a multiple of its alignment 32");
  EXPECT_EQ(r.FirstErrorLine(), 5u);
}

TEST(MemoryPlanning, L0aAnnotationMustBeFractalAligned) {
  PassRunner r;
  EXPECT_EQ(r.Run(MemoryPlanning, PlanningKernel("  alloc %l0a_0: l0a float16[16, 16] @256\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "annotated address 256 of l0a buffer 'l0a_0' is not a multiple of its alignment 512");
}

TEST(MemoryPlanning, OverlappingAnnotationsAreReuseByHandAndAWarning) {
  // Upstream's flash attention gives its K and S tiles one L1 address.
  PassRunner r;
  const std::string body =
      "  alloc %ub_0: ub float32[8, 64] @0\n"
      "  alloc %ub_1: ub float32[8, 64] @1024\n"
      "  alloc %ub_2: ub float32[8, 64]\n";
  EXPECT_EQ(r.Run(MemoryPlanning, PlanningKernel(body)),
            PlanningKernel("  alloc %ub_0: ub float32[8, 64] @0\n"
                           "  alloc %ub_1: ub float32[8, 64] @1024\n"
                           "  alloc %ub_2: ub float32[8, 64] @3072\n"));
  EXPECT_EQ(r.Messages(Severity::kWarning),
            std::vector<std::string>{"annotated ub buffers 'ub_0' at [0, 2048) and 'ub_1' at "
                                     "[1024, 3072) share bytes: their uses must not overlap in "
                                     "time"});
}

TEST(MemoryPlanning, AnnotationPastTheEndOfMemoryIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(MemoryPlanning, PlanningKernel("  alloc %ub_0: ub float32[8, 64] @196096\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "ub buffer 'ub_0' annotated at [196096, 198144) runs past the 196608 bytes of ub");
}

TEST(MemoryPlanning, CapacityOverflowNamesBufferMemoryAndBytes) {
  PassRunner r;
  EXPECT_EQ(r.Run(MemoryPlanning, PlanningKernel("  alloc %ub_0: ub float32[32, 64]\n"
                                                 "  alloc %ub_1: ub float32[256, 256]\n"
                                                 "  alloc %ub_2: ub float32[8]\n")),
            "");
  ASSERT_EQ(r.diag.diagnostics().size(), 1u);
  const Diagnostic& d = r.diag.diagnostics()[0];
  EXPECT_EQ(d.message,
            "ub buffer 'ub_1' needs 262144 bytes but only 188416 of the 196608 bytes of ub are "
            "free");
  EXPECT_EQ(d.loc.line, 6u);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].message,
            "largest buffers in ub: 'ub_1' 262144 bytes, 'ub_0' 8192 bytes, 'ub_2' 32 bytes");
}

TEST(MemoryPlanning, WarnsThatPlanningWithoutAutoSyncDoesNotReuse) {
  PassRunner r;
  r.ctx.configs.memory_planning = true;
  EXPECT_NE(r.Run(MemoryPlanning, PlanningKernel("  alloc %ub_0: ub float32[8]\n")), "");
  ASSERT_EQ(r.Messages(Severity::kWarning).size(), 1u);
  EXPECT_NE(r.Messages(Severity::kWarning)[0].find("without reuse"), std::string::npos);

  PassRunner quiet;
  quiet.ctx.configs.memory_planning = true;
  quiet.ctx.configs.auto_sync = true;
  EXPECT_NE(quiet.Run(MemoryPlanning, PlanningKernel("  alloc %ub_0: ub float32[8]\n")), "");
  EXPECT_TRUE(quiet.Messages(Severity::kWarning).empty());
}

TEST(MemoryPlanning, UnresolvedScopeIsADiagnostic) {
  PassRunner r;
  EXPECT_EQ(r.Run(MemoryPlanning, PlanningKernel("  alloc %shared_0: shared float32[8, 8]\n")), "");
  EXPECT_EQ(r.FirstError(),
            "buffer 'shared_0' still has the unresolved scope shared; memory planning needs l1, "
            "l0a, l0b, l0c or ub");
}

// MEMORY_PLANNING and AUTO_SYNC on: placement with reuse.
struct ReuseRunner : PassRunner {
  ReuseRunner() {
    ctx.configs.memory_planning = true;
    ctx.configs.auto_sync = true;
  }
};

TEST(MemoryPlanningReuse, BuffersWithDisjointLifetimesShareBytes) {
  ReuseRunner r;
  std::string out = r.Run(MemoryPlanning, PlanningKernel("  alloc %ub_0: ub float32[64, 64]\n"
                                                         "  alloc %ub_1: ub float32[32, 64]\n"
                                                         "  alloc %ub_2: ub float32[64, 64]\n"
                                                         "  copy(%ub_0, %p0)\n"
                                                         "  copy(%ub_1, %p0[0:+32, :])\n"
                                                         "  copy(%p0, %ub_0)\n"
                                                         "  copy(%ub_2, %p0)\n"
                                                         "  add(%ub_2, %ub_2, %ub_2)\n"
                                                         "  copy(%p0[0:+32, :], %ub_1)\n"
                                                         "  copy(%p0, %ub_2)\n"));
  // ub_0 dies before ub_2 is first written; ub_1 overlaps both.
  EXPECT_EQ(out, PlanningKernel("  alloc %ub_0: ub float32[64, 64] @0\n"
                                "  alloc %ub_1: ub float32[32, 64] @16384\n"
                                "  alloc %ub_2: ub float32[64, 64] @0\n"
                                "  copy(%ub_0, %p0)\n"
                                "  copy(%ub_1, %p0[0:+32, :])\n"
                                "  copy(%p0, %ub_0)\n"
                                "  copy(%ub_2, %p0)\n"
                                "  add(%ub_2, %ub_2, %ub_2)\n"
                                "  copy(%p0[0:+32, :], %ub_1)\n"
                                "  copy(%p0, %ub_2)\n"));
  EXPECT_EQ(r.ctx.stats["onchip_bytes_ub"], 16384 + 8192);
}

TEST(MemoryPlanningReuse, BuffersUsedInALoopLiveForTheWholeLoop) {
  ReuseRunner r;
  // ub_0 comes from before the loop, ub_1 and ub_2 are only used in disjoint parts of one
  // iteration (kept apart so iterations can overlap), ub_3 only after the loop.
  std::string out = r.Run(MemoryPlanning, PlanningKernel("  alloc %ub_0: ub float32[8, 64]\n"
                                                         "  alloc %ub_1: ub float32[8, 64]\n"
                                                         "  alloc %ub_2: ub float32[8, 64]\n"
                                                         "  alloc %ub_3: ub float32[8, 64]\n"
                                                         "  copy(%ub_0, %p0[0:+8, :])\n"
                                                         "  for %v0 in serial(0, 4) {\n"
                                                         "    copy(%ub_1, %p0[%v0 * 8:+8, :])\n"
                                                         "    copy(%p0[%v0 * 8:+8, :], %ub_1)\n"
                                                         "    copy(%ub_2, %ub_0)\n"
                                                         "    copy(%p0[%v0 * 8:+8, :], %ub_2)\n"
                                                         "  }\n"
                                                         "  copy(%ub_3, %p0[0:+8, :])\n"
                                                         "  copy(%p0[0:+8, :], %ub_3)\n"));
  EXPECT_NE(out.find("alloc %ub_0: ub float32[8, 64] @0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("alloc %ub_1: ub float32[8, 64] @2048\n"), std::string::npos) << out;
  EXPECT_NE(out.find("alloc %ub_2: ub float32[8, 64] @4096\n"), std::string::npos) << out;
  EXPECT_NE(out.find("alloc %ub_3: ub float32[8, 64] @0\n"), std::string::npos) << out;
}

TEST(MemoryPlanningReuse, AnnotatedBuffersKeepTheirBytesForTheWholeKernel) {
  ReuseRunner r;
  std::string out = r.Run(MemoryPlanning, PlanningKernel("  alloc %ub_0: ub float32[8, 64] @0\n"
                                                         "  alloc %ub_1: ub float32[8, 64]\n"
                                                         "  copy(%ub_0, %p0[0:+8, :])\n"
                                                         "  copy(%p0[0:+8, :], %ub_0)\n"
                                                         "  copy(%ub_1, %p0[0:+8, :])\n"
                                                         "  copy(%p0[0:+8, :], %ub_1)\n"));
  EXPECT_NE(out.find("alloc %ub_1: ub float32[8, 64] @2048\n"), std::string::npos) << out;
}

// Two 128 KiB phases: 256 KiB in sequence, 128 KiB with reuse (UB has 192 KiB).
constexpr std::string_view kTwoPhases =
    "  alloc %ub_0: ub float32[256, 128]\n"
    "  alloc %ub_1: ub float32[256, 128]\n"
    "  copy(%ub_0, %p1)\n"
    "  copy(%p1, %ub_0)\n"
    "  copy(%ub_1, %p1)\n"
    "  copy(%p1, %ub_1)\n";

std::string BigKernel(std::string_view body) {
  return "param %p0: gm float32[64, 64] input\n"
         "param %p1: gm float32[256, 128] output\n"
         "out_idx = [1]\n"
         "workspace_idx = []\n"
         "launch(1, threads=0) (%cid, %vid) {\n" +
         std::string(body) + "}\n";
}

TEST(MemoryPlanningReuse, AKernelThatFitsOnlyWithReuseCompilesWithIt) {
  ReuseRunner r;
  std::string out = r.Run(MemoryPlanning, BigKernel(kTwoPhases));
  EXPECT_NE(out.find("alloc %ub_0: ub float32[256, 128] @0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("alloc %ub_1: ub float32[256, 128] @0\n"), std::string::npos) << out;
  EXPECT_EQ(r.ctx.stats["onchip_bytes_ub"], 131072);
}

TEST(MemoryPlanningReuse, AKernelThatFitsOnlyWithReuseOverflowsWithoutIt) {
  for (bool planning : {false, true}) {
    PassRunner r;  // AUTO_SYNC off: sequential either way
    r.ctx.configs.memory_planning = planning;
    EXPECT_EQ(r.Run(MemoryPlanning, BigKernel(kTwoPhases)), "");
    EXPECT_EQ(r.FirstError(),
              "ub buffer 'ub_1' needs 131072 bytes but only 65536 of the 196608 bytes of ub are "
              "free");
  }
}

// Two 128 KiB tiles of one loop body, each rewritten whole before it is read: kept apart
// (BuffersUsedInALoopLiveForTheWholeLoop) they need 256 KiB, so the planner lets them share
// bytes, as upstream's sparse flash attention shares its two L0C tiles
// (tile-ai/tilelang-ascend examples/sparse_flash_attention/example_sparse_flash_attn.py).
TEST(MemoryPlanningReuse, LoopTilesShareBytesWhenOnlyThatFits) {
  ReuseRunner r;
  std::string out = r.Run(MemoryPlanning, BigKernel("  alloc %ub_0: ub float32[256, 128]\n"
                                                    "  alloc %ub_1: ub float32[256, 128]\n"
                                                    "  for %v0 in serial(0, 4) {\n"
                                                    "    copy(%ub_0, %p1)\n"
                                                    "    copy(%p1, %ub_0)\n"
                                                    "    copy(%ub_1, %p1)\n"
                                                    "    copy(%p1, %ub_1)\n"
                                                    "  }\n"
                                                    "  copy(%p1, %ub_1)\n"));
  EXPECT_NE(out.find("alloc %ub_0: ub float32[256, 128] @0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("alloc %ub_1: ub float32[256, 128] @0\n"), std::string::npos) << out;
  EXPECT_EQ(r.ctx.stats["crossing_only_ub"], 1);
}

TEST(MemoryPlanningReuse, LoopTilesWhoseValueCrossesIterationsNeverShare) {
  // ub_0 accumulates (its first access in the body reads it); ub_1 is refilled only under an
  // If. Neither may give its bytes to the other, so the kernel does not fit.
  for (const char* first :
       {"    add(%ub_0, %ub_0, %ub_0)\n", "    if %v0 == 0 {\n      copy(%ub_0, %p1)\n    }\n"}) {
    ReuseRunner r;
    EXPECT_EQ(r.Run(MemoryPlanning, BigKernel(std::string("  alloc %ub_0: ub float32[256, 128]\n"
                                                          "  alloc %ub_1: ub float32[256, 128]\n"
                                                          "  copy(%ub_0, %p1)\n"
                                                          "  for %v0 in serial(0, 4) {\n") +
                                              first +
                                              "    copy(%p1, %ub_0)\n"
                                              "    copy(%ub_1, %p1)\n"
                                              "    copy(%p1, %ub_1)\n"
                                              "  }\n")),
              "")
        << first;
    EXPECT_EQ(r.FirstError(),
              "ub buffer 'ub_1' needs 131072 bytes but only 65536 of the 196608 bytes of ub are "
              "free");
  }
}

TEST(MemoryPlanningReuse, OverflowWithReuseCountsOnlyBuffersLiveAtTheSameTime) {
  ReuseRunner r;
  EXPECT_EQ(r.Run(MemoryPlanning, BigKernel("  alloc %ub_0: ub float32[256, 128]\n"
                                            "  alloc %ub_1: ub float32[256, 128]\n"
                                            "  alloc %ub_2: ub float32[8, 64]\n"
                                            "  copy(%ub_2, %p0[0:+8, :])\n"
                                            "  copy(%ub_0, %p1)\n"
                                            "  copy(%ub_1, %p1)\n"
                                            "  copy(%p1, %ub_0)\n"
                                            "  copy(%p1, %ub_1)\n")),
            "");
  EXPECT_EQ(r.FirstError(),
            "ub buffer 'ub_1' needs 131072 bytes but only 65536 of the 196608 bytes of ub are "
            "free");
}

TEST(MemoryPlanningReuse, PlansEachCoreProgramOfACombinedBody) {
  ReuseRunner r;
  std::string out = r.Run(MemoryPlanning, PlanningKernel("  alloc %l1_0: l1 float16[64, 64]\n"
                                                         "  alloc %l1_1: l1 float16[64, 64]\n"
                                                         "  alloc %ub_0: ub float32[64, 64]\n"
                                                         "  alloc %ub_1: ub float32[64, 64]\n"
                                                         "  scope cube {\n"
                                                         "    copy(%l1_0, %p0)\n"
                                                         "    copy(%p0, %l1_0)\n"
                                                         "    copy(%l1_1, %p0)\n"
                                                         "    copy(%p0, %l1_1)\n"
                                                         "  }\n"
                                                         "  scope vector {\n"
                                                         "    copy(%ub_0, %p0)\n"
                                                         "    copy(%ub_1, %p0)\n"
                                                         "    copy(%p0, %ub_0)\n"
                                                         "    copy(%p0, %ub_1)\n"
                                                         "  }\n"));
  EXPECT_NE(out.find("alloc %l1_0: l1 float16[64, 64] @0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("alloc %l1_1: l1 float16[64, 64] @0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("alloc %ub_0: ub float32[64, 64] @0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("alloc %ub_1: ub float32[64, 64] @16384\n"), std::string::npos) << out;
}

int64_t OnChipBytes(const PassRunner& r) {
  int64_t total = 0;
  for (const auto& [name, value] : r.ctx.stats)
    if (name.starts_with("onchip_bytes_")) total += value;
  return total;
}

TEST(MemoryPlanningReuse, FlashAttentionUsesFewerOnChipBytesWithPlanningThanWithout) {
  std::ifstream in(std::string(TILEJIT_SOURCE_DIR) +
                   "/tests/compiler/passes/testdata/flash_attn_developer_before_planning.tir");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  ReuseRunner with;
  PassRunner without;  // MEMORY_PLANNING off
  without.ctx.configs.auto_sync = true;
  ASSERT_NE(with.Run(MemoryPlanning, text.str()), "");
  ASSERT_NE(without.Run(MemoryPlanning, text.str()), "");
  // The fp16 output tile, used only after the loop, shares bytes with the loop's tiles.
  EXPECT_LT(with.ctx.stats["onchip_bytes_ub"], without.ctx.stats["onchip_bytes_ub"]);
  EXPECT_LT(OnChipBytes(with), OnChipBytes(without));
}

TEST(MemoryPlanningReuse, MovesABufferOffBytesWhoseOwnerDiedJustBeforeIt) {
  ReuseRunner r;
  // First fit: a @0, y @8192 (live with a), b @0 (after a), c @0 (after b, right after it).
  // c may instead take y's bytes, whose owner died earlier, at no extra high water.
  const std::string body =
      "  alloc %ub_0: ub float32[32, 64]\n"
      "  alloc %ub_1: ub float32[32, 64]\n"
      "  alloc %ub_2: ub float32[32, 64]\n"
      "  alloc %ub_3: ub float32[32, 64]\n"
      "  copy(%ub_0, %p0[0:+32, :])\n"
      "  copy(%ub_1, %p0[0:+32, :])\n"
      "  copy(%p0[0:+32, :], %ub_0)\n"
      "  copy(%ub_2, %p0[0:+32, :])\n"
      "  copy(%p0[0:+32, :], %ub_1)\n"
      "  copy(%p0[0:+32, :], %ub_2)\n"
      "  copy(%ub_3, %p0[0:+32, :])\n"
      "  copy(%p0[0:+32, :], %ub_3)\n";
  std::string out = r.Run(MemoryPlanning, PlanningKernel(body));
  EXPECT_NE(out.find("alloc %ub_0: ub float32[32, 64] @0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("alloc %ub_1: ub float32[32, 64] @8192\n"), std::string::npos) << out;
  EXPECT_NE(out.find("alloc %ub_2: ub float32[32, 64] @0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("alloc %ub_3: ub float32[32, 64] @8192\n"), std::string::npos) << out;
  EXPECT_EQ(r.ctx.stats["onchip_bytes_ub"], 16384);
}

using memory_planning_internal::Slot;
using memory_planning_internal::SpreadReuse;

TEST(SpreadReuse, LeavesFixedSlotsAndBuffersWithNoRoomWhereTheyAre) {
  // b must share with a (the limit leaves no other room); f is fixed.
  std::vector<Slot> slots = {{0, 64, 32, {0, 1, {}}, false},
                             {0, 64, 32, {2, 3, {}}, false},
                             {64, 32, 32, {0, 0, {}}, true}};
  SpreadReuse(slots, 96);
  EXPECT_EQ(slots[0].address, 0);
  EXPECT_EQ(slots[1].address, 0);
  EXPECT_EQ(slots[2].address, 64);
}

TEST(SpreadReuse, PrefersTheBytesOfTheBufferThatDiedEarliest) {
  // c (born at 10) sits on b (died at 9); a died at 2 and its bytes are free at 64.
  std::vector<Slot> slots = {{64, 64, 32, {0, 2, {}}, false},
                             {0, 64, 32, {3, 9, {}}, false},
                             {0, 64, 32, {10, 12, {}}, false}};
  SpreadReuse(slots, 128);
  EXPECT_EQ(slots[1].address, 0);
  EXPECT_EQ(slots[2].address, 64);
}

// The lowest aligned offset below `limit` where slot i collides with no live or fixed slot
// among the first i, or -1.
int64_t FirstFit(const std::vector<Slot>& slots, size_t i, int64_t limit) {
  for (int64_t addr = 0; addr + slots[i].bytes <= limit; addr += slots[i].align) {
    bool ok = true;
    for (size_t j = 0; j < i && ok; ++j) {
      const Slot& o = slots[j];
      const bool bytes = addr < o.address + o.bytes && o.address < addr + slots[i].bytes;
      ok = !(bytes && (o.fixed || slots[i].fixed || o.life.Overlaps(slots[i].life)));
    }
    if (ok) return addr;
  }
  return -1;
}

TEST(SpreadReuse, NeverSharesBytesBetweenLiveBuffersNorLeavesTheLimit) {
  std::mt19937 rng(7);
  int moved = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Slot> slots;
    const int64_t limit = 1024;
    for (int n = 0; n < 12; ++n) {
      Slot s;
      s.align = int64_t{32} << (rng() % 2);
      s.bytes = s.align * (1 + rng() % 6);
      s.life.first = static_cast<int>(rng() % 40);
      s.life.last = s.life.first + static_cast<int>(rng() % 10);
      s.fixed = rng() % 8 == 0;
      slots.push_back(s);
      slots.back().address = FirstFit(slots, slots.size() - 1, limit);
      if (slots.back().address < 0) slots.pop_back();
    }
    const std::vector<Slot> before = slots;
    SpreadReuse(slots, limit);
    for (size_t i = 0; i < slots.size(); ++i) {
      const Slot& s = slots[i];
      EXPECT_EQ(s.address % s.align, 0);
      EXPECT_GE(s.address, 0);
      EXPECT_LE(s.address + s.bytes, limit);
      if (s.fixed) {
        EXPECT_EQ(s.address, before[i].address);
      }
      moved += s.address != before[i].address;
      for (size_t j = 0; j < i; ++j) {
        const Slot& o = slots[j];
        const bool bytes = s.address < o.address + o.bytes && o.address < s.address + s.bytes;
        const bool apart = !(s.fixed || o.fixed) && !s.life.Overlaps(o.life);
        EXPECT_TRUE(!bytes || apart) << "trial " << trial << ": slots " << j << " and " << i;
      }
    }
  }
  EXPECT_GT(moved, 0);  // the trials exercise moves, not only the first-fit plans
}

}  // namespace
}  // namespace tilejit::passes
