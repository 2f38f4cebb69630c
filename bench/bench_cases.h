// SPDX-License-Identifier: Apache-2.0
// The shared kernels' cases.json as the benchmarks read it: per case the file, the entry
// factory and its positional arguments as frontend values (bench/frontend, bench/compile).
//
//   Result<std::vector<BenchCase>> cases = LoadBenchCases(kernels_dir);
//   std::string source = ReadBenchFile(kernels_dir + "/" + (*cases)[0].file);
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "compiler/frontend/value.h"

namespace tilejit::bench {

struct BenchCase {
  std::string file;   // relative to the kernels folder, e.g. "gemm_developer.py"
  std::string entry;  // the factory, e.g. "matmul"
  std::vector<frontend::Value> args;
};

// The whole file, or "" when it cannot be read.
std::string ReadBenchFile(const std::string& path);

// Every case of kernels_dir/cases.json in file order. JSON numbers with integral values are
// ints, other numbers floats (DESIGN.md section 2). kInvalidArgument when the file is missing
// or malformed.
Result<std::vector<BenchCase>> LoadBenchCases(const std::string& kernels_dir);

}  // namespace tilejit::bench
