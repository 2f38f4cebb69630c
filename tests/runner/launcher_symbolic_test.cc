// SPDX-License-Identifier: Apache-2.0
// Dynamic shapes through the command-line launchers: the hand-built copy_rows binary written to
// a file and run by `tilejit-run` and by the offline `tilejit run kernel.o`, at several M, and a
// static-dim mismatch reported by both.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "runner/npy.h"
#include "tests/runner/symbolic_kernel.h"

namespace tilejit::runner {
namespace {

namespace fs = std::filesystem;

struct Output {
  int status = -1;
  std::string text;
};

Output RunShell(const std::string& cmd) {
  Output o;
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return o;
  char buf[256];
  while (fgets(buf, sizeof(buf), pipe) != nullptr) o.text += buf;
  o.status = pclose(pipe);
  return o;
}

class LauncherSymbolic : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tilejit_sym_" + std::to_string(::getpid()) + (GetParam() ? "_cli" : "_run"));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
    const std::vector<uint8_t> file = tilejit::testing::CopyRowsFile();
    ASSERT_FALSE(file.empty());
    std::ofstream(dir_ / "rows.o", std::ios::binary)
        .write(reinterpret_cast<const char*>(file.data()),
               static_cast<std::streamsize>(file.size()));
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs the launcher on A = `a`; returns its output.
  Output Launch(const NpyArray& a) {
    EXPECT_TRUE(WriteNpyFile((dir_ / "a.npy").string(), a).ok());
    const std::string bin = (dir_ / "rows.o").string(), in = (dir_ / "a.npy").string();
    const std::string out = (dir_ / "out").string();
    return RunShell(GetParam() ? std::string(TILEJIT_CLI) + " run " + bin + " --in " + in +
                                     " --out " + out + " --check"
                               : std::string(TILEJIT_RUN_TOOL) + " " + bin + " " + in +
                                     " --out-dir=" + out + " --mode=checked");
  }

  fs::path dir_;
};

NpyArray Rows(int64_t m, int64_t cols = 8) {
  NpyArray a;
  a.dtype = target::ElementType::kInt32;
  a.shape = {m, cols};
  a.data = tilejit::testing::CopyRowsInput(m * cols / 8);
  a.data.resize(static_cast<size_t>(m * cols * 4));
  return a;
}

TEST_P(LauncherSymbolic, CopiesEveryRowAtEveryM) {
  for (int64_t m : {7, 100, 0}) {
    const NpyArray a = Rows(m);
    const Output o = Launch(a);
    ASSERT_EQ(o.status, 0) << o.text;
    EXPECT_NE(o.text.find("symbols: M=" + std::to_string(m) + " (" + std::to_string((m + 63) / 64) +
                          " block(s))"),
              std::string::npos)
        << o.text;
    auto out = ReadNpyFile((dir_ / "out" / "out0.npy").string());
    ASSERT_TRUE(out.ok()) << out.status() << "\n" << o.text;
    EXPECT_EQ(out->shape, a.shape);
    EXPECT_EQ(out->data, a.data) << "M=" << m;
  }
}

TEST_P(LauncherSymbolic, StaticDimMismatchIsNamed) {
  const Output o = Launch(Rows(4, 9));
  EXPECT_NE(o.status, 0);
  EXPECT_NE(o.text.find("A: dim 1 is 9 but the kernel was compiled for 8"), std::string::npos)
      << o.text;
}

INSTANTIATE_TEST_SUITE_P(Tools, LauncherSymbolic, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "cli" : "run_tool"; });

}  // namespace
}  // namespace tilejit::runner
