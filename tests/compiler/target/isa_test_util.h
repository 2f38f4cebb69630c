// SPDX-License-Identifier: Apache-2.0
// Test helpers: valid instances of every opcode, and boundary variants of each field.
#pragma once

#include <vector>

#include "compiler/target/isa.h"

namespace tilejit::target::testing {

// A valid instruction of `op` with every used field at its low bound (enum-like fields are
// searched until Validate accepts). Fails the current test if none is found.
Instr ValidBase(Opcode op);

// ValidBase plus, for every used field, the variants with the field at its low and high bound
// and (for Opnd) a register operand with the widest immediates; only variants that Validate
// accepts are returned.
std::vector<Instr> BoundaryVariants(Opcode op);

}  // namespace tilejit::target::testing
