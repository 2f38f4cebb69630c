// SPDX-License-Identifier: Apache-2.0
// Internal to the target library: the validation rules of symbolic shapes (KernelSymbol,
// KernelParam::dim_symbols, KernelMetadata::grid), split out of kernel_metadata.cc, which calls
// them from ValidateKernelMetadata. Pure functions.
#pragma once

#include "common/status.h"
#include "compiler/target/kernel_metadata.h"

namespace tilejit::target::internal {

// The symbols themselves, the grid program and the block_count/grid pairing.
Status CheckSymbolsAndGrid(const KernelMetadata& m);

// The dim_symbols of param `index` (`where` names it): spelling, length, entries, zero shape
// entries where not static, kBlockCountDim placement. Needs the symbols to be checked first.
Status CheckDimSymbols(const KernelMetadata& m, size_t index, const std::string& where);

// Every symbol is the extent of some dim of an input param.
Status CheckSymbolsBound(const KernelMetadata& m);

}  // namespace tilejit::target::internal
