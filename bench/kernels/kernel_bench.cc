// SPDX-License-Identifier: Apache-2.0
// The harness compiles exactly as the offline CLI does (compiler::Compile with the file's own
// decorator settings) so that the cycles measured are those of the binary a user would get.
// Only kFast mode is used: checked mode changes nothing in the timing model but costs time,
// and the correctness of these kernels is the business of the shared-kernel tests. A sampled
// float64 check of GEMM outputs still guards against timing a kernel that computes nonsense.
#include "bench/kernels/kernel_bench.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <utility>

#include "common/diagnostic.h"
#include "common/source_loc.h"
#include "compiler/compiler.h"
#include "runner/npy.h"
#include "runner/runner.h"
#include "runner/sim/half.h"
#include "runner/sim/sim_device.h"

namespace tilejit::bench {
namespace {

using target::ElementType;

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

// A table row holds one line of any message.
std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// The first error's rendering ("file:line:col: error: message"), else the status.
std::string FirstDiagnostic(const DiagnosticEngine& diag, const Status& status) {
  for (const Diagnostic& d : diag.diagnostics()) {
    if (d.severity == Severity::kError) return FirstLine(diag.Render(d));
  }
  return FirstLine(status.ToString());
}

float ToFloat(const runner::NpyArray& a, int64_t i) {
  if (a.dtype == ElementType::kFloat16) {
    uint16_t h;
    std::memcpy(&h, &a.data[i * 2], 2);
    return runner::sim::HalfToFloat(h);
  }
  float f;
  std::memcpy(&f, &a.data[i * 4], 4);
  return f;
}

runner::NpyArray RandomInput(const InputSpec& spec, std::mt19937& rng) {
  runner::NpyArray a;
  a.dtype = spec.dtype;
  a.shape = spec.shape;
  const int64_t n = a.ElementCount();
  const int bytes = target::ElementTypeBytes(spec.dtype);
  a.data.resize(n * bytes);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < n; ++i) {
    const float v = dist(rng);
    if (spec.dtype == ElementType::kFloat16) {
      const uint16_t h = runner::sim::FloatToHalf(v);
      std::memcpy(&a.data[i * 2], &h, 2);
    } else {
      std::memcpy(&a.data[i * 4], &v, 4);
    }
  }
  return a;
}

// Largest relative error of 64 sampled C elements against float64 A @ B (relative to the
// row's |A| . |B| so that near-zero sums do not dominate).
double GemmError(const runner::NpyArray& a, const runner::NpyArray& b, const runner::NpyArray& c) {
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  std::mt19937 rng(7);
  double worst = 0;
  for (int s = 0; s < 64; ++s) {
    const int64_t i = static_cast<int64_t>(rng() % m), j = static_cast<int64_t>(rng() % n);
    double ref = 0, scale = 0;
    for (int64_t p = 0; p < k; ++p) {
      const double x = ToFloat(a, i * k + p), y = ToFloat(b, p * n + j);
      ref += x * y;
      scale += std::fabs(x * y);
    }
    worst = std::max(worst, std::fabs(ToFloat(c, i * n + j) - ref) / std::max(scale, 1e-30));
  }
  return worst;
}

void Summarise(const runner::LaunchReport& report, VariantResult* out) {
  out->kernel_cycles = report.kernel_cycles;
  out->block_bound_cycles = report.block_bound_cycles;
  out->gm_bytes = report.gm_bytes;
  out->hbm_bytes = report.hbm_bytes;
  out->hbm_bound_waves = report.hbm_bound_waves;
  out->blocks = static_cast<int64_t>(report.blocks.size());
  out->waves = report.waves;
  std::vector<double> eff, overlap;
  for (const runner::BlockReport& b : report.blocks) {
    if (b.span_cycles == 0) continue;
    const double span = static_cast<double>(b.span_cycles);
    eff.push_back(static_cast<double>(b.roofline_cycles) / span);
    overlap.push_back(static_cast<double>(b.cube_vector_overlap_cycles) / span);
  }
  out->min_efficiency = eff.empty() ? 0 : *std::min_element(eff.begin(), eff.end());
  out->median_efficiency = Median(eff);
  out->median_overlap = Median(overlap);
  out->block_reports = report.blocks;
}

}  // namespace

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  if (values.size() % 2 == 1) return values[mid];
  const double upper = values[mid];
  return (*std::max_element(values.begin(), values.begin() + mid) + upper) / 2;
}

Variant GemmVariant(std::string label, std::string path, std::string entry,
                    std::vector<int64_t> args) {
  Variant v;
  v.label = std::move(label);
  v.path = std::move(path);
  v.entry = std::move(entry);
  v.args = std::move(args);
  const int64_t m = v.args.at(0), n = v.args.at(1), k = v.args.at(2);
  v.inputs = {{{m, k}, ElementType::kFloat16}, {{k, n}, ElementType::kFloat16}};
  v.is_gemm = true;
  return v;
}

Variant ElementwiseVariant(std::string label, std::string path, std::vector<int64_t> args) {
  Variant v;
  v.label = std::move(label);
  v.path = std::move(path);
  v.entry = "vec_add";
  v.args = std::move(args);
  const std::vector<int64_t> shape = {v.args.at(0), v.args.at(1)};
  v.inputs = {{shape, ElementType::kFloat32}, {shape, ElementType::kFloat32}};
  return v;
}

std::vector<uint8_t> CompileKernelFile(const std::string& path, const std::string& entry,
                                       const std::vector<int64_t>& args, std::string* error) {
  compiler::CompileRequest req;
  if (!ReadFile(path, &req.frontend.source)) {
    *error = "cannot read " + path;
    return {};
  }
  req.frontend.file_name = path;
  req.frontend.entry = entry;
  for (int64_t a : args) req.frontend.args.push_back(frontend::Value::Int(a));
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  Result<compiler::CompiledKernel> kernel = compiler::Compile(req, &sources, &diag);
  if (!kernel.ok()) {
    *error = "does not compile yet: " + FirstDiagnostic(diag, kernel.status());
    return {};
  }
  return std::move(kernel->binary);
}

VariantResult RunVariant(const Variant& v) {
  VariantResult out;
  const std::vector<uint8_t> binary = CompileKernelFile(v.path, v.entry, v.args, &out.error);
  if (binary.empty()) return out;
  out.compiled = true;
  runner::sim::SimDevice device;
  Result<runner::KernelId> id = device.LoadBinary(binary);
  if (!id.ok()) {
    out.error = "launch failed: cannot load: " + FirstLine(id.status().ToString());
    return out;
  }
  std::mt19937 rng(1);
  std::vector<runner::NpyArray> inputs;
  for (const InputSpec& s : v.inputs) inputs.push_back(RandomInput(s, rng));
  runner::LaunchOptions options;
  options.mode = runner::CheckMode::kFast;
  Result<runner::RunResult> run = runner::RunKernel(device, *id, inputs, options);
  if (!run.ok() || !run->report.status.ok()) {
    out.error = "launch failed: " +
                FirstLine(run.ok() ? run->report.status.ToString() : run.status().ToString());
    return out;
  }
  out.ran = true;
  Summarise(run->report, &out);
  if (!run->outputs.empty()) {
    out.output_dtype = std::string(target::ElementTypeName(run->outputs[0].dtype));
    if (v.is_gemm) out.max_rel_error = GemmError(inputs[0], inputs[1], run->outputs[0]);
  }
  return out;
}

}  // namespace tilejit::bench
