// SPDX-License-Identifier: Apache-2.0
// Assembly-level tests of the simulated AIV, written against reference/ascend_hw.md section 4
// (set_flag/wait_flag, barriers) and docs/isa.md.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/runner/sim_test_util.h"

namespace tilejit::runner::sim {
namespace {

using namespace testing;  // NOLINT
using target::CoreMix;
using target::ElementType;

constexpr int kN = 2048;  // fp16 elements: 4096 bytes, 16 repeats of 128

std::string Load(const char* dst, const char* src) {
  return std::string("copy_gm_ub dst=") + dst + ", src=" + src +
         ", nburst=1, len=4096, src_stride=0, dst_stride=0, pad=0, padval=0, dtype=f16\n";
}
std::string Store(const char* dst, const char* src) {
  return std::string("copy_ub_gm dst=") + dst + ", src=" + src +
         ", nburst=1, len=4096, src_stride=0, dst_stride=0, atomic=none, dtype=f16\n";
}
std::string Flag(const char* op, const char* s, const char* d, int id) {
  return std::string(op) + " spipe=" + s + ", dpipe=" + d + ", event=" + std::to_string(id) + "\n";
}
const char kVadd[] =
    "vadd dst=8192, src=0, src1=4096, repeat=16, mask=128, dst_blk=1, src_blk=1, src1_blk=1, "
    "dst_rep=8, src_rep=8, src1_rep=8, dtype=f16 @7\n";
const char kArgs[] = "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\nld_arg rd=r3, arg=2\n";

std::string VectorAdd(bool flags) {
  std::string s = kArgs;
  s += Load("0", "r1") + Load("4096", "r2");
  if (flags) s += Flag("set_flag", "mte2", "v", 0) + Flag("wait_flag", "mte2", "v", 0);
  s += kVadd;
  if (flags) s += Flag("set_flag", "v", "mte3", 0) + Flag("wait_flag", "v", "mte3", 0);
  s += Store("r3", "8192") + "end\n";
  return s;
}

struct AddRun {
  LaunchReport report;
  std::vector<float> out;
  std::vector<float> expect;
};

AddRun RunVectorAdd(const std::string& program, CheckMode mode, uint64_t seed = 1) {
  SimDevice dev;
  std::vector<float> x(kN), y(kN), expect(kN);
  for (int i = 0; i < kN; ++i) {
    x[i] = static_cast<float>(i % 97) * 0.25f;
    y[i] = static_cast<float>(i % 13) - 6.0f;
    expect[i] = HalfToFloat(FloatToHalf(x[i] + y[i]));
  }
  Tensor tx = Input(dev, ElementType::kFloat16, {kN}, HalfBytes(x), "x");
  Tensor ty = Input(dev, ElementType::kFloat16, {kN}, HalfBytes(y), "y");
  Tensor tz = Output(dev, ElementType::kFloat16, {kN}, "z");
  auto id = dev.LoadImage(Image(CoreMix::kVectorOnly, 1, 1, "", program));
  EXPECT_TRUE(id.ok()) << id.status();
  LaunchOptions opt;
  opt.mode = mode;
  opt.seed = seed;
  const uint64_t args[] = {tx.addr, ty.addr, tz.addr};
  auto r = dev.Launch(*id, args, opt);
  EXPECT_TRUE(r.ok()) << r.status();
  return {*r, FromHalf(Read(dev, tz)), expect};
}

TEST(SimVector, VectorAddWithFlagsIsExactAndClean) {
  for (CheckMode mode : {CheckMode::kFast, CheckMode::kChecked, CheckMode::kPerturbed}) {
    AddRun run = RunVectorAdd(VectorAdd(true), mode);
    EXPECT_TRUE(run.report.status.ok()) << AllFindings(run.report);
    EXPECT_EQ(run.out, run.expect);
    EXPECT_GT(run.report.kernel_cycles, 0u);
  }
}

TEST(SimVector, VectorAddWithoutFlagsReportsRawRacesNamingBothInstructions) {
  AddRun run = RunVectorAdd(VectorAdd(false), CheckMode::kChecked);
  ASSERT_FALSE(run.report.status.ok());
  bool load_to_add = false, add_to_store = false;
  for (const Finding& f : run.report.findings) {
    if (f.kind != FindingKind::kRace || f.message.find("RAW") == std::string::npos) continue;
    if (f.message.find("copy_gm_ub") != std::string::npos &&
        f.message.find("vadd") != std::string::npos) {
      load_to_add = true;
      EXPECT_NE(f.message.find("pipe mte2"), std::string::npos) << f.message;
      EXPECT_NE(f.message.find("pipe v"), std::string::npos) << f.message;
      EXPECT_NE(f.message.find("(line 7)"), std::string::npos) << f.message;
    }
    if (f.message.find("vadd") != std::string::npos &&
        f.message.find("copy_ub_gm") != std::string::npos) {
      add_to_store = true;
    }
  }
  EXPECT_TRUE(load_to_add) << AllFindings(run.report);
  EXPECT_TRUE(add_to_store) << AllFindings(run.report);
}

TEST(SimVector, RacyVectorAddComputesWrongNumbersInPerturbedMode) {
  bool wrong = false;
  for (uint64_t seed = 1; seed <= 4 && !wrong; ++seed) {
    AddRun run = RunVectorAdd(VectorAdd(false), CheckMode::kPerturbed, seed);
    wrong = run.out != run.expect;
  }
  EXPECT_TRUE(wrong);
}

LaunchReport RunAiv(const std::string& program, uint64_t out_bytes = 4096) {
  SimDevice dev;
  Tensor in = Input(dev, ElementType::kUInt8, {4096}, std::vector<uint8_t>(4096, 1), "in");
  Tensor out = Output(dev, ElementType::kUInt8, {static_cast<int64_t>(out_bytes)}, "out");
  auto id = dev.LoadImage(Image(CoreMix::kVectorOnly, 1, 1, "", program));
  EXPECT_TRUE(id.ok()) << id.status();
  const uint64_t args[] = {in.addr, out.addr, out.addr};
  auto r = dev.Launch(*id, args, LaunchOptions{});
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

TEST(SimVector, WaitOnAFlagNeverSetEndsInADeadlockReport) {
  const std::string p = std::string(kArgs) + Flag("wait_flag", "mte2", "v", 3) + kVadd + "end\n";
  LaunchReport r = RunAiv(p);
  ASSERT_TRUE(HasFinding(r, FindingKind::kDeadlock)) << AllFindings(r);
  EXPECT_TRUE(HasFinding(r, FindingKind::kDeadlock, "wait_flag spipe=mte2, dpipe=v, event=3"))
      << AllFindings(r);
}

TEST(SimVector, WaitOnTheScalarPipeForAFlagNeverSetIsADeadlock) {
  const std::string p = std::string(kArgs) + Flag("wait_flag", "v", "s", 2) + "end\n";
  EXPECT_TRUE(HasFinding(RunAiv(p), FindingKind::kDeadlock, "(v -> s, id 2)"));
}

TEST(SimVector, DoubleSetIsReported) {
  const std::string p = std::string(kArgs) + Load("0", "r1") + Load("4096", "r1") +
                        Flag("set_flag", "mte2", "v", 1) + Flag("set_flag", "mte2", "v", 1) +
                        Flag("wait_flag", "mte2", "v", 1) + kVadd +
                        Flag("set_flag", "v", "mte3", 0) + Flag("wait_flag", "v", "mte3", 0) +
                        Store("r2", "8192") + "end\n";
  LaunchReport r = RunAiv(p);
  EXPECT_TRUE(HasFinding(r, FindingKind::kFlagMisuse, "double set")) << AllFindings(r);
  EXPECT_FALSE(HasFinding(r, FindingKind::kRace)) << AllFindings(r);
}

TEST(SimVector, FlagArmedAtBlockEndIsReported) {
  const std::string p = std::string(kArgs) + Flag("set_flag", "v", "mte3", 5) + "end\n";
  EXPECT_TRUE(HasFinding(RunAiv(p), FindingKind::kFlagMisuse, "still armed"));
}

TEST(SimVector, ReadOfNeverWrittenUbTileIsReported) {
  const std::string p = std::string(kArgs) + Load("0", "r1") + Flag("set_flag", "mte2", "v", 0) +
                        Flag("wait_flag", "mte2", "v", 0) + kVadd + "end\n";  // src1 never loaded
  LaunchReport r = RunAiv(p);
  EXPECT_TRUE(HasFinding(r, FindingKind::kUninitRead, "never-written UB byte 4096"))
      << AllFindings(r);
}

TEST(SimVector, OutOfBoundsDmaIsReported) {
  const std::string p = std::string(kArgs) +
                        "copy_gm_ub dst=0, src=r1+64, nburst=1, len=4096, src_stride=0, "
                        "dst_stride=0, pad=0, padval=0, dtype=f16\nend\n";
  LaunchReport r = RunAiv(p);
  EXPECT_TRUE(HasFinding(r, FindingKind::kOutOfBounds, "nearest allocation 'in'"))
      << AllFindings(r);
}

TEST(SimVector, MisalignedUbAccessIsReported) {
  const std::string p = std::string(kArgs) +
                        "copy_gm_ub dst=16, src=r1, nburst=1, len=64, src_stride=0, "
                        "dst_stride=0, pad=0, padval=0, dtype=f16\nend\n";
  EXPECT_TRUE(HasFinding(RunAiv(p), FindingKind::kMisaligned));
}

TEST(SimVector, InstructionBudgetStopsAnEndlessLoop) {
  SimDevice dev;
  auto id = dev.LoadImage(Image(CoreMix::kVectorOnly, 1, 1, "", "loop: jmp off=loop\nend\n"));
  ASSERT_TRUE(id.ok()) << id.status();
  LaunchOptions opt;
  opt.instr_budget = 10000;
  auto r = dev.Launch(*id, {}, opt);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(HasFinding(*r, FindingKind::kBudget));
}

// T tiles of 4096 bytes: y = x + 1, double-buffered with flags or serialised by barrier all.
std::string Stream(int tiles, bool double_buffer) {
  std::string s = "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\n";
  if (double_buffer) s += Flag("set_flag", "mte3", "mte2", 0) + Flag("set_flag", "mte3", "mte2", 1);
  for (int i = 0; i < tiles; ++i) {
    const int b = i % 2;
    const std::string in = std::to_string(b * 4096), out = std::to_string(8192 + b * 4096);
    const std::string off = std::to_string(i * 4096);
    if (double_buffer) s += Flag("wait_flag", "mte3", "mte2", b);
    s += Load(in.c_str(), ("r1+" + off).c_str());
    s += double_buffer ? Flag("set_flag", "mte2", "v", b) + Flag("wait_flag", "mte2", "v", b)
                       : "barrier pipe=all\n";
    s += "vadds dst=" + out + ", src=" + in +
         ", scalar=0x3f800000, repeat=16, mask=128, dst_blk=1, src_blk=1, dst_rep=8, src_rep=8, "
         "dtype=f16\n";
    s += double_buffer ? Flag("set_flag", "v", "mte3", b) + Flag("wait_flag", "v", "mte3", b)
                       : "barrier pipe=all\n";
    s += Store(("r2+" + off).c_str(), out.c_str());
    s += double_buffer ? Flag("set_flag", "mte3", "mte2", b) : "barrier pipe=all\n";
  }
  if (double_buffer)
    s += Flag("wait_flag", "mte3", "mte2", 0) + Flag("wait_flag", "mte3", "mte2", 1);
  return s + "end\n";
}

TEST(SimVector, DoubleBufferedProgramIsFasterThanBarrierAllAndBothAreCorrect) {
  constexpr int kTiles = 8;
  uint64_t cycles[2] = {0, 0};
  for (int db = 0; db < 2; ++db) {
    SimDevice dev;
    std::vector<float> x(kTiles * kN);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 31);
    Tensor tx = Input(dev, ElementType::kFloat16, {kTiles * kN}, HalfBytes(x), "x");
    Tensor ty = Output(dev, ElementType::kFloat16, {kTiles * kN}, "y");
    auto id = dev.LoadImage(Image(CoreMix::kVectorOnly, 1, 1, "", Stream(kTiles, db == 1)));
    ASSERT_TRUE(id.ok()) << id.status();
    const uint64_t args[] = {tx.addr, ty.addr};
    auto r = dev.Launch(*id, args, LaunchOptions{});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->status.ok()) << AllFindings(*r);
    const std::vector<float> y = FromHalf(Read(dev, ty));
    for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], x[i] + 1.0f) << i;
    cycles[db] = r->kernel_cycles;
    // Roofline = the block's largest summed pipe occupancy; efficiency <= 1.
    const BlockReport& b = r->blocks.at(0);
    uint64_t largest = 0;
    for (const PipeBusy& p : b.pipes) largest = std::max(largest, p.busy_cycles);
    EXPECT_EQ(b.roofline_cycles, largest);
    EXPECT_LE(b.roofline_cycles, b.span_cycles);
  }
  EXPECT_LT(cycles[1], cycles[0]);
}

