// SPDX-License-Identifier: Apache-2.0
// Internal to expand_composites (expand_composites*.cc).
#pragma once

#include <vector>

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

// The KernelNode statement `kernel_stmt` with `allocs` placed in its launch body after the
// author's leading Allocates.
ir::Stmt PrependAllocs(const ir::Stmt& kernel_stmt, std::vector<ir::Stmt> allocs);

// Every sort, topk and merge_sort of 3 or 4 ways gets its UB scratch (ir::SortScratch): a
// compiler-made float32 buffer of ir::SortScratchElements, allocated at the start of the
// launch body. (expand_composites_sort.cc)
Result<ir::Kernel> AttachSortScratch(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
