// SPDX-License-Identifier: Apache-2.0
// sim_vector_bench: a vector-heavy TileLang kernel (row softmax or layer norm, the shared
// kernels softmax_mixed.py and layernorm_mixed.py) compiled in process, run on the simulated
// NPU with runner::RunKernel, and checked element by element against a float64 reference.
// Prints one line of key=value metrics: best wall time of RunKernel over --reps runs (what a
// caller waits for: allocation, copies in and out, launch), the best time of the launch alone
// (SimDevice::Launch on tensors allocated once), simulated kernel cycles and the largest
// relative error. bench/sim/run.sh times NumPy on the same
// computation and prints the ratio.
// Flags: --kernel=softmax|layernorm, --kernels=DIR (the TileLang files), --rows=M, --cols=N,
//        --block=ROWS (block_M of the kernel), --reps=N, --mode=fast|checked,
//        --threads=N (host threads of a launch; default the simulator's own choice).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/kernels/kernel_bench.h"
#include "runner/runner.h"
#include "runner/sim/sim_device.h"

namespace {

using tilejit::runner::NpyArray;
using tilejit::target::ElementType;

std::string Arg(int argc, char** argv, const std::string& name, const std::string& def) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--" + name + "=", 0) == 0) return a.substr(name.size() + 3);
  }
  return def;
}

NpyArray Normal(std::vector<int64_t> shape, std::mt19937& rng) {
  NpyArray a;
  a.dtype = ElementType::kFloat32;
  a.shape = std::move(shape);
  std::normal_distribution<float> dist;
  std::vector<float> v(a.ElementCount());
  for (float& x : v) x = dist(rng);
  a.data.resize(v.size() * sizeof(float));
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

std::vector<float> Floats(const NpyArray& a) {
  std::vector<float> v(a.ElementCount());
  std::memcpy(v.data(), a.data.data(), v.size() * sizeof(float));
  return v;
}

// One row of the float64 reference into `out`.
void SoftmaxRow(const float* x, int64_t n, double* out) {
  const double mx = *std::max_element(x, x + n);
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) sum += out[j] = std::exp(x[j] - mx);
  for (int64_t j = 0; j < n; ++j) out[j] /= sum;
}

void LayerNormRow(const float* x, const std::vector<float>& g, const std::vector<float>& b,
                  int64_t n, double* out) {
  double mean = 0, var = 0;
  for (int64_t j = 0; j < n; ++j) mean += x[j];
  mean /= static_cast<double>(n);
  for (int64_t j = 0; j < n; ++j) var += (x[j] - mean) * (x[j] - mean);
  const double rstd = 1.0 / std::sqrt(var / static_cast<double>(n) + 1e-5);
  for (int64_t j = 0; j < n; ++j) out[j] = (x[j] - mean) * rstd * g[j] + b[j];
}

// Largest |y - ref| / max(|ref|, 1e-3 * max |ref| of the row) over every element: relative
// error where the reference is not tiny compared with its row.
double MaxRelError(bool softmax, const std::vector<NpyArray>& inputs, const NpyArray& output,
                   int64_t m, int64_t n) {
  const std::vector<float> x = Floats(inputs[0]), y = Floats(output);
  std::vector<float> g, b;
  if (!softmax) g = Floats(inputs[1]), b = Floats(inputs[2]);
  std::vector<double> ref(n);
  double worst = 0;
  for (int64_t i = 0; i < m; ++i) {
    if (softmax) {
      SoftmaxRow(&x[i * n], n, ref.data());
    } else {
      LayerNormRow(&x[i * n], g, b, n, ref.data());
    }
    double scale = 0;
    for (double r : ref) scale = std::max(scale, std::fabs(r));
    for (int64_t j = 0; j < n; ++j) {
      const double d = std::fabs(y[i * n + j] - ref[j]);
      worst = std::max(worst, d / std::max(std::fabs(ref[j]), 1e-3 * scale));
    }
  }
  return worst;
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Best time of `reps` launches on tensors allocated (and inputs copied) once, or -1 on failure.
double LaunchSeconds(tilejit::runner::Device& device, tilejit::runner::KernelId id,
                     const std::vector<NpyArray>& inputs,
                     const tilejit::runner::LaunchOptions& options, int reps) {
  std::vector<uint64_t> args;
  std::vector<tilejit::runner::Tensor> tensors;
  size_t next = 0;
  for (const tilejit::target::KernelParam& p : device.GetKernel(id)->metadata.params) {
    const bool input = p.role == tilejit::target::ParamRole::kInput;
    auto t = device.Allocate(p.dtype, p.shape, p.name, input);
    if (!t.ok() || (input && !device.CopyToDevice(*t, inputs.at(next++).data).ok())) return -1;
    args.push_back(t->addr);
    tensors.push_back(*t);
  }
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    auto report = device.Launch(id, args, options);
    if (!report.ok() || !report->status.ok()) return -1;
    best = std::min(best, Seconds(t0));
  }
  for (const auto& t : tensors) (void)device.Free(t);
  return best;
}

