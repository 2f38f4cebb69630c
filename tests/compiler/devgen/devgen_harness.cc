// SPDX-License-Identifier: Apache-2.0
// The harness keeps every test's compile on its own SourceManager / DiagnosticEngine and its
// launch on its own device, so a failing kernel reports everything it has (diagnostics,
// findings) without state leaking into the next one.
#include "devgen_harness.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "compiler/ir/ir_parser.h"
#include "runner/sim/half.h"
#include "runner/sim/sim_device.h"

namespace tilejit::devgen {
namespace {

Result<Compiled> Finish(Result<compiler::CompiledKernel> k, const DiagnosticEngine& diag) {
  const std::string rendered = diag.RenderAll();
  if (!k.ok()) return Status(k.status().code(), k.status().ToString() + "\n" + rendered);
  Compiled c;
  c.diagnostics = rendered;
  c.kernel = *std::move(k);
  TILEJIT_ASSIGN_OR_RETURN(c.frontend_kernel, ir::ParseTileIrString(c.kernel.ir_text));
  return c;
}

}  // namespace

frontend::NamedValues DeveloperPassConfigs() {
  return {{"tl.ascend_auto_cv_combine", frontend::Value::Bool(true)},
          {"tl.ascend_auto_cross_core_sync", frontend::Value::Bool(true)},
          {"tl.ascend_auto_sync", frontend::Value::Bool(true)},
          {"tl.ascend_memory_planning", frontend::Value::Bool(true)}};
}

Result<Compiled> CompileTileIr(const std::string& text, const frontend::NamedValues& configs,
                               const compiler::PipelineOptions& options) {
  compiler::CompileRequest req;
  req.frontend.source = text;
  req.frontend.file_name = "generated.tir";
  req.frontend.format = frontend::SourceFormat::kTileIr;
  req.frontend.pass_configs = configs;
  req.pipeline = options;
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  return Finish(compiler::Compile(req, &sources, &diag), diag);
}

Result<Compiled> CompileTileLang(const std::string& path, const std::string& entry,
                                 const std::vector<frontend::Value>& args,
                                 const compiler::PipelineOptions& options) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  compiler::CompileRequest req;
  req.frontend.source = text.str();
  req.frontend.file_name = path;
  req.frontend.entry = entry;
  req.frontend.args = args;
  req.pipeline = options;
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  return Finish(compiler::Compile(req, &sources, &diag), diag);
}

Result<runner::RunResult> Launch(const std::vector<uint8_t>& binary,
                                 const std::vector<runner::NpyArray>& inputs,
                                 const runner::LaunchOptions& options) {
  runner::sim::SimDevice device;
  TILEJIT_ASSIGN_OR_RETURN(runner::KernelId id, device.LoadBinary(binary));
  return runner::RunKernel(device, id, inputs, options);
}

runner::NpyArray ToNpy(ir::DType dtype, const std::vector<int64_t>& shape,
                       const std::vector<float>& values) {
  runner::NpyArray a;
  a.shape = shape;
  if (dtype == ir::DType::kFloat16) {
    a.dtype = target::ElementType::kFloat16;
    a.data.resize(values.size() * 2);
    for (size_t i = 0; i < values.size(); ++i) {
      const uint16_t h = runner::sim::FloatToHalf(values[i]);
      std::memcpy(&a.data[i * 2], &h, 2);
    }
  } else {
    a.dtype = target::ElementType::kFloat32;
    a.data.resize(values.size() * 4);
    if (!values.empty()) std::memcpy(a.data.data(), values.data(), a.data.size());
  }
  return a;
}

HostTensor ToHost(ir::DType dtype, const std::vector<int64_t>& shape,
                  const std::vector<float>& values) {
  HostTensor t{dtype, shape, {}};
  for (float v : values) t.data.push_back(RoundTo(dtype, v));
  return t;
}

std::vector<float> ToFloats(const runner::NpyArray& a) {
  std::vector<float> out(static_cast<size_t>(a.ElementCount()));
  for (size_t i = 0; i < out.size(); ++i) {
    if (a.dtype == target::ElementType::kFloat16) {
      uint16_t h;
      std::memcpy(&h, &a.data[i * 2], 2);
      out[i] = runner::sim::HalfToFloat(h);
    } else if (a.dtype == target::ElementType::kFloat32) {
      std::memcpy(&out[i], &a.data[i * 4], 4);
    } else {
      out[i] = NAN;  // no other output dtype is generated
    }
  }
  return out;
}

std::string FindingsText(const runner::LaunchReport& report) {
  std::string s;
  if (!report.status.ok()) s += "status: " + report.status.ToString() + "\n";
  for (const runner::Finding& f : report.findings) {
    s += std::string(runner::FindingKindName(f.kind)) + ": " + f.message + "\n";
  }
  return s;
}

::testing::AssertionResult OutputsMatch(const std::vector<HostTensor>& want,
                                        const std::vector<runner::NpyArray>& got, double rtol,
                                        double atol_scale) {
  if (want.size() != got.size()) {
    return ::testing::AssertionFailure()
           << "output count: got " << got.size() << ", want " << want.size();
  }
  std::ostringstream bad;
  int mismatches = 0;
  for (size_t o = 0; o < want.size(); ++o) {
    const std::vector<float> g = ToFloats(got[o]);
    if (g.size() != want[o].data.size()) {
      return ::testing::AssertionFailure() << "output " << o << " has the wrong size";
    }
    double scale = 1;
    for (double w : want[o].data) scale = std::max(scale, std::fabs(w));
    const double atol = atol_scale * scale;
    for (size_t i = 0; i < g.size(); ++i) {
      const double w = want[o].data[i];
      const bool ok = std::isfinite(g[i]) && std::fabs(g[i] - w) <= atol + rtol * std::fabs(w);
      if (!ok && ++mismatches <= 8) {
        bad << "\n  output " << o << " [" << i << "] got " << g[i] << ", want " << w;
      }
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " elements differ" << bad.str();
}

}  // namespace tilejit::devgen
