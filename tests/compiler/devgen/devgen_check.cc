// SPDX-License-Identifier: Apache-2.0
// The reference runs first: a kernel the interpreter rejects is the generator's fault and is
// reported as such, before the compiler is blamed for anything.
#include "devgen_check.h"

#include <algorithm>
#include <sstream>

#include "compiler/ir/ir_parser.h"
#include "devgen_harness.h"

namespace tilejit::devgen {
namespace {

std::string Header(const GeneratedKernel& k, Stage s) {
  std::ostringstream o;
  o << "[" << StageName(s) << "] " << k.Summary() << "\n--- IR (reproduce: DEVGEN_SEED=" << k.seed
    << ") ---\n"
    << k.ir_text << "---\n";
  return o.str();
}

CheckOutcome Fail(const GeneratedKernel& k, Stage s, const std::string& detail) {
  // The first two lines: verify_sync's headline is generic, its first finding follows.
  const size_t first = detail.find('\n');
  const size_t second = first == std::string::npos ? first : detail.find('\n', first + 1);
  std::string head = detail.substr(0, second);
  std::replace(head.begin(), head.end(), '\n', ' ');
  return {s, Header(k, s) + detail, head};
}

}  // namespace

std::string_view StageName(Stage s) {
  switch (s) {
    case Stage::kOk:
      return "ok";
    case Stage::kInterpreter:
      return "interpreter";
    case Stage::kCompileError:
      return "compile error";
    case Stage::kInternalError:
      return "internal error";
    case Stage::kLaunch:
      return "launch";
    case Stage::kCheckedFindings:
      return "checked findings";
    case Stage::kCheckedMismatch:
      return "checked mismatch";
    case Stage::kPerturbedFindings:
      return "perturbed findings";
    case Stage::kPerturbedMismatch:
      return "perturbed mismatch";
  }
  return "?";
}

void ToleranceFor(const GeneratedKernel& kernel, double* rtol, double* atol_scale) {
  *rtol = kernel.has_cube ? 2e-3 : 1e-6;
  *atol_scale = kernel.has_cube ? 2e-3 : 1e-6;
}

CheckOutcome CheckGeneratedKernel(const GeneratedKernel& k, uint64_t perturb_seed) {
  Result<ir::Kernel> parsed = ir::ParseTileIrString(k.ir_text);
  if (!parsed.ok()) return Fail(k, Stage::kInterpreter, parsed.status().ToString());
  const std::vector<std::vector<float>> values = GenerateInputValues(k, k.seed);
  std::vector<HostTensor> host;
  std::vector<runner::NpyArray> npy;
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    host.push_back(ToHost(k.inputs[i].dtype, k.inputs[i].shape, values[i]));
    npy.push_back(ToNpy(k.inputs[i].dtype, k.inputs[i].shape, values[i]));
  }
  Result<std::vector<HostTensor>> want = Interpret(*parsed, host);
  if (!want.ok()) return Fail(k, Stage::kInterpreter, want.status().ToString());

  Result<Compiled> c = CompileTileIr(k.ir_text, DeveloperPassConfigs());
  if (!c.ok()) {
    const Stage s = c.status().code() == StatusCode::kCompileError ? Stage::kCompileError
                                                                   : Stage::kInternalError;
    return Fail(k, s, c.status().ToString());
  }
  double rtol, atol_scale;
  ToleranceFor(k, &rtol, &atol_scale);
  std::vector<std::pair<runner::CheckMode, uint64_t>> launches = {{runner::CheckMode::kChecked, 1}};
  if (perturb_seed > 0) launches.push_back({runner::CheckMode::kPerturbed, perturb_seed});
  for (const auto& [mode, seed] : launches) {
    const bool checked = mode == runner::CheckMode::kChecked;
    runner::LaunchOptions opts;
    opts.mode = mode;
    opts.seed = seed;
    opts.host_threads = 1;
    Result<runner::RunResult> run = Launch(c->kernel.binary, npy, opts);
    if (!run.ok()) return Fail(k, Stage::kLaunch, run.status().ToString());
    if (!run->report.status.ok() || !run->report.findings.empty()) {
      return Fail(k, checked ? Stage::kCheckedFindings : Stage::kPerturbedFindings,
                  FindingsText(run->report));
    }
    ::testing::AssertionResult match = OutputsMatch(*want, run->outputs, rtol, atol_scale);
    if (!match) {
      return Fail(k, checked ? Stage::kCheckedMismatch : Stage::kPerturbedMismatch,
                  std::string(match.message()) + "\n(perturb seed " + std::to_string(seed) + ")");
    }
  }
  return {};
}

}  // namespace tilejit::devgen