int Main(int argc, char** argv) {
  const std::string kernel = Arg(argc, argv, "kernel", "softmax");
  const std::string kernels = Arg(argc, argv, "kernels", "tests/testdata/kernels");
  const int64_t m = std::stoll(Arg(argc, argv, "rows", "4096"));
  const int64_t n = std::stoll(Arg(argc, argv, "cols", "4096"));
  const int64_t block = std::stoll(Arg(argc, argv, "block", "8"));
  const int reps = std::stoi(Arg(argc, argv, "reps", "3"));
  const std::string mode = Arg(argc, argv, "mode", "fast");
  const bool softmax = kernel == "softmax";
  if (!softmax && kernel != "layernorm") {
    std::fprintf(stderr, "--kernel wants softmax or layernorm\n");
    return 2;
  }
  std::string error;
  const std::vector<uint8_t> binary = tilejit::bench::CompileKernelFile(
      kernels + (softmax ? "/softmax_mixed.py" : "/layernorm_mixed.py"),
      softmax ? "softmax" : "layer_norm", {m, n, block}, &error);
  if (binary.empty()) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  tilejit::runner::sim::SimDevice device;
  auto id = device.LoadBinary(binary);
  if (!id.ok()) {
    std::fprintf(stderr, "load: %s\n", id.status().ToString().c_str());
    return 1;
  }
  std::mt19937 rng(1);
  std::vector<NpyArray> inputs = {Normal({m, n}, rng)};
  if (!softmax) inputs.push_back(Normal({n}, rng)), inputs.push_back(Normal({n}, rng));
  tilejit::runner::LaunchOptions options;
  options.mode =
      mode == "checked" ? tilejit::runner::CheckMode::kChecked : tilejit::runner::CheckMode::kFast;
  double best = 1e30;
  tilejit::runner::RunResult result;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    auto run = tilejit::runner::RunKernel(device, *id, inputs, options);
    const double s = Seconds(t0);
    if (!run.ok() || !run->report.status.ok()) {
      std::fprintf(stderr, "run: %s\n",
                   (run.ok() ? run->report.status : run.status()).ToString().c_str());
      return 1;
    }
    best = std::min(best, s);
    result = std::move(*run);
  }
  const double launch = LaunchSeconds(device, *id, inputs, options, reps);
  const double err = MaxRelError(softmax, inputs, result.outputs.at(0), m, n);
  std::printf(
      "kernel=%s rows=%lld cols=%lld mode=%s wall_s=%.6f launch_s=%.6f kernel_cycles=%llu "
      "blocks=%zu max_rel_err=%.2e\n",
      kernel.c_str(), static_cast<long long>(m), static_cast<long long>(n), mode.c_str(), best,
      launch, static_cast<unsigned long long>(result.report.kernel_cycles),
      result.report.blocks.size(), err);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
