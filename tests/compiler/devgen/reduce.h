// SPDX-License-Identifier: Apache-2.0
// Shrinks a failing generated kernel to a small reproducer: statements (and whole loops and
// ifs) are deleted one at a time, bottom up, for as long as the kernel stays legal (the
// interpreter still runs it: nothing read before written, every output written) and still
// fails at the same stage (devgen_check.h). Param lines are kept, so the inputs still fit.
//
// Thread safety: ReduceKernel is reentrant.
#pragma once

#include "devgen_check.h"
#include "kernel_gen.h"

namespace tilejit::devgen {

struct Reduced {
  GeneratedKernel kernel;  // the smallest failing kernel found (ir_text changed)
  CheckOutcome outcome;    // its failure
  int attempts = 0;
};

// `failing` must fail CheckGeneratedKernel(failing, perturb_seed) at `stage`.
Reduced ReduceKernel(const GeneratedKernel& failing, uint64_t perturb_seed, Stage stage);

}  // namespace tilejit::devgen
