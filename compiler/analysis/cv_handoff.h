// SPDX-License-Identifier: Apache-2.0
// Cube <-> vector hand-offs: which copies cross between the cores (legalize_copies stages them
// through compiler workspaces when TL_ASCEND_AUTO_CV_COMBINE is on) and which GM buffers are
// those workspaces (combine_cv and cross_core_sync recognise them).
//
// Pure functions; thread-safe.
#pragma once

#include "compiler/ir/ir.h"

namespace tilejit::analysis {

// True for an L0C->UB or UB->L1 copy (a path with no on-chip instruction on 910B).
bool IsCrossCoreCopy(const ir::TileOpNode& op);

// True if `b` is a GM workspace a pass added (role kWorkspace and compiler_made).
bool IsCompilerWorkspace(const ir::BufferNode& b);
// True if `b` is any GM workspace: a pass's or one the kernel declares (workspace_idx), which
// upstream's Developer kernels hand from the cube to the vectors and expect
// TL_ASCEND_AUTO_CV_SYNC to order.
bool IsWorkspace(const ir::BufferNode& b);

}  // namespace tilejit::analysis
