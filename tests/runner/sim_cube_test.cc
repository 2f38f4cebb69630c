// SPDX-License-Identifier: Apache-2.0
// Assembly-level tests of the simulated AIC (MTE2 -> MTE1 -> M -> FIX) and of AIC <-> AIV
// hand-offs through GM with cross-core flags (reference/ascend_hw.md sections 4.3 and 5).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tests/runner/sim_test_util.h"

namespace tilejit::runner::sim {
namespace {

using namespace testing;  // NOLINT
using target::CoreMix;
using target::ElementType;

constexpr int kDim = 256;  // C[256x256] f32 = A[256x256] f16 x B[256x256] f16, 2x2 blocks

std::string F(const char* op, const char* s, const char* d, int id) {
  return std::string(op) + " spipe=" + s + ", dpipe=" + d + ", event=" + std::to_string(id) + "\n";
}

// Block b computes the 128x128 tile (b / 2, b % 2), K in four steps of 64. L0A/L0B are
// double-buffered (ping-pong by step parity) with M -> MTE1 "free" flags.
std::string GemmProgram(bool flags) {
  std::string s =
      "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\nld_arg rd=r3, arg=2\nget_cid rd=r4\n"
      "div rd=r5, rs1=r4, src2=2\nmod rd=r6, rs1=r4, src2=2\n"
      "mul rd=r7, rs1=r5, src2=65536\nadd rd=r7, rs1=r1, src2=r7\n"
      "mul rd=r8, rs1=r6, src2=256\nadd rd=r8, rs1=r2, src2=r8\n"
      "mul rd=r9, rs1=r5, src2=131072\nmul rd=r10, rs1=r6, src2=512\n"
      "add rd=r9, rs1=r9, src2=r10\nadd rd=r9, rs1=r3, src2=r9\n"
      "copy_gm_l1_nz dst=0, src=r7, rows=128, cols=256, src_stride=512, dst_pitch=128, dtype=f16 "
      "@1\n"
      "copy_gm_l1_nz dst=65536, src=r8, rows=256, cols=128, src_stride=256, dst_pitch=256, "
      "dtype=f16 @2\n";
  // B rows are 256 f16 = 512 bytes apart in GM; src_stride above is fixed below.
  s.replace(s.find("src_stride=256"), 14, "src_stride=512");
  if (flags) s += F("set_flag", "mte2", "mte1", 0) + F("wait_flag", "mte2", "mte1", 0);
  if (flags) s += F("set_flag", "m", "mte1", 0) + F("set_flag", "m", "mte1", 1);
  for (int step = 0; step < 4; ++step) {
    const int b = step % 2;
    const std::string l0 = std::to_string(b * 32768);
    if (flags) s += F("wait_flag", "m", "mte1", b);
    s += "load_l0a dst=" + l0 + ", src=" + std::to_string(step * 4 * 4096) +
         ", rows=128, cols=64, src_pitch=128, transpose=0, dtype=f16 @3\n";
    s += "load_l0b dst=" + l0 + ", src=" + std::to_string(65536 + step * 64 * 32) +
         ", rows=64, cols=128, src_pitch=256, transpose=0, dtype=f16 @4\n";
    if (flags) s += F("set_flag", "mte1", "m", b) + F("wait_flag", "mte1", "m", b);
    s += "mmad dst=0, src=" + l0 + ", src1=" + l0 +
         ", m=128, n=128, k=64, init=" + (step == 0 ? "1" : "0") + ", dtype=f16 @5\n";
    if (flags) s += F("set_flag", "m", "mte1", b);
  }
  if (flags) s += F("wait_flag", "m", "mte1", 0) + F("wait_flag", "m", "mte1", 1);
  if (flags) s += F("set_flag", "m", "fix", 0) + F("wait_flag", "m", "fix", 0);
  s += "fix_l0c_gm dst=r9, src=0, rows=128, cols=128, src_pitch=128, dst_stride=1024, dtype=f32, "
       "odtype=f32, relu=0, atomic=none @6\nend\n";
  return s;
}

struct GemmRun {
  LaunchReport report;
  std::vector<float> c, ref;
};

GemmRun RunGemm(bool flags, CheckMode mode) {
  SimDevice dev;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(kDim * kDim), b(kDim * kDim);
  for (float& v : a) v = HalfToFloat(FloatToHalf(dist(rng)));
  for (float& v : b) v = HalfToFloat(FloatToHalf(dist(rng)));
  std::vector<float> ref(kDim * kDim);
  for (int i = 0; i < kDim; ++i) {
    for (int j = 0; j < kDim; ++j) {
      double acc = 0;
      for (int k = 0; k < kDim; ++k) acc += double{a[i * kDim + k]} * b[k * kDim + j];
      ref[i * kDim + j] = static_cast<float>(acc);
    }
  }
  Tensor ta = Input(dev, ElementType::kFloat16, {kDim, kDim}, HalfBytes(a), "A");
  Tensor tb = Input(dev, ElementType::kFloat16, {kDim, kDim}, HalfBytes(b), "B");
  Tensor tc = Output(dev, ElementType::kFloat32, {kDim, kDim}, "C");
  auto id = dev.LoadImage(Image(CoreMix::kCubeOnly, 0, 4, GemmProgram(flags), ""));
  EXPECT_TRUE(id.ok()) << id.status();
  LaunchOptions opt;
  opt.mode = mode;
  opt.trace = true;
  const uint64_t args[] = {ta.addr, tb.addr, tc.addr};
  auto r = dev.Launch(*id, args, opt);
  EXPECT_TRUE(r.ok()) << r.status();
  return {*r, FromF32(Read(dev, tc)), ref};
}

TEST(SimCube, GemmWithFlagsMatchesFloat32Reference) {
  for (CheckMode mode : {CheckMode::kChecked, CheckMode::kFast, CheckMode::kPerturbed}) {
    GemmRun run = RunGemm(true, mode);
    EXPECT_TRUE(run.report.status.ok()) << AllFindings(run.report);
    for (size_t i = 0; i < run.c.size(); ++i) {
      ASSERT_NEAR(run.c[i], run.ref[i], 1e-3 + 1e-4 * std::fabs(run.ref[i])) << i;
    }
  }
}

TEST(SimCube, GemmTraceHasMsprofLanesFlowsAndLineCycles) {
  GemmRun run = RunGemm(true, CheckMode::kChecked);
  const std::string& t = run.report.trace_json;
  for (const char* lane : {"aic MTE2", "aic MTE1", "aic CUBE", "aic FIXP", "aic SCALAR"}) {
    EXPECT_NE(t.find(lane), std::string::npos) << lane;
  }
  EXPECT_NE(t.find("\"ph\":\"s\""), std::string::npos);
  EXPECT_NE(t.find("\"ph\":\"f\""), std::string::npos);
  bool mmad_line = false;
  for (const auto& row : run.report.line_cycles) {
    if (row.stmt == 5) {
      mmad_line = true;
      EXPECT_EQ(row.count, 16u);               // 4 mmads x 4 blocks
      EXPECT_EQ(row.cycles, 16u * 8 * 8 * 4);  // ceil(128/16)^2 * ceil(64/16) each
    }
  }
  EXPECT_TRUE(mmad_line);
}

TEST(SimCube, GemmWithoutFlagsReportsRaces) {
  GemmRun run = RunGemm(false, CheckMode::kChecked);
  EXPECT_TRUE(HasFinding(run.report, FindingKind::kRace, "load_l0a")) << AllFindings(run.report);
  EXPECT_TRUE(HasFinding(run.report, FindingKind::kRace, "fix_l0c_gm")) << AllFindings(run.report);
}

// copy_gm_l1_nz writes only its rows (AscendC's ND2NZ DataCopy writes nValue rows) and zeroes
// the C0 padding of a partial column block: 3 rows of 10 f16 columns spliced at row 2 of a
// 16-row column block that fill_l1 set to 1.0 keep rows 0-1 and 5-15 at 1.0.
TEST(SimCube, NzCopyWritesOnlyItsRowsAndThePaddingOfItsColumnBlock) {
  SimDevice dev;
  std::vector<float> src(3 * 10);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) + 2.0f;
  Tensor ts = Input(dev, ElementType::kFloat16, {3, 10}, HalfBytes(src), "S");
  Tensor to = Output(dev, ElementType::kFloat16, {16, 16}, "O");
  const std::string aic =
      "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\n"
      "fill_l1 dst=0, nburst=1, len=512, dst_stride=0, scalar=1065353216, dtype=f16\n"
      "barrier pipe=mte2\n"
      "copy_gm_l1_nz dst=64, src=r1, rows=3, cols=10, src_stride=20, dst_pitch=16, dtype=f16\n" +
      F("set_flag", "mte2", "mte3", 0) + F("wait_flag", "mte2", "mte3", 0) +
      "copy_l1_gm dst=r2, src=0, nburst=1, len=512, src_stride=0, dst_stride=0\nend\n";
  auto id = dev.LoadImage(Image(CoreMix::kCubeOnly, 0, 1, aic, ""));
  ASSERT_TRUE(id.ok()) << id.status();
  LaunchOptions opt;
  opt.mode = CheckMode::kChecked;
  const uint64_t args[] = {ts.addr, to.addr};
  auto r = dev.Launch(*id, args, opt);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->findings.empty()) << AllFindings(*r);
  const std::vector<float> out = FromHalf(Read(dev, to));  // zN with one block: row-major 16x16
  for (int row = 0; row < 16; ++row) {
    for (int col = 0; col < 16; ++col) {
      const float want = row < 2 || row >= 5 ? 1.0f : col < 10 ? src[(row - 2) * 10 + col] : 0.0f;
      EXPECT_EQ(out[row * 16 + col], want) << "row " << row << " col " << col;
    }
  }
}

