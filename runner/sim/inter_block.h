// SPDX-License-Identifier: Apache-2.0
// The inter-block race check of a launch: blocks run concurrently with no means to order
// their GM accesses (cross-core flags act inside a group only), so a GM write of one block
// that overlaps a read or write of another block is a race, unless both are atomic
// accumulations; accesses separated by a sync_all (different epochs) are ordered. Runs after
// all blocks finished, over the GM ranges each block touched.
// Pure function; thread-compatible.
#pragma once

#include <vector>

#include "runner/device.h"
#include "runner/sim/block.h"
#include "runner/sim/memory.h"

namespace tilejit::runner::sim {

// Appends up to `max_findings` findings (counting the rest in *suppressed).
void CheckInterBlockRaces(const KernelImage& image, const GlobalMemory& gm,
                          const std::vector<BlockResult>& blocks, int max_findings,
                          std::vector<Finding>* findings, uint64_t* suppressed);

}  // namespace tilejit::runner::sim
