// SPDX-License-Identifier: Apache-2.0
// Trace export of a launch: Chrome trace JSON (chrome://tracing, Perfetto, MindStudio-style
// viewers) with one process per block and one lane per (core, pipe) named like msprof's
// simulator lanes (SCALAR, VECTOR, CUBE, MTE1, MTE2, MTE3, FIXP), flag hand-offs as flow
// arrows; and the per-line-table-entry cycle table. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "runner/device.h"
#include "runner/sim/block.h"

namespace tilejit::runner::sim {

// msprof lane name of a pipe.
std::string_view LaneName(target::Pipe pipe);

// `clock_hz` converts cycles to the trace's microseconds.
std::string ChromeTraceJson(const KernelImage& image, const std::vector<BlockResult>& blocks,
                            double clock_hz);

// Summed occupancy and count per IR statement id over all blocks, by ascending statement id.
std::vector<LaunchReport::LineCycles> LineCycleTable(const KernelImage& image,
                                                     const std::vector<BlockResult>& blocks);

}  // namespace tilejit::runner::sim