TEST(SimVector, BlocksWritingTheSameGmBytesAreAnInterBlockRace) {
  // Every block adds x + y into the same z: the tiling forgot the block offset.
  SimDevice dev;
  std::vector<float> x(kN, 1.0f);
  Tensor tx = Input(dev, ElementType::kFloat16, {kN}, HalfBytes(x), "x");
  Tensor tz = Output(dev, ElementType::kFloat16, {kN}, "z");
  auto id = dev.LoadImage(Image(CoreMix::kVectorOnly, 1, 3, "", VectorAdd(true)));
  ASSERT_TRUE(id.ok()) << id.status();
  const uint64_t args[] = {tx.addr, tx.addr, tz.addr};
  auto r = dev.Launch(*id, args, LaunchOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(HasFinding(*r, FindingKind::kRace, "inter-block")) << AllFindings(*r);
  EXPECT_TRUE(HasFinding(*r, FindingKind::kRace, "tensor 'z'")) << AllFindings(*r);
  // The same kernel on one block is clean.
  auto one = dev.LoadImage(Image(CoreMix::kVectorOnly, 1, 1, "", VectorAdd(true)));
  ASSERT_TRUE(one.ok());
  auto r1 = dev.Launch(*one, args, LaunchOptions{});
  ASSERT_TRUE(r1.ok());
  EXPECT_TRUE(r1->status.ok()) << AllFindings(*r1);
}

TEST(SimVector, BlocksBeyondTheGroupCountRunInWaves) {
  SimDevice dev;
  const std::string p = "li rd=r1, imm64=1\nend\n";
  auto id = dev.LoadImage(Image(CoreMix::kVectorOnly, 2, 100, "", p));
  ASSERT_TRUE(id.ok());
  auto r = dev.Launch(*id, {}, LaunchOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->waves, 5);  // 24 groups x 2 AIVs / 2 per block = 24 blocks per wave
  EXPECT_EQ(r->blocks.size(), 100u);
}

}  // namespace
}  // namespace tilejit::runner::sim
