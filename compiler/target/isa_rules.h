// SPDX-License-Identifier: Apache-2.0
// Internal to the target library: the cross-field rules of the ISA (legal dtypes per opcode,
// legal casts, mask limits, alignment of static addresses) that a per-field range cannot
// express. Used by Validate (isa.cc) and timing. Pure functions, thread-safe.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "compiler/target/isa.h"

namespace tilejit::target::internal {

// Rules beyond the per-field ranges; assumes every field is already in range.
Status CheckCrossFieldRules(const Instr& in);

// Elements processed per repeat by a repeat-form vector instruction: 256 bytes of its widest
// element type (vcast: max of dtype and odtype). 0 for other instructions.
int64_t ElemsPerRepeat(const Instr& in);

}  // namespace tilejit::target::internal
