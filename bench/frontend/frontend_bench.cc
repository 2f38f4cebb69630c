// SPDX-License-Identifier: Apache-2.0
// bench/frontend: the median time of the whole frontend (parse, evaluate, trace, print and
// hash) per shared kernel. bench/frontend/run.sh sets it beside CPython's ast.parse of the
// same text, measured in the same run.
//
// Usage: frontend_bench KERNELS_DIR [ROUNDS] [CALLS_PER_ROUND]
// Prints one line per case: "<file> <entry> <median seconds per call>".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "bench/bench_cases.h"
#include "common/diagnostic.h"
#include "common/source_loc.h"
#include "compiler/frontend/frontend.h"

namespace {

using tilejit::frontend::FrontendRequest;

// Runs the frontend once; returns false (after printing diagnostics) if it fails.
bool RunOnce(const FrontendRequest& request) {
  tilejit::SourceManager sources;
  tilejit::DiagnosticEngine diag(&sources);
  auto result = tilejit::frontend::RunFrontend(request, &sources, &diag);
  if (!result.ok()) {
    std::cerr << diag.RenderAll();
    return false;
  }
  return !result->ir_hash.empty();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: frontend_bench KERNELS_DIR [ROUNDS] [CALLS_PER_ROUND]\n";
    return 2;
  }
  const std::string dir = argv[1];
  const int rounds = argc > 2 ? std::stoi(argv[2]) : 15;
  const int calls = argc > 3 ? std::stoi(argv[3]) : 200;
  auto cases = tilejit::bench::LoadBenchCases(dir);
  if (!cases.ok()) {
    std::cerr << cases.status().ToString() << "\n";
    return 1;
  }
  for (const tilejit::bench::BenchCase& c : *cases) {
    FrontendRequest request;
    request.file_name = c.file;
    request.source = tilejit::bench::ReadBenchFile(dir + "/" + c.file);
    request.entry = c.entry;
    request.args = c.args;
    if (!RunOnce(request)) return 1;  // also the warm-up
    std::vector<double> per_call;
    for (int r = 0; r < rounds; ++r) {
      auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < calls; ++i) RunOnce(request);
      std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      per_call.push_back(elapsed.count() / calls);
    }
    std::sort(per_call.begin(), per_call.end());
    std::printf("%s %s %.9f\n", request.file_name.c_str(), request.entry.c_str(),
                per_call[per_call.size() / 2]);
  }
  return 0;
}
