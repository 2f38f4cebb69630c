// SPDX-License-Identifier: Apache-2.0
// Shared plumbing of the Developer-kernel tests: compile Tile IR text or a TileLang file
// in-process with given pass configs, launch on a fresh simulated device, convert between
// runner arrays and interpreter tensors, and compare outputs.
//
//   Result<Compiled> c = CompileTileIr(k.ir_text, DeveloperPassConfigs());
//   Result<runner::RunResult> run = Launch(c->kernel.binary, inputs, {.mode = kChecked});
//
// Thread safety: every function is reentrant (each call has its own device and diagnostics).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/result.h"
#include "compiler/compiler.h"
#include "runner/npy.h"
#include "runner/runner.h"
#include "tile_interp.h"

namespace tilejit::devgen {

// The four Developer switches, all on.
frontend::NamedValues DeveloperPassConfigs();

struct Compiled {
  compiler::CompiledKernel kernel;
  ir::Kernel frontend_kernel;  // the canonical frontend IR, reparsed from kernel.ir_text
  std::string diagnostics;     // every rendered diagnostic (warnings too)
};

// Compiles Tile IR text (format tile_ir). On failure the status message carries the
// rendered diagnostics.
Result<Compiled> CompileTileIr(const std::string& text, const frontend::NamedValues& configs,
                               const compiler::PipelineOptions& options = {});
// Compiles a TileLang file with positional args.
Result<Compiled> CompileTileLang(const std::string& path, const std::string& entry,
                                 const std::vector<frontend::Value>& args,
                                 const compiler::PipelineOptions& options = {});

// Loads `binary` on a fresh SimDevice and runs it (inputs in input-param order).
Result<runner::RunResult> Launch(const std::vector<uint8_t>& binary,
                                 const std::vector<runner::NpyArray>& inputs,
                                 const runner::LaunchOptions& options);

runner::NpyArray ToNpy(ir::DType dtype, const std::vector<int64_t>& shape,
                       const std::vector<float>& values);
HostTensor ToHost(ir::DType dtype, const std::vector<int64_t>& shape,
                  const std::vector<float>& values);
std::vector<float> ToFloats(const runner::NpyArray& a);

// One line per finding: "race: ...".
std::string FindingsText(const runner::LaunchReport& report);

// Compares every output elementwise: |got - want| <= atol + rtol * |want|, where atol is
// `atol_scale` times the largest |want| of that output (at least 1). Reports the first
// mismatches.
::testing::AssertionResult OutputsMatch(const std::vector<HostTensor>& want,
                                        const std::vector<runner::NpyArray>& got, double rtol,
                                        double atol_scale);

}  // namespace tilejit::devgen
