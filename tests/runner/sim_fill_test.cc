// SPDX-License-Identifier: Apache-2.0
// Assembly-level tests of the constant fills fill_ub / fill_l1 (docs/isa.md section 5): the
// element pattern, scalar conversion per dtype, poisoning (filled bytes count as written,
// unfilled ones do not), race detection against a consumer on another pipe, and alignment.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/runner/sim_test_util.h"

namespace tilejit::runner::sim {
namespace {

using namespace testing;  // NOLINT
using target::CoreMix;
using target::ElementType;

struct FillRun {
  LaunchReport report;
  std::vector<uint8_t> out;
};

// Runs `body` (after `ld_arg r1` = the output's address) on one AIV or the AIC of one block
// and returns the 256-byte output.
FillRun RunFill(bool aic, const std::string& body, CheckMode mode = CheckMode::kChecked) {
  SimDevice dev;
  Tensor out = Output(dev, ElementType::kUInt8, {256}, "out");
  const std::string program = "ld_arg rd=r1, arg=0\n" + body + "end\n";
  auto id = dev.LoadImage(aic ? Image(CoreMix::kCubeOnly, 0, 1, program, "")
                              : Image(CoreMix::kVectorOnly, 1, 1, "", program));
  EXPECT_TRUE(id.ok()) << id.status();
  LaunchOptions opt;
  opt.mode = mode;
  const uint64_t args[] = {out.addr};
  auto r = dev.Launch(*id, args, opt);
  EXPECT_TRUE(r.ok()) << r.status();
  return {*r, Read(dev, out)};
}

const char kToMte3[] =
    "set_flag spipe=mte2, dpipe=mte3, event=0\n"
    "wait_flag spipe=mte2, dpipe=mte3, event=0\n";
const char kStoreUb[] =
    "copy_ub_gm dst=r1, src=0, nburst=1, len=256, src_stride=0, dst_stride=0, atomic=none, "
    "dtype=u8\n";
const char kStoreL1[] = "copy_l1_gm dst=r1, src=0, nburst=1, len=256, src_stride=0, dst_stride=0\n";

uint16_t U16(const std::vector<uint8_t>& b, size_t i) {
  uint16_t v;
  std::memcpy(&v, &b[i * 2], 2);
  return v;
}

TEST(SimFill, FillUbRepeatsTheF16ElementAndIsCleanWhenFlagged) {
  // 1.0f as fp32 bits; two bursts of 128 B at stride 128 cover the 256 bytes.
  FillRun run = RunFill(false,
                        "fill_ub dst=0, nburst=2, len=128, dst_stride=128, scalar=1065353216, "
                        "dtype=f16\n" +
                            std::string(kToMte3) + kStoreUb);
  EXPECT_TRUE(run.report.status.ok()) << AllFindings(run.report);
  EXPECT_TRUE(run.report.findings.empty()) << AllFindings(run.report);
  for (size_t i = 0; i < 128; ++i) ASSERT_EQ(U16(run.out, i), 0x3c00) << i;
}

TEST(SimFill, FillUbConvertsTheScalarPerDtype) {
  // -2.5f to bf16 is 0xc020; the int -5 as s32 is 0xfffffffb; 300 as u8 wraps to 44.
  FillRun bf = RunFill(false,
                       "fill_ub dst=0, nburst=1, len=256, dst_stride=0, scalar=3223322624, "
                       "dtype=bf16\n" +
                           std::string(kToMte3) + kStoreUb);
  EXPECT_EQ(U16(bf.out, 0), 0xc020);
  EXPECT_EQ(U16(bf.out, 127), 0xc020);
  FillRun s32 =
      RunFill(false, "fill_ub dst=0, nburst=1, len=256, dst_stride=0, scalar=-5, dtype=s32\n" +
                         std::string(kToMte3) + kStoreUb);
  int32_t v;
  std::memcpy(&v, &s32.out[252], 4);
  EXPECT_EQ(v, -5);
  FillRun u8 =
      RunFill(false, "fill_ub dst=0, nburst=1, len=256, dst_stride=0, scalar=300, dtype=u8\n" +
                         std::string(kToMte3) + kStoreUb);
  EXPECT_EQ(u8.out[0], 44);
  EXPECT_EQ(u8.out[255], 44);
}

TEST(SimFill, BytesBetweenBurstsStayUnwrittenInCheckedMode) {
  // Bursts of 64 B at stride 128 leave [64, 128) and [192, 256) poisoned.
  FillRun run =
      RunFill(false, "fill_ub dst=0, nburst=2, len=64, dst_stride=128, scalar=0, dtype=f32\n" +
                         std::string(kToMte3) + kStoreUb);
  EXPECT_TRUE(HasFinding(run.report, FindingKind::kUninitRead, "UB byte 64"))
      << AllFindings(run.report);
}

TEST(SimFill, UnflaggedStoreAfterFillIsARace) {
  FillRun run =
      RunFill(false, "fill_ub dst=0, nburst=1, len=256, dst_stride=0, scalar=0, dtype=f32\n" +
                         std::string(kStoreUb));
  EXPECT_TRUE(HasFinding(run.report, FindingKind::kRace)) << AllFindings(run.report);
}

TEST(SimFill, FillL1OnTheCubeCoreFeedsCopyL1Gm) {
  // 0.5f = 0x3f000000; f32 elements.
  FillRun run = RunFill(true,
                        "fill_l1 dst=0, nburst=1, len=256, dst_stride=0, scalar=1056964608, "
                        "dtype=f32\n" +
                            std::string(kToMte3) + kStoreL1);
  EXPECT_TRUE(run.report.findings.empty()) << AllFindings(run.report);
  std::vector<float> f = FromF32(run.out);
  for (float x : f) ASSERT_EQ(x, 0.5f);
}

TEST(SimFill, MisalignedFillIsReported) {
  FillRun run =
      RunFill(false, "fill_ub dst=16, nburst=1, len=32, dst_stride=0, scalar=0, dtype=f32\n");
  EXPECT_TRUE(HasFinding(run.report, FindingKind::kMisaligned)) << AllFindings(run.report);
}

TEST(SimFill, FillUbIsIllegalOnTheCubeCore) {
  auto r =
      target::Assemble("fill_ub dst=0, nburst=1, len=32, dst_stride=0, scalar=0, dtype=f32\nend\n");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(target::ValidateProgram(*r, target::CoreType::kAic, target::Ascend910B2()).ok());
  EXPECT_TRUE(target::ValidateProgram(*r, target::CoreType::kAiv, target::Ascend910B2()).ok());
}

TEST(SimFill, SixtyFourBitElementsAreRejected) {
  EXPECT_FALSE(
      target::Assemble("fill_ub dst=0, nburst=1, len=32, dst_stride=0, scalar=0, dtype=s64\n")
          .ok());
}

}  // namespace
}  // namespace tilejit::runner::sim
