// SPDX-License-Identifier: Apache-2.0
// The IR hash: SHA-256 (lower-case hex) of the canonical text (printer.h). Two kernels hash
// the same exactly when they print the same, so sources differing only in comments,
// whitespace or local names share a hash. Pure and thread-safe.
#pragma once

#include <string>

#include "compiler/ir/ir.h"

namespace tilejit::ir {

std::string IrHash(const Kernel& kernel);

}  // namespace tilejit::ir