// AIC copies A (1024 f16) GM -> L1 -> workspace W; the AIV reads W, adds 1, writes Y.
std::string HandOffAic(bool cross) {
  std::string s =
      "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\n"
      "copy_gm_l1 dst=0, src=r1, nburst=1, len=2048, src_stride=0, dst_stride=0\n" +
      F("set_flag", "mte2", "mte3", 0) + F("wait_flag", "mte2", "mte3", 0) +
      "copy_l1_gm dst=r2, src=0, nburst=1, len=2048, src_stride=0, dst_stride=0 @11\n";
  if (cross) s += "xset pipe=mte3, xmode=2, flag=3\n";
  return s + "end\n";
}

std::string HandOffAiv(bool cross) {
  std::string s = "ld_arg rd=r2, arg=1\nld_arg rd=r3, arg=2\n";
  if (cross) s += "xwait pipe=mte2, flag=3\n";
  s += "copy_gm_ub dst=0, src=r2, nburst=1, len=2048, src_stride=0, dst_stride=0, pad=0, "
       "padval=0, dtype=f16 @12\n" +
       F("set_flag", "mte2", "v", 0) + F("wait_flag", "mte2", "v", 0) +
       "vadds dst=4096, src=0, scalar=0x3f800000, repeat=8, mask=128, dst_blk=1, src_blk=1, "
       "dst_rep=8, src_rep=8, dtype=f16\n" +
       F("set_flag", "v", "mte3", 0) + F("wait_flag", "v", "mte3", 0) +
       "copy_ub_gm dst=r3, src=4096, nburst=1, len=2048, src_stride=0, dst_stride=0, "
       "atomic=none, dtype=f16\nend\n";
  return s;
}

