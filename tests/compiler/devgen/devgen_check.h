// SPDX-License-Identifier: Apache-2.0
// One generated kernel end to end: interpret its frontend IR, compile it with the four
// Developer switches, launch it checked and perturbed, compare. The outcome names the first
// stage that failed and carries a self-contained reproducer (seed, IR text, diagnostics or
// findings) for the report.
//
// Thread safety: CheckGeneratedKernel is reentrant.
#pragma once

#include <cstdint>
#include <string>

#include "kernel_gen.h"

namespace tilejit::devgen {

enum class Stage : uint8_t {
  kOk,
  kInterpreter,      // the reference itself failed: a generator bug
  kCompileError,     // the compiler refused a legal kernel with a diagnostic
  kInternalError,    // the compiler failed an internal check
  kLaunch,           // load or launch failed
  kCheckedFindings,  // the checked launch reported races or other findings
  kCheckedMismatch,
  kPerturbedFindings,
  kPerturbedMismatch,
};
std::string_view StageName(Stage s);

struct CheckOutcome {
  Stage stage = Stage::kOk;
  std::string report;      // empty when ok
  std::string first_line;  // the first line of the failure detail (for one-line summaries)
};

// `perturb_seed` > 0 adds a perturbed launch with that seed.
CheckOutcome CheckGeneratedKernel(const GeneratedKernel& kernel, uint64_t perturb_seed);

// The tolerance for a kernel's outputs: exact-ish without cube work, fp32 summation-order
// noise (amplified by later fp16 roundings) with it.
void ToleranceFor(const GeneratedKernel& kernel, double* rtol, double* atol_scale);

}  // namespace tilejit::devgen
