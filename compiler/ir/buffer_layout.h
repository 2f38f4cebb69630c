// SPDX-License-Identifier: Apache-2.0
// Where a Tile IR buffer lives on the target: its memory and its physical layout there
// (target/tile_layout.h), for the passes that place buffers and for codegen.
//
// Pure functions; thread-safe.
#pragma once

#include "compiler/ir/ir.h"
#include "compiler/target/npu_target.h"
#include "compiler/target/tile_layout.h"

namespace tilejit::ir {

// The target memory a hardware scope lives in (kGM for gm; CHECK-fails for var and the
// unresolved scopes).
target::Mem MemOf(MemScope scope);

// The layout of `buffer` on `target`: a register for var, else its memory's layout. Requires a
// hardware scope (not shared/fragment).
target::TileLayout LayoutOf(const BufferNode& buffer, const target::NpuTarget& target);

}  // namespace tilejit::ir