GemmRun RunHandOff(bool cross, CheckMode mode, uint64_t seed = 1) {
  SimDevice dev;
  std::vector<float> a(1024);
  for (int i = 0; i < 1024; ++i) a[i] = static_cast<float>(i % 50);
  Tensor ta = Input(dev, ElementType::kFloat16, {1024}, HalfBytes(a), "A");
  Tensor tw = Output(dev, ElementType::kFloat16, {1024}, "W");
  Tensor ty = Output(dev, ElementType::kFloat16, {1024}, "Y");
  auto id = dev.LoadImage(Image(CoreMix::kMixed, 1, 1, HandOffAic(cross), HandOffAiv(cross)));
  EXPECT_TRUE(id.ok()) << id.status();
  LaunchOptions opt;
  opt.mode = mode;
  opt.seed = seed;
  const uint64_t args[] = {ta.addr, tw.addr, ty.addr};
  auto r = dev.Launch(*id, args, opt);
  EXPECT_TRUE(r.ok()) << r.status();
  std::vector<float> ref(1024);
  for (int i = 0; i < 1024; ++i) ref[i] = a[i] + 1.0f;
  return {*r, FromHalf(Read(dev, ty)), ref};
}

TEST(SimCrossCore, HandOffThroughGmWithCrossFlagsWorks) {
  for (CheckMode mode : {CheckMode::kChecked, CheckMode::kPerturbed}) {
    GemmRun run = RunHandOff(true, mode);
    EXPECT_TRUE(run.report.status.ok()) << AllFindings(run.report);
    EXPECT_EQ(run.c, run.ref);
  }
}

