// SPDX-License-Identifier: Apache-2.0
// sim_gemm_bench: runs the 1024^3 fp16 GEMM kernel (gemm_program.h) on the simulated NPU and
// prints one line of key=value metrics: best wall time over --reps launches, host GFLOP/s,
// simulated kernel cycles, mean block efficiency (roofline / span), the peak RSS increase over
// the pre-launch baseline, and the largest relative error on sampled elements against a
// float64 reference. bench/sim/run.sh runs it per mode and compares with numpy.
// Flags: --mode=fast|checked, --trace=0|1, --trace-out=FILE (Chrome trace), --reps=N,
// --size=N (a multiple of 256).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench/sim/gemm_program.h"
#include "compiler/target/asm.h"
#include "runner/sim/half.h"
#include "runner/sim/sim_device.h"

namespace {

using tilejit::runner::CheckMode;
using tilejit::runner::KernelImage;
using tilejit::runner::LaunchOptions;
using tilejit::runner::sim::FloatToHalf;
using tilejit::runner::sim::HalfToFloat;
using tilejit::runner::sim::SimDevice;

// Peak resident set (VmHWM) in KiB; ResetPeak makes the kernel restart it from the current RSS.
long PeakKib() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      long v = 0;
      in >> v;
      return v;
    }
    std::getline(in, key);
  }
  return -1;
}
void ResetPeak() { std::ofstream("/proc/self/clear_refs") << "5"; }

std::string Arg(int argc, char** argv, const std::string& name, const std::string& def) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--" + name + "=", 0) == 0) return a.substr(name.size() + 3);
  }
  return def;
}

int Main(int argc, char** argv) {
  const std::string mode = Arg(argc, argv, "mode", "fast");
  const std::string trace_out = Arg(argc, argv, "trace-out", "");
  const bool trace = Arg(argc, argv, "trace", "0") == "1" || !trace_out.empty();
  const int reps = std::stoi(Arg(argc, argv, "reps", "3"));
  const int size = std::stoi(Arg(argc, argv, "size", "1024"));
  const int m = size, n = size, k = size;
  SimDevice dev;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> a(m * k), b(k * n);
  for (auto& v : a) v = FloatToHalf(dist(rng));
  for (auto& v : b) v = FloatToHalf(dist(rng));
  using tilejit::target::ElementType;
  auto ta = dev.Allocate(ElementType::kFloat16, {m, k}, "A", true);
  auto tb = dev.Allocate(ElementType::kFloat16, {k, n}, "B", true);
  auto tc = dev.Allocate(ElementType::kFloat32, {m, n}, "C", false);
  if (!ta.ok() || !tb.ok() || !tc.ok()) return 1;
  (void)dev.CopyToDevice(*ta, {reinterpret_cast<uint8_t*>(a.data()), a.size() * 2});
  (void)dev.CopyToDevice(*tb, {reinterpret_cast<uint8_t*>(b.data()), b.size() * 2});
  KernelImage image;
  image.metadata.kernel_name = "gemm";
  image.metadata.target = "ascend910b2";
  image.metadata.block_count = (m / 128) * (n / 256);
  image.metadata.core_mix = tilejit::target::CoreMix::kCubeOnly;
  image.metadata.vector_cores_per_block = 0;
  auto code = tilejit::target::Assemble(tilejit::bench::GemmAicProgram(m, n, k));
  if (!code.ok()) {
    std::fprintf(stderr, "assemble: %s\n", code.status().ToString().c_str());
    return 1;
  }
  image.aic = std::move(*code);
  auto id = dev.LoadImage(std::move(image));
  if (!id.ok()) {
    std::fprintf(stderr, "load: %s\n", id.status().ToString().c_str());
    return 1;
  }
  LaunchOptions opt;
  opt.mode = mode == "checked" ? CheckMode::kChecked : CheckMode::kFast;
  opt.trace = trace;
  const uint64_t args[] = {ta->addr, tb->addr, tc->addr};
  ResetPeak();
  const long base = PeakKib();
  double best = 1e30;
  tilejit::runner::LaunchReport report;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    auto rep = dev.Launch(*id, args, opt);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!rep.ok() || !rep->status.ok()) {
      std::fprintf(stderr, "launch: %s\n",
                   rep.ok() ? rep->status.ToString().c_str() : rep.status().ToString().c_str());
      return 1;
    }
    best = std::min(best, s);
    report = std::move(*rep);
  }
  const long peak = PeakKib();
  if (!trace_out.empty()) std::ofstream(trace_out) << report.trace_json;
  std::vector<float> c(m * n);
  (void)dev.CopyFromDevice(*tc, {reinterpret_cast<uint8_t*>(c.data()), c.size() * 4});
  double max_err = 0;
  for (int s = 0; s < 256; ++s) {
    const int i = static_cast<int>(rng() % m), j = static_cast<int>(rng() % n);
    double ref = 0;
    for (int p = 0; p < k; ++p)
      ref += double{HalfToFloat(a[i * k + p])} * HalfToFloat(b[p * n + j]);
    max_err = std::max(max_err, std::fabs(c[i * n + j] - ref) / (1e-3 + std::fabs(ref)));
  }
  double eff = 0;
  for (const auto& blk : report.blocks) {
    eff += static_cast<double>(blk.roofline_cycles) / std::max<uint64_t>(1, blk.span_cycles);
  }
  eff /= std::max<size_t>(1, report.blocks.size());
  const double gm_mib = (a.size() * 2.0 + b.size() * 2.0 + c.size() * 4.0) / (1 << 20);
  std::printf(
      "mode=%s trace=%d wall_s=%.6f gflops=%.2f kernel_cycles=%llu waves=%lld "
      "efficiency=%.3f rss_increase_mib=%.1f gm_mib=%.1f max_rel_err=%.2e\n",
      mode.c_str(), trace ? 1 : 0, best, 2.0 * m * n * k / best / 1e9,
      static_cast<unsigned long long>(report.kernel_cycles), static_cast<long long>(report.waves),
      eff, (peak - base) / 1024.0, gm_mib, max_err);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
