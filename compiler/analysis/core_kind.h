// SPDX-License-Identifier: Apache-2.0
// Which core type a leaf statement belongs to: the one classification shared by assign_cores
// (which scopes Expert kernels) and combine_cv (which projects one body onto both cores).
//
// A leaf is a tile op, a scalar store or a sync. The rule is by operand memories and pipes (a
// copy or fill touching a cube memory is cube work):
// L1/L0A/L0B/L0C and the MTE1/M/FIX pipes exist only on the AIC, UB and the V pipe only on
// the AIV; MTE2/MTE3/S and `barrier all` exist on both, so a sync naming only those is kShared.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "compiler/ir/ir.h"

namespace tilejit::analysis {

// The work a statement does: for one core type, for whichever types the kernel has (a sync on
// pipes both cores own), or none (control flow, lets, allocations, stores to non-UB buffers).
enum class Work : uint8_t { kNone, kCube, kVector, kShared };

// True for the memories only the AIC can address (L1, L0A, L0B, L0C).
bool IsCubeScope(ir::MemScope s);

// kCube for MTE1/M/FIX, kVector for V, kShared for the rest (MTE2, MTE3, S, all).
Work PipeWork(target::Pipe p);

// The work of one leaf statement; kNone for every non-leaf statement.
Work LeafWork(const ir::StmtNode& s);

// A short name for messages: the tile op's name, "store" or "sync".
std::string_view LeafName(const ir::StmtNode& s);

}  // namespace tilejit::analysis
