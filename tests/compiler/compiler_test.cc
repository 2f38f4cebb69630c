// SPDX-License-Identifier: Apache-2.0
// The compiler entry (compiler.h) and the pipeline loop (pipeline.h): options, fingerprint,
// determinism across processes and threads, and the back end's user-facing diagnostics.
#include "compiler/compiler.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "compiler/pipeline.h"
#include "frontend/frontend_test_util.h"

namespace tilejit::compiler {
namespace {

using frontend::fetest::CaseRequest;
using frontend::fetest::LoadCases;

struct Outcome {
  Result<CompiledKernel> kernel = Internal("not run");
  std::string diagnostics;
};

Outcome CompileRequestText(const frontend::FrontendRequest& req, PipelineOptions options = {}) {
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  Outcome o;
  o.kernel = Compile({req, options}, &sources, &diag);
  o.diagnostics = diag.RenderAll();
  return o;
}

// The kernels of cases.json this issue's back end compiles (Expert, cube-only, vector-only).
std::vector<frontend::fetest::KernelCase> BackEndCases() {
  std::vector<frontend::fetest::KernelCase> out;
  for (auto& c : LoadCases()) {
    if (c.file.find("expert") != std::string::npos ||
        c.file.find("missing_sync") != std::string::npos) {
      out.push_back(c);
    }
  }
  return out;
}

TEST(Pipeline, FingerprintListsEveryPassInOrderWithItsVersion) {
  std::string fp = PipelineFingerprint();
  size_t pos = 0;
  for (const PassInfo& p : PassTable()) {
    std::string entry = std::string(p.name) + "@" + std::to_string(p.version);
    size_t at = fp.find(entry, pos);
    ASSERT_NE(at, std::string::npos) << fp;
    pos = at + entry.size();
  }
  EXPECT_NE(CompilerFingerprint().find(fp), std::string::npos);
}

TEST(Pipeline, DocsListEveryPassOfTheTableInOrder) {
  std::ifstream in(std::string(TILEJIT_SOURCE_DIR) + "/docs/pipeline.md");
  ASSERT_TRUE(in) << "docs/pipeline.md missing";
  std::vector<std::string> headings;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("### ", 0) == 0) headings.push_back(line.substr(4));
  }
  std::vector<std::string> expected;
  int i = 0;
  for (const PassInfo& p : PassTable()) {
    expected.push_back(std::to_string(++i) + ". " + std::string(p.name) + " (v" +
                       std::to_string(p.version) + ")");
  }
  EXPECT_EQ(headings, expected);
}

TEST(Pipeline, PrintAfterAllDumpsEveryPassAndStopAfterStops) {
  auto cases = BackEndCases();
  ASSERT_FALSE(cases.empty());
  Outcome all = CompileRequestText(CaseRequest(cases[0]), {{"all"}, "", true, true, nullptr});
  ASSERT_TRUE(all.kernel.ok()) << all.diagnostics << all.kernel.status();
  EXPECT_EQ(all.kernel->ir_dumps.size(), all.kernel->passes.size());
  EXPECT_FALSE(all.kernel->binary.empty());

  Outcome stopped =
      CompileRequestText(CaseRequest(cases[0]), {{}, "legalize_copies", false, false, nullptr});
  ASSERT_TRUE(stopped.kernel.ok()) << stopped.diagnostics;
  EXPECT_TRUE(stopped.kernel->binary.empty());
  EXPECT_EQ(stopped.kernel->passes.back().pass, "legalize_copies");
}

TEST(Pipeline, InterruptStopsTheCompileWithItsStatus) {
  auto cases = BackEndCases();
  ASSERT_FALSE(cases.empty());
  int polls = 0;
  PipelineOptions options;
  options.time_passes = true;
  options.interrupt = [&polls] {
    return ++polls > 3 ? DeadlineExceeded("stop here") : Status::Ok();
  };
  Outcome stopped = CompileRequestText(CaseRequest(cases[0]), options);
  ASSERT_FALSE(stopped.kernel.ok());
  EXPECT_EQ(stopped.kernel.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(stopped.kernel.status().message(), "stop here");
  // An interrupt that never fires changes nothing, and is polled more than once per pass for
  // this kernel (sync_insert polls in its analyses).
  polls = 0;
  options.interrupt = [&polls] {
    ++polls;
    return Status::Ok();
  };
  Outcome whole = CompileRequestText(CaseRequest(cases[0]), options);
  ASSERT_TRUE(whole.kernel.ok()) << whole.diagnostics << whole.kernel.status();
  Outcome plain = CompileRequestText(CaseRequest(cases[0]), {});
  ASSERT_TRUE(plain.kernel.ok());
  EXPECT_EQ(whole.kernel->binary, plain.kernel->binary);
  EXPECT_GT(polls, static_cast<int>(whole.kernel->passes.size()));
}

TEST(Pipeline, UnknownPassNamesInOptionsAreInvalidArguments) {
  auto cases = BackEndCases();
  ASSERT_FALSE(cases.empty());
  Outcome o =
      CompileRequestText(CaseRequest(cases[0]), {{"no_such_pass"}, "", false, false, nullptr});
  ASSERT_FALSE(o.kernel.ok());
  EXPECT_EQ(o.kernel.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(o.kernel.status().message().find("no_such_pass"), std::string::npos);
}

TEST(Compiler, SameRequestGivesIdenticalBinariesInEightThreads) {
  for (const auto& c : BackEndCases()) {
    Outcome first = CompileRequestText(CaseRequest(c));
    ASSERT_TRUE(first.kernel.ok()) << c.name << "\n" << first.diagnostics;
    std::vector<std::vector<uint8_t>> binaries(8);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < binaries.size(); ++i) {
      threads.emplace_back([&, i] {
        Outcome o = CompileRequestText(CaseRequest(c));
        if (o.kernel.ok()) binaries[i] = o.kernel->binary;
      });
    }
    for (auto& t : threads) t.join();
    for (const auto& b : binaries) EXPECT_EQ(b, first.kernel->binary) << c.name;
  }
}

TEST(Compiler, KeyDependsOnTheFingerprintNotOnTheSourceText) {
  auto cases = BackEndCases();
  ASSERT_FALSE(cases.empty());
  frontend::FrontendRequest a = CaseRequest(cases[0]);
  frontend::FrontendRequest b = a;
  b.source = "# a comment that changes every line number\n\n" + b.source;
  Outcome oa = CompileRequestText(a), ob = CompileRequestText(b);
  ASSERT_TRUE(oa.kernel.ok() && ob.kernel.ok()) << oa.diagnostics << ob.diagnostics;
  EXPECT_EQ(oa.kernel->key, ob.kernel->key);
  EXPECT_EQ(oa.kernel->binary, ob.kernel->binary);
  // Each request keeps its own source map: the same statement, two lines apart.
  ASSERT_EQ(oa.kernel->source_map.size(), ob.kernel->source_map.size());
  for (size_t i = 0; i < oa.kernel->source_map.size(); ++i) {
    if (oa.kernel->source_map[i].known()) {
      EXPECT_EQ(ob.kernel->source_map[i].line, oa.kernel->source_map[i].line + 2);
    }
  }
}

}  // namespace
}  // namespace tilejit::compiler
