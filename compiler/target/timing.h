// SPDX-License-Identifier: Apache-2.0
// The per-instruction timing model: the one source of truth for how long an instruction keeps
// its pipe busy (occupancy, the throughput term) and when its effect is complete (latency,
// >= occupancy), on a given NpuTarget. Used by the simulator (pipe scheduling), by codegen
// and planning heuristics, and frozen by tests/compiler/target/golden_cycles.inc.
//
// Formulas (ascend_hw.md section 6; figure names are NpuTarget members):
//   scalar ALU/branch/index/li/mov/end   occ = lat = scalar_alu (2); loads scalar_load (6);
//                                        stores scalar_store (4)
//   set_flag/wait_flag/barrier/xwait     occ = lat = sync_cycles; xset latency adds
//                                        cross_set_latency
//   DMA (burst form, nd2nz)              uops = sum over bursts of ceil(burst / dma_uop_bytes)
//                                        xfer = max(ceil(bytes / src_bw), ceil(bytes / dst_bw))
//                                        occ = uops + xfer; lat = occ + fixed latency (GM read
//                                        or write latency; 0 between on-chip buffers)
//   fill_l1 / fill_ub                    DMA formula with the destination's write bandwidth
//                                        (l1_write_bpc / ub_bpc) on both sides; fixed 0
//   copy_ub_ub                           occ = nburst * ceil(len / ub_copy_bpc);
//                                        lat = occ + ub_copy_latency
//   load_l0a / load_l0b                  bytes = fractals * 512; DMA formula with L1 read and
//                                        L0A/L0B write bandwidth; fixed latency load2d_latency
//   fix_l0c_gm / fix_l0c_l1              row = ceil(cols/16)*16*4 bytes; occ = rows *
//                                        max(ceil(row/dst_bw), ceil(row/l0c_read_bpc));
//                                        lat = occ + gm_write_latency (GM) or fix_l1_latency
//   mmad                                 occ = ceil(m/16)*ceil(n/16)*ceil(k/kstep) (>= 1);
//                                        lat = occ + mmad_state_latency
//   vector (repeat form)                 bytes = repeat * 256; 2-D form: rows *
//                                        ceil(count*es/256) * 256; uops = ceil(bytes / P) * T
//                                        (>= 1); occ = uops; lat = uops + D + vec_pipeline_delay
//                                        (P, T, D from vec_costs by class and dtype)
// How these per-instruction costs combine into a launch's cycles (pipes, waves, the shared-HBM
// floor over hbm_bpc): docs/timing_model.md.
// Thread-safe, pure.
#pragma once

#include <cstdint>
#include <span>

#include "common/result.h"
#include "compiler/target/isa.h"
#include "compiler/target/npu_target.h"

namespace tilejit::target {

struct Cost {
  int64_t occupancy = 0;  // cycles the pipe (or the scalar unit) is busy
  int64_t latency = 0;    // cycles from start until the effect is complete (>= occupancy)
  bool operator==(const Cost&) const = default;
};

// Cost of `in` with its Opnd operands resolved against `regs` (kNumRegs values, regs[0]
// ignored). Fails (InvalidArgument) if an operand resolves outside its hardware range or the
// target lacks a figure the formula needs.
Result<Cost> InstrCost(const Instr& in, const NpuTarget& t, std::span<const int64_t> regs);

// Same for an instruction whose operands are all static (r0 + imm); fails if any operand the
// formula reads names a register.
Result<Cost> StaticInstrCost(const Instr& in, const NpuTarget& t);

}  // namespace tilejit::target
