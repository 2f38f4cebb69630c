// SPDX-License-Identifier: Apache-2.0
// tj_report, the C ABI's launch report: the runner's LaunchReport plus its summary in C form,
// made once when the launch completes. Immutable afterwards, so the accessors below may run
// on several threads at once; every pointer they return points into the report (its strings)
// or at static names, and stays valid until tj_report_free.
#pragma once

#include <cstdint>
#include <memory>

#include "common/status.h"
#include "runner/device.h"
#include "runner/runtime/tilejit_runtime.h"

struct tj_report {
  tilejit::runner::LaunchReport report;
  tj_report_summary summary{};
};

namespace tilejit::runner::runtime {

std::unique_ptr<tj_report> MakeReport(LaunchReport report, CheckMode mode);

// The entries tilejit_runtime.h describes. kInvalidArgument for an index out of range.
Status GetBlock(const tj_report& r, int64_t block, tj_block_info* out);
Status GetPipeBusy(const tj_report& r, int64_t block, int32_t pipe, tj_pipe_busy* out);
Status GetFinding(const tj_report& r, int64_t index, tj_finding* out);
Status GetLine(const tj_report& r, int64_t index, tj_line_cycles* out);

}  // namespace tilejit::runner::runtime