TEST(SimCrossCore, HandOffWithoutCrossFlagsIsAnInterCoreRace) {
  GemmRun run = RunHandOff(false, CheckMode::kChecked);
  EXPECT_TRUE(HasFinding(run.report, FindingKind::kRace, "inter-core")) << AllFindings(run.report);
  EXPECT_TRUE(HasFinding(run.report, FindingKind::kRace, "tensor 'W'")) << AllFindings(run.report);
  bool wrong = false;
  for (uint64_t seed = 1; seed <= 4 && !wrong; ++seed) {
    wrong =
        RunHandOff(false, CheckMode::kPerturbed, seed).c != RunHandOff(true, CheckMode::kFast).ref;
  }
  EXPECT_TRUE(wrong);
}

TEST(SimCrossCore, ModeTwoSetReleasesBothAivsAndUnconsumedSetsAreReported) {
  SimDevice dev;
  const std::string aic = "xset pipe=fix, xmode=2, flag=1\nxwait pipe=s, flag=2\nend\n";
  const std::string aiv = "xwait pipe=s, flag=1\nxset pipe=mte3, xmode=2, flag=2\nend\n";
  auto id = dev.LoadImage(Image(CoreMix::kMixed, 2, 1, aic, aiv));
  ASSERT_TRUE(id.ok()) << id.status();
  auto r = dev.Launch(*id, {}, LaunchOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->status.ok()) << AllFindings(*r);
  // The AIC's wait needs both AIVs: with one extra AIC wait it deadlocks.
  auto id2 = dev.LoadImage(Image(CoreMix::kMixed, 2, 1,
                                 "xset pipe=fix, xmode=2, flag=1\nxwait pipe=s, flag=2\n"
                                 "xwait pipe=s, flag=2\nend\n",
                                 aiv));
  ASSERT_TRUE(id2.ok());
  auto r2 = dev.Launch(*id2, {}, LaunchOptions{});
  ASSERT_TRUE(r2.ok());
  EXPECT_TRUE(HasFinding(*r2, FindingKind::kDeadlock, "cross-core flag 2")) << AllFindings(*r2);
  auto id3 =
      dev.LoadImage(Image(CoreMix::kMixed, 2, 1, "xset pipe=fix, xmode=2, flag=4\nend\n", "end\n"));
  ASSERT_TRUE(id3.ok());
  auto r3 = dev.Launch(*id3, {}, LaunchOptions{});
  ASSERT_TRUE(r3.ok());
  EXPECT_TRUE(HasFinding(*r3, FindingKind::kFlagMisuse, "unconsumed")) << AllFindings(*r3);
}

}  // namespace
}  // namespace tilejit::runner::sim
