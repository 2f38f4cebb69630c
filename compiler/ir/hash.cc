// SPDX-License-Identifier: Apache-2.0
#include "compiler/ir/hash.h"

#include "common/sha256.h"
#include "compiler/ir/printer.h"

namespace tilejit::ir {

std::string IrHash(const Kernel& kernel) { return Sha256Hex(PrintKernel(kernel)); }

}  // namespace tilejit::ir
