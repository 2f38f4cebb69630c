// SPDX-License-Identifier: Apache-2.0
// End-to-end through the binary format: assemble -> encode -> WriteKernelBinary ->
// SimDevice::LoadBinary -> RunKernel with .npy-style arrays (TileLang allocation convention).
#include "runner/runner.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "compiler/target/binary.h"
#include "runner/npy.h"
#include "tests/runner/sim_test_util.h"

namespace tilejit::runner {
namespace {

using sim::testing::Asm;
using sim::testing::FromHalf;
using sim::testing::HalfBytes;
using target::ElementType;

constexpr char kAddProgram[] =
    "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\nld_arg rd=r3, arg=2\n"
    "copy_gm_ub dst=0, src=r1, nburst=1, len=512, src_stride=0, dst_stride=0, pad=0, padval=0, "
    "dtype=f16\n"
    "copy_gm_ub dst=512, src=r2, nburst=1, len=512, src_stride=0, dst_stride=0, pad=0, padval=0, "
    "dtype=f16\n"
    "set_flag spipe=mte2, dpipe=v, event=0\nwait_flag spipe=mte2, dpipe=v, event=0\n"
    "vadd dst=1024, src=0, src1=512, repeat=2, mask=128, dst_blk=1, src_blk=1, src1_blk=1, "
    "dst_rep=8, src_rep=8, src1_rep=8, dtype=f16\n"
    "set_flag spipe=v, dpipe=mte3, event=0\nwait_flag spipe=v, dpipe=mte3, event=0\n"
    "copy_ub_gm dst=r3, src=1024, nburst=1, len=512, src_stride=0, dst_stride=0, atomic=none, "
    "dtype=f16\nend\n";

std::vector<uint8_t> AddBinary() {
  target::KernelBinary bin;
  auto& m = bin.metadata;
  m.kernel_name = "vadd";
  m.target = "ascend910b2";
  for (const char* name : {"x", "y", "z"}) {
    target::KernelParam p;
    p.name = name;
    p.shape = {256};
    p.dtype = ElementType::kFloat16;
    p.role = std::string(name) == "z" ? target::ParamRole::kOutput : target::ParamRole::kInput;
    m.params.push_back(p);
  }
  m.out_idx = {2};
  m.block_count = 1;
  m.core_mix = target::CoreMix::kVectorOnly;
  m.vector_cores_per_block = 1;
  const auto code = Asm(kAddProgram);
  auto words = target::EncodeProgram(code);
  EXPECT_TRUE(words.ok()) << words.status();
  for (uint64_t w : *words) {
    for (int b = 0; b < 8; ++b) bin.aiv.code.push_back(static_cast<uint8_t>(w >> (8 * b)));
  }
  for (size_t i = 0; i < code.size(); ++i)
    bin.aiv.line_table.push_back(100 + static_cast<uint32_t>(i));
  auto bytes = target::WriteKernelBinary(bin);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return *bytes;
}

NpyArray HalfArray(const std::vector<float>& v) {
  NpyArray a;
  a.dtype = ElementType::kFloat16;
  a.shape = {static_cast<int64_t>(v.size())};
  a.data = HalfBytes(v);
  return a;
}

TEST(RunKernel, RunsABinaryWithInputsOnlyAndReturnsOutputs) {
  sim::SimDevice dev;
  auto id = dev.LoadBinary(AddBinary());
  ASSERT_TRUE(id.ok()) << id.status();
  std::vector<float> x(256), y(256);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(i), y[i] = 0.5f;
  const NpyArray inputs[] = {HalfArray(x), HalfArray(y)};
  LaunchOptions opt;
  opt.trace = true;
  auto run = RunKernel(dev, *id, inputs, opt);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_TRUE(run->report.status.ok()) << run->report.status;
  ASSERT_EQ(run->outputs.size(), 1u);
  const std::vector<float> z = FromHalf(run->outputs[0].data);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(z[i], x[i] + 0.5f);
  bool vadd_stmt = false;  // line table entries come from the binary
  for (const auto& row : run->report.line_cycles) vadd_stmt |= row.stmt == 107 && row.count == 1;
  EXPECT_TRUE(vadd_stmt);
  EXPECT_EQ(dev.gm().bytes_allocated(), 0u);  // everything freed
}

TEST(RunKernel, RejectsWrongInputsClearly) {
  sim::SimDevice dev;
  auto id = dev.LoadBinary(AddBinary());
  ASSERT_TRUE(id.ok());
  const NpyArray one[] = {HalfArray(std::vector<float>(256))};
  EXPECT_EQ(RunKernel(dev, *id, one, {}).status().code(), StatusCode::kInvalidArgument);
  const NpyArray wrong_shape[] = {HalfArray(std::vector<float>(255)),
                                  HalfArray(std::vector<float>(256))};
  auto r = RunKernel(dev, *id, wrong_shape, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'x'"), std::string::npos) << r.status();
}

// The tilejit-run tool end to end: a binary and .npy inputs on disk, DIR/out0.npy back, a
// summary on stdout, exit 0 for a clean launch.
TEST(RunTool, RunsABinaryFileOnNpyInputsAndWritesOutputs) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "tilejit_run_tool";
  fs::remove_all(dir);
  fs::create_directories(dir / "out");
  const std::vector<uint8_t> bin = AddBinary();
  std::ofstream(dir / "vadd.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(bin.data()), static_cast<std::streamsize>(bin.size()));
  std::vector<float> x(256), y(256);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(i % 64), y[i] = -1.0f;
  ASSERT_TRUE(WriteNpyFile((dir / "x.npy").string(), HalfArray(x)).ok());
  ASSERT_TRUE(WriteNpyFile((dir / "y.npy").string(), HalfArray(y)).ok());
  const std::string cmd = std::string(TILEJIT_RUN_TOOL) + " " + (dir / "vadd.bin").string() + " " +
                          (dir / "x.npy").string() + " " + (dir / "y.npy").string() +
                          " --out-dir=" + (dir / "out").string() + " --mode=checked 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[256];
  while (fgets(buf, sizeof(buf), pipe) != nullptr) output += buf;
  EXPECT_EQ(pclose(pipe), 0) << output;
  EXPECT_NE(output.find("cycles"), std::string::npos) << output;
  EXPECT_NE(output.find("pipe utilisation: aiv0.mte2"), std::string::npos) << output;
  auto out = ReadNpyFile((dir / "out" / "out0.npy").string());
  ASSERT_TRUE(out.ok()) << out.status() << "\n" << output;
  const std::vector<float> z = FromHalf(out->data);
  ASSERT_EQ(z.size(), 256u);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(z[i], x[i] - 1.0f) << i;
}

TEST(LoadBinary, RejectsCorruptBytesWithoutCrashing) {
  sim::SimDevice dev;
  std::vector<uint8_t> bytes = AddBinary();
  for (size_t cut : {size_t{0}, size_t{10}, bytes.size() / 2, bytes.size() - 1}) {
    std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + cut);
    EXPECT_FALSE(dev.LoadBinary(truncated).ok()) << cut;
  }
}

TEST(LoadImage, RejectsInstructionsIllegalOnTheCore) {
  sim::SimDevice dev;
  // mmad is an AIC instruction; the AIV stream cannot hold it.
  auto image = sim::testing::Image(target::CoreMix::kVectorOnly, 1, 1, "",
                                   "mmad dst=0, src=0, src1=0, m=16, n=16, k=16, init=1, "
                                   "dtype=f16\nend\n");
  EXPECT_FALSE(dev.LoadImage(std::move(image)).ok());
}

}  // namespace
}  // namespace tilejit::runner
