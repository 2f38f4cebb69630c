// SPDX-License-Identifier: Apache-2.0
// Helpers for codegen tests: lowered Tile IR text -> Codegen -> ELF bytes -> the simulated
// device, plus .npy builders and float comparisons.
//
//   auto run = RunIr(R"(
//   param %p0: gm float32[64] input
//   param %p1: gm float32[64] output
//   out_idx = [1]
//   workspace_idx = []
//   launch(1, threads=1) (%cid, %vid) {
//     alloc %ub_0: ub float32[64] @0
//     scope vector {
//       copy(%ub_0, %p0)
//       ...
//     }
//   })", {F32({64}, input)});
//   ASSERT_TRUE(run.ok()) << run.status();
//   ExpectNoFindings(run->report);
//   EXPECT_TRUE(AllClose(ToFloats(run->outputs[0]), want, 1e-5, 1e-6));
//
// The kernel is used both as the lowered kernel and as the frontend kernel (so line-table
// ids are the canonical ids of the IR text's own statements). Header-only; not thread-safe
// per call beyond what SimDevice allows (each RunIr uses its own device).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"
#include "common/source_loc.h"
#include "compiler/codegen/codegen.h"
#include "compiler/ir/ir_parser.h"
#include "compiler/target/asm.h"
#include "compiler/target/binary.h"
#include "compiler/target/isa.h"
#include "compiler/target/npu_target.h"
#include "runner/npy.h"
#include "runner/runner.h"
#include "runner/sim/half.h"
#include "runner/sim/sim_device.h"

