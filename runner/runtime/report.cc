// SPDX-License-Identifier: Apache-2.0
#include "runner/runtime/report.h"

#include <string>

#include "runner/runtime/abi_types.h"

namespace tilejit::runner::runtime {
namespace {

Status CheckIndex(const char* what, int64_t index, size_t size) {
  if (index < 0 || static_cast<uint64_t>(index) >= size) {
    return InvalidArgument(std::string(what) + " index " + std::to_string(index) +
                           " is outside [0, " + std::to_string(size) + ")");
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<tj_report> MakeReport(LaunchReport report, CheckMode mode) {
  auto r = std::make_unique<tj_report>();
  r->report = std::move(report);
  const LaunchReport& l = r->report;
  tj_report_summary& s = r->summary;
  s.ok = l.status.ok() ? 1 : 0;
  s.mode = ToTjMode(mode);
  s.message = l.status.message().c_str();
  s.kernel_cycles = l.kernel_cycles;
  s.launch_overhead_cycles = l.launch_overhead_cycles;
  s.waves = l.waves;
  s.block_count = static_cast<int64_t>(l.blocks.size());
  s.finding_count = static_cast<int64_t>(l.findings.size());
  s.findings_suppressed = l.findings_suppressed;
  s.line_count = static_cast<int64_t>(l.line_cycles.size());
  for (const BlockReport& b : l.blocks) s.instructions += b.instructions;
  s.trace_bytes = l.trace_json.size();
  return r;
}

Status GetBlock(const tj_report& r, int64_t block, tj_block_info* out) {
  TILEJIT_RETURN_IF_ERROR(CheckIndex("block", block, r.report.blocks.size()));
  const BlockReport& b = r.report.blocks[block];
  tj_block_info info{};
  info.block = b.block;
  info.span_cycles = b.span_cycles;
  info.roofline_cycles = b.roofline_cycles;
  info.instructions = b.instructions;
  info.aic_busy_cycles = b.aic_busy_cycles;
  for (size_t i = 0; i < b.aiv_busy_cycles.size() && i < 2; ++i) {
    info.aiv_busy_cycles[i] = b.aiv_busy_cycles[i];
  }
  info.aiv_any_busy_cycles = b.aiv_any_busy_cycles;
  info.cube_vector_overlap_cycles = b.cube_vector_overlap_cycles;
  info.pipe_count = static_cast<int32_t>(b.pipes.size());
  *out = info;
  return Status::Ok();
}

Status GetPipeBusy(const tj_report& r, int64_t block, int32_t pipe, tj_pipe_busy* out) {
  TILEJIT_RETURN_IF_ERROR(CheckIndex("block", block, r.report.blocks.size()));
  const BlockReport& b = r.report.blocks[block];
  TILEJIT_RETURN_IF_ERROR(CheckIndex("pipe", pipe, b.pipes.size()));
  const PipeBusy& p = b.pipes[pipe];
  out->core = p.core.c_str();
  out->pipe = InternName(target::PipeName(p.pipe));
  out->busy_cycles = p.busy_cycles;
  return Status::Ok();
}

Status GetFinding(const tj_report& r, int64_t index, tj_finding* out) {
  TILEJIT_RETURN_IF_ERROR(CheckIndex("finding", index, r.report.findings.size()));
  const Finding& f = r.report.findings[index];
  out->kind = InternName(FindingKindName(f.kind));
  out->block = f.block;
  out->message = f.message.c_str();
  return Status::Ok();
}

Status GetLine(const tj_report& r, int64_t index, tj_line_cycles* out) {
  TILEJIT_RETURN_IF_ERROR(CheckIndex("line", index, r.report.line_cycles.size()));
  const LaunchReport::LineCycles& l = r.report.line_cycles[index];
  *out = tj_line_cycles{l.stmt, 0, l.cycles, l.count};
  return Status::Ok();
}

}  // namespace tilejit::runner::runtime
