// SPDX-License-Identifier: Apache-2.0
// Device printing (docs/isa.md, "Device printing"): the formatting of printf and dump records
// (device_print.h), and dbg_arg / dbg_print / dbg_dump on the simulator: per-core program
// order with block and core prefixes, no race or never-written finding for a dump, faults for
// a record that does not exist.
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "runner/sim/device_print.h"
#include "tests/runner/sim_test_util.h"

namespace tilejit::runner::sim {
namespace {

using namespace testing;  // NOLINT
using target::CoreMix;
using target::ElementType;
using target::PrintKind;
using target::PrintRecord;

int64_t F32Bits(float f) { return std::bit_cast<uint32_t>(f); }

TEST(FormatPrintf, ConvertsEachSpecWithItsFlagsWidthAndPrecision) {
  const std::vector<PrintArg> args = {{-42, ElementType::kInt64},
                                      {255, ElementType::kInt32},
                                      {F32Bits(3.25f), ElementType::kFloat32},
                                      {65, ElementType::kInt64}};
  EXPECT_EQ(FormatPrintf("[%5d|%-4x|%08.3f|%c] 100%%", args), "[  -42|ff  |0003.250|A] 100%");
  EXPECT_EQ(FormatPrintf(
                "%ld %lld %zu",
                {{{7, ElementType::kInt64}, {8, ElementType::kInt64}, {9, ElementType::kInt64}}}),
            "7 8 9");  // length modifiers are accepted and ignored
}

TEST(FormatPrintf, MixedTypesMissingArgumentsAndUnknownConversions) {
  // An integer conversion of a float truncates toward zero; a float one of an integer shows it.
  EXPECT_EQ(
      FormatPrintf("%d %g", {{{F32Bits(-2.75f), ElementType::kFloat32}, {3, ElementType::kInt64}}}),
      "-2 3");
  EXPECT_EQ(FormatPrintf("%d and %d", {{{1, ElementType::kInt64}}}), "1 and <missing>");
  EXPECT_EQ(FormatPrintf("%y %", {}), "%y %");
  EXPECT_EQ(FormatPrintf("%999999d", {{{5, ElementType::kInt64}}}).size(), 256u);  // clipped
}

PrintRecord Dump(ElementType t, int64_t count, std::vector<int64_t> shape) {
  PrintRecord r;
  r.kind = PrintKind::kDump;
  r.memory = "ub";
  r.dtype = t;
  r.count = count;
  r.desc = 5;
  r.shape = std::move(shape);
  return r;
}

TEST(FormatDump, RowsFollowTheShapeAndMissingElementsAreDashes) {
  const std::vector<uint8_t> bytes = HalfBytes({1, 2, 3, 4, 5, 6});
  EXPECT_EQ(FormatDump(Dump(ElementType::kFloat16, 6, {2, 4}), 64, bytes),
            "dump desc=5 ub float16[6] at 64:\n  1 2 3 4\n  5 6 - -\n");
  EXPECT_EQ(FormatDump(Dump(ElementType::kFloat16, 6, {2, 2}), 64, bytes),
            "dump desc=5 ub float16[6] at 64:\n  1 2\n  3 4\n");
  EXPECT_EQ(FormatDump(Dump(ElementType::kFloat16, 6, {}), 0, bytes),
            "dump desc=5 ub float16[6] at 0:\n  1 2 3 4 5 6\n");
  const std::vector<uint8_t> ints = {0xff, 0xff, 0xff, 0xff, 7, 0, 0, 0};
  EXPECT_EQ(FormatDump(Dump(ElementType::kInt32, 2, {}), 0, ints),
            "dump desc=5 ub int32[2] at 0:\n  -1 7\n");
}

LaunchReport RunPrints(const std::string& aiv, std::vector<PrintRecord> prints, int blocks = 1) {
  SimDevice dev;
  KernelImage image = Image(CoreMix::kVectorOnly, 2, blocks, "", aiv);
  image.metadata.prints = std::move(prints);
  auto id = dev.LoadImage(image);
  EXPECT_TRUE(id.ok()) << id.status();
  LaunchOptions opt;
  opt.mode = CheckMode::kChecked;
  auto r = dev.Launch(*id, {}, opt);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : LaunchReport{};
}

PrintRecord Printf(std::string format, std::vector<ElementType> args) {
  PrintRecord r;
  r.format = std::move(format);
  r.args = std::move(args);
  return r;
}

TEST(SimPrint, EachCorePrintsInProgramOrderBlockAfterBlock) {
  const std::string program =
      "get_cid rd=r1\n"
      "get_vid rd=r2\n"
      "dbg_arg rs1=r1\n"
      "dbg_arg rs1=r2\n"
      "dbg_print msg=0\n"
      "dbg_print msg=1\n"
      "end\n";
  LaunchReport r = RunPrints(
      program, {Printf("b%d v%d", {ElementType::kInt64, ElementType::kInt64}), Printf("!\n", {})},
      2);
  EXPECT_TRUE(r.status.ok()) << AllFindings(r);
  EXPECT_EQ(r.device_output,
            "[block 0 aiv0] b0 v0!\n[block 0 aiv1] b0 v1!\n"
            "[block 1 aiv0] b1 v0!\n[block 1 aiv1] b1 v1!\n");
}

TEST(SimPrint, ADumpOfNeverWrittenUbIsNoFinding) {
  LaunchReport r = RunPrints("dbg_dump src=32, msg=0\nend\n", {Dump(ElementType::kInt16, 4, {})});
  EXPECT_TRUE(r.status.ok()) << AllFindings(r);
  EXPECT_EQ(r.device_output,
            "[block 0 aiv0] dump desc=5 ub int16[4] at 32:\n[block 0 aiv0]   0 0 0 0\n"
            "[block 0 aiv1] dump desc=5 ub int16[4] at 32:\n[block 0 aiv1]   0 0 0 0\n");
}

TEST(SimPrint, ARecordThatIsMissingOrOfTheOtherKindFaults) {
  LaunchReport none = RunPrints("dbg_print msg=3\nend\n", {});
  ASSERT_FALSE(none.findings.empty());
  EXPECT_NE(none.findings[0].message.find("names no printf record"), std::string::npos);
  LaunchReport wrong = RunPrints("dbg_dump src=0, msg=0\nend\n", {Printf("x", {})});
  ASSERT_FALSE(wrong.findings.empty());
  EXPECT_NE(wrong.findings[0].message.find("names no dump record"), std::string::npos);
  LaunchReport past =
      RunPrints("dbg_dump src=196600, msg=0\nend\n", {Dump(ElementType::kInt32, 4, {})});
  ASSERT_FALSE(past.findings.empty());
  EXPECT_EQ(past.findings[0].kind, FindingKind::kOutOfBounds);
}

}  // namespace
}  // namespace tilejit::runner::sim