namespace tilejit::codegen::testing {

// Parses `ir_text` and runs Codegen on it. On failure the status message holds every rendered
// diagnostic (file "<tile_ir>", so messages read "<tile_ir>:LINE:COL: error: ...").
inline Result<target::KernelBinary> CompileIr(
    std::string_view ir_text, const target::NpuTarget& npu = target::Ascend910B2()) {
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  auto kernel = ir::ParseTileIr(ir_text, &sources, &diag);
  if (!kernel.ok()) return Status(kernel.status().code(), diag.RenderAll());
  CodegenInput in;
  in.kernel = &*kernel;
  in.frontend_kernel = &*kernel;
  in.target = &npu;
  in.compiler_fingerprint = "test";
  in.cache_key = "test-key";
  auto binary = Codegen(in, &diag);
  if (!binary.ok()) {
    std::string text = diag.RenderAll();
    if (text.empty()) text = binary.status().ToString();
    return Status(binary.status().code(), text);
  }
  return binary;
}

// The decoded program of one core type of a binary (empty if the core type is unused).
inline std::vector<target::Instr> Program(const target::KernelBinary& b, target::CoreType core) {
  const auto& code = core == target::CoreType::kAic ? b.aic.code : b.aiv.code;
  std::vector<uint64_t> words(code.size() / 8);
  if (!words.empty()) std::memcpy(words.data(), code.data(), words.size() * 8);
  auto prog = target::DecodeProgram(words);
  EXPECT_TRUE(prog.ok()) << prog.status();
  return prog.ok() ? *prog : std::vector<target::Instr>{};
}

// Disassembly of one core type's program, one instruction per line.
inline std::string Disasm(const target::KernelBinary& b, target::CoreType core) {
  return target::DisassembleProgram(Program(b, core));
}

// Number of instructions with opcode `op` in one core type's program.
inline int CountOp(const target::KernelBinary& b, target::CoreType core, target::Opcode op) {
  int n = 0;
  for (const auto& in : Program(b, core)) n += in.op == op ? 1 : 0;
  return n;
}

struct IrRun {
  target::KernelBinary binary;
  runner::LaunchReport report;
  std::vector<runner::NpyArray> outputs;  // out_idx order
};

// CompileIr, then WriteKernelBinary -> SimDevice::LoadBinary -> RunKernel with `inputs` (the
// input params in order). A non-OK result means compile/load/launch failed; kernel problems
// are findings in report (see ExpectNoFindings).
inline Result<IrRun> RunIr(std::string_view ir_text, const std::vector<runner::NpyArray>& inputs,
                           runner::LaunchOptions options = {},
                           const target::NpuTarget& npu = target::Ascend910B2()) {
  IrRun run;
  TILEJIT_ASSIGN_OR_RETURN(run.binary, CompileIr(ir_text, npu));
  TILEJIT_ASSIGN_OR_RETURN(auto bytes, target::WriteKernelBinary(run.binary));
  runner::sim::SimDevice device(npu);
  TILEJIT_ASSIGN_OR_RETURN(auto id, device.LoadBinary(bytes));
  if (options.host_threads == 0) options.host_threads = 2;
  TILEJIT_ASSIGN_OR_RETURN(auto result, runner::RunKernel(device, id, inputs, options));
  run.report = std::move(result.report);
  run.outputs = std::move(result.outputs);
  return run;
}

// ---- arrays ------------------------------------------------------------------------------

inline runner::NpyArray F32(std::vector<int64_t> shape, const std::vector<float>& v) {
  runner::NpyArray a;
  a.dtype = target::ElementType::kFloat32;
  a.shape = std::move(shape);
  a.data.resize(v.size() * 4);
  if (!v.empty()) std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

inline runner::NpyArray F16(std::vector<int64_t> shape, const std::vector<float>& v) {
  runner::NpyArray a;
  a.dtype = target::ElementType::kFloat16;
  a.shape = std::move(shape);
  a.data.resize(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint16_t h = runner::sim::FloatToHalf(v[i]);
    std::memcpy(&a.data[i * 2], &h, 2);
  }
  return a;
}

inline runner::NpyArray I32(std::vector<int64_t> shape, const std::vector<int32_t>& v) {
  runner::NpyArray a;
  a.dtype = target::ElementType::kInt32;
  a.shape = std::move(shape);
  a.data.resize(v.size() * 4);
  if (!v.empty()) std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

// The elements of a float32, float16 or bfloat16 array as floats (empty + test failure for
// other types).
inline std::vector<float> ToFloats(const runner::NpyArray& a) {
  std::vector<float> out;
  const size_t n = static_cast<size_t>(a.ElementCount());
  if (a.dtype == target::ElementType::kFloat32) {
    out.resize(n);
    std::memcpy(out.data(), a.data.data(), n * 4);
  } else if (a.dtype == target::ElementType::kFloat16 ||
             a.dtype == target::ElementType::kBFloat16) {
    out.resize(n);
    for (size_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, &a.data[i * 2], 2);
      out[i] = a.dtype == target::ElementType::kFloat16 ? runner::sim::HalfToFloat(h)
                                                        : runner::sim::Bf16ToFloat(h);
    }
  } else {
    ADD_FAILURE() << "ToFloats: not a float array";
  }
  return out;
}

// The elements of an int32 array.
inline std::vector<int32_t> ToInt32(const runner::NpyArray& a) {
  std::vector<int32_t> out;
  if (a.dtype != target::ElementType::kInt32) {
    ADD_FAILURE() << "ToInt32: not an int32 array";
    return out;
  }
  out.resize(static_cast<size_t>(a.ElementCount()));
  std::memcpy(out.data(), a.data.data(), out.size() * 4);
  return out;
}

// Values rounded through fp16 (to build fp16 references from float math).
inline std::vector<float> RoundToHalf(const std::vector<float>& v) {
  std::vector<float> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = runner::sim::HalfToFloat(runner::sim::FloatToHalf(v[i]));
  return out;
}

// ---- checks ------------------------------------------------------------------------------

inline std::string FindingsText(const runner::LaunchReport& r) {
  std::string s;
  for (const auto& f : r.findings)
    s += std::string(runner::FindingKindName(f.kind)) + ": " + f.message + "\n";
  return s;
}

// Fails the test when the launch reported any finding (race, fault, uninit read, ...).
inline void ExpectNoFindings(const runner::LaunchReport& r) {
  EXPECT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(r.findings.empty()) << FindingsText(r);
}

// |got - want| <= atol + rtol * |want| elementwise (NaNs must match); sizes must agree.
// Reports the first few mismatches.
inline ::testing::AssertionResult AllClose(const std::vector<float>& got,
                                           const std::vector<float>& want, double rtol,
                                           double atol) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure()
           << "size mismatch: got " << got.size() << ", want " << want.size();
  }
  std::ostringstream bad;
  int mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    bool ok;
    if (std::isnan(w) || std::isnan(g)) {
      ok = std::isnan(w) && std::isnan(g);
    } else if (std::isinf(w) || std::isinf(g)) {
      ok = g == w;
    } else {
      ok = std::fabs(g - w) <= atol + rtol * std::fabs(w);
    }
    if (!ok && ++mismatches <= 8) bad << "\n  [" << i << "] got " << g << ", want " << w;
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << mismatches << " of " << got.size() << " elements differ" << bad.str();
}

}  // namespace tilejit::codegen::testing
