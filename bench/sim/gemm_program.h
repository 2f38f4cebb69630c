// SPDX-License-Identifier: Apache-2.0
// The benchmark kernel: C[M x N] f32 = A[M x K] f16 x B[K x N] f16 on the AIC, one 128 x 256
// output tile per block, K streamed through double-buffered L1 chunks of 256 and
// double-buffered L0A/L0B steps of 64, all hand-offs ordered by set_flag/wait_flag.
#pragma once

#include <string>

namespace tilejit::bench {

// Assembler text of the AIC program for the given sizes (multiples of 128, 256 and 256).
std::string GemmAicProgram(int m, int n, int k);

}  // namespace tilejit::bench
