// SPDX-License-Identifier: Apache-2.0
// Lookups over a target description, its canonical serialisation and hash, and the
// core-type check of instructions. The serialisation walks one explicit member list
// (kIntFigs / kRealFigs below) so that the hash, the figure listing and the tag test all see
// the same fields; adding a Figure member to NpuTarget means adding it there.
#include "compiler/target/npu_target.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <utility>

#include "common/sha256.h"

namespace tilejit::target {
namespace {

#define TILEJIT_TARGET_INT_FIGS(X) \
  X(npu_arch)                      \
  X(num_groups)                    \
  X(aic_per_group)                 \
  X(aiv_per_group)                 \
  X(gm_bytes)                      \
  X(gm_preferred_align)            \
  X(l2_bytes)                      \
  X(l2_line_bytes)                 \
  X(l2_hit_latency)                \
  X(l2_miss_extra)                 \
  X(l2_read_bpc)                   \
  X(l2_write_bpc)                  \
  X(hbm_bpc)                       \
  X(ub_banks)                      \
  X(ub_bank_bytes)                 \
  X(ub_bank_groups)                \
  X(scalar_dcache_line)            \
  X(event_ids_per_pair)            \
  X(cross_flag_ids)                \
  X(cross_flag_ids_hw)             \
  X(cross_flag_counter_max)        \
  X(issue_queue_depth)             \
  X(c0_bytes)                      \
  X(fractal_rows)                  \
  X(fractal_bytes)                 \
  X(mmad_max_mnk)                  \
  X(repeat_bytes)                  \
  X(max_repeat)                    \
  X(mask_bits)                     \
  X(block_bytes)                   \
  X(mmad_state_latency)            \
  X(vec_pipeline_delay)            \
  X(vec_api_fixed_cost)            \
  X(vec_set_mask_cycles)           \
  X(ub_copy_latency)               \
  X(ub_copy_bpc)                   \
  X(gm_read_bpc)                   \
  X(gm_write_bpc)                  \
  X(gm_read_latency)               \
  X(gm_write_latency)              \
  X(dma_uop_bytes)                 \
  X(ub_bpc)                        \
  X(l1_write_bpc)                  \
  X(l1_read_bpc)                   \
  X(l0a_write_bpc)                 \
  X(l0b_write_bpc)                 \
  X(l0c_read_bpc)                  \
  X(load2d_latency)                \
  X(load3d_latency)                \
  X(fix_l1_latency)                \
  X(scalar_alu)                    \
  X(scalar_load)                   \
  X(scalar_store)                  \
  X(sync_cycles)                   \
  X(cross_set_latency)             \
  X(ddr_rate_bpc)                  \
  X(ub_to_l2_bpc)                  \
  X(vec_pipe_head)                 \
  X(kernel_head_cycles)            \
  X(mte2_head_threshold_bytes)     \
  X(mte3_head)

#define TILEJIT_TARGET_REAL_FIGS(X) \
  X(aic_clock_hz)                   \
  X(aiv_clock_hz)                   \
  X(hbm_bw_bytes_per_s)             \
  X(kernel_launch_overhead_us)      \
  X(mte2_head_large_base)           \
  X(mte2_head_large_per_block)      \
  X(mte2_head_small_base)           \
  X(mte2_head_small_per_block)

using FigFn = std::function<void(std::string_view, double, std::string_view)>;

void VisitInt(const FigFn& fn, const std::string& name, const IntFig& f) {
  fn(name, static_cast<double>(f.value), f.tag);
}

std::string PipeList(const std::vector<Pipe>& pipes) {
  std::string s;
  for (Pipe p : pipes) s += std::string(PipeName(p)) + " ";
  return s;
}

std::string PairList(const std::vector<PipePair>& pairs) {
  std::string s;
  for (const PipePair& p : pairs) {
    s += std::string(PipeName(p.src)) + "_" + std::string(PipeName(p.dst)) + " ";
  }
  return s;
}

std::string FormatNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

}  // namespace

std::string_view CoreTypeName(CoreType c) { return c == CoreType::kAic ? "aic" : "aiv"; }

std::string_view MemName(Mem m) {
  constexpr std::string_view kNames[kNumMems] = {"gm", "l1", "l0a", "l0b", "l0c", "ub", "bt", "fb"};
  const int i = static_cast<int>(m);
  return i < kNumMems ? kNames[i] : "?";
}

const NpuTarget* FindTarget(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const NpuTarget* t : {&Ascend910B2(), &Ascend910B4()}) {
    if (lower == t->name) return t;
  }
  return nullptr;
}

std::vector<std::string_view> TargetNames() { return {Ascend910B2().name, Ascend910B4().name}; }

void ForEachFigure(const NpuTarget& t, const FigFn& fn) {
#define TILEJIT_X(f) VisitInt(fn, #f, t.f);
  TILEJIT_TARGET_INT_FIGS(TILEJIT_X)
#undef TILEJIT_X
#define TILEJIT_X(f) fn(#f, t.f.value, t.f.tag);
  TILEJIT_TARGET_REAL_FIGS(TILEJIT_X)
#undef TILEJIT_X
  for (const MemInfo& m : t.mems) {
    const std::string base = "mems." + std::string(MemName(m.mem));
    VisitInt(fn, base + ".bytes", m.bytes);
    VisitInt(fn, base + ".align", m.align);
  }
  for (const CubeDtype& c : t.cube_dtypes) {
    const std::string base = "cube." + std::string(DTypeName(c.in));
    VisitInt(fn, base + ".kstep", c.kstep);
    VisitInt(fn, base + ".macs_per_cycle", c.macs_per_cycle);
  }
  for (const VecCost& v : t.vec_costs) {
    const std::string base = "vec." + std::to_string(static_cast<int>(v.cls));
    VisitInt(fn, base + ".p_f16", v.p_f16);
    VisitInt(fn, base + ".p_f32", v.p_f32);
    VisitInt(fn, base + ".p_s16", v.p_s16);
    VisitInt(fn, base + ".p_s32", v.p_s32);
    VisitInt(fn, base + ".t", v.t);
    VisitInt(fn, base + ".d_int", v.d_int);
    VisitInt(fn, base + ".d_fp", v.d_fp);
  }
  for (const FittedCost& c : t.fitted_api_costs) {
    fn("fitted." + std::string(c.op) + ".per_elem", c.per_elem.value, c.per_elem.tag);
    fn("fitted." + std::string(c.op) + ".fixed", c.fixed.value, c.fixed.tag);
  }
}

std::string SerializeTarget(const NpuTarget& t) {
  std::string out = "name=" + std::string(t.name) + "\nsoc=" + std::string(t.soc) + "\n";
  ForEachFigure(t, [&](std::string_view name, double value, std::string_view tag) {
    out += std::string(name) + "=" + FormatNumber(value) + " [" + std::string(tag) + "]\n";
  });
  for (const MemInfo& m : t.mems) {
    out += "mems." + std::string(MemName(m.mem)) + ".owner=" + std::string(CoreTypeName(m.owner)) +
           "\n";
  }
  for (const CubeDtype& c : t.cube_dtypes) {
    out += "cube." + std::string(DTypeName(c.in)) + "=" + std::string(DTypeName(c.acc)) + " " +
           std::to_string(c.frac_m) + "x" + std::to_string(c.frac_k) + "x" +
           std::to_string(c.frac_n) + "\n";
  }
  out += "aic_pipes=" + PipeList(t.aic_pipes) + "\naiv_pipes=" + PipeList(t.aiv_pipes) + " [" +
         std::string(t.pipes_tag) + "]\n";
  for (const DataPath& p : t.paths) {
    out += "path=" + std::string(MemName(p.src)) + ">" + std::string(MemName(p.dst)) + " " +
           std::string(PipeName(p.pipe)) + " " + std::string(CoreTypeName(p.core)) + " [" +
           std::string(p.tag) + "]\n";
  }
  for (const ForbiddenPath& p : t.forbidden_paths) {
    out += "forbidden=" + std::string(MemName(p.src)) + ">" + std::string(MemName(p.dst)) + " " +
           std::string(p.reason) + " [" + std::string(p.tag) + "]\n";
  }
  out += "aic_event_pairs=" + PairList(t.aic_event_pairs) +
         "\naiv_event_pairs=" + PairList(t.aiv_event_pairs) + " [" +
         std::string(t.event_pairs_tag) + "]\n";
  out += "cross_modes=";
  for (int64_t m : t.cross_modes) out += std::to_string(m) + " ";
  out += "[" + std::string(t.cross_modes_tag) + "]\n";
  return out;
}

std::string TargetHash(const NpuTarget& t) { return Sha256Hex(SerializeTarget(t)); }

const MemInfo* MemInfoOf(const NpuTarget& t, Mem m) {
  for (const MemInfo& info : t.mems) {
    if (info.mem == m) return &info;
  }
  return nullptr;
}

const std::vector<Pipe>& PipesOf(const NpuTarget& t, CoreType c) {
  return c == CoreType::kAic ? t.aic_pipes : t.aiv_pipes;
}

bool HasPipe(const NpuTarget& t, CoreType c, Pipe p) {
  const std::vector<Pipe>& pipes = PipesOf(t, c);
  return std::find(pipes.begin(), pipes.end(), p) != pipes.end();
}

const DataPath* FindPath(const NpuTarget& t, Mem src, Mem dst) {
  for (const DataPath& p : t.paths) {
    if (p.src == src && p.dst == dst) return &p;
  }
  return nullptr;
}

bool IsForbiddenPath(const NpuTarget& t, Mem src, Mem dst) {
  for (const ForbiddenPath& p : t.forbidden_paths) {
    if (p.src == src && p.dst == dst) return true;
  }
  return false;
}

bool IsLegalEventPair(const NpuTarget& t, CoreType c, Pipe src, Pipe dst) {
  const std::vector<PipePair>& pairs = c == CoreType::kAic ? t.aic_event_pairs : t.aiv_event_pairs;
  return std::find(pairs.begin(), pairs.end(), PipePair{src, dst}) != pairs.end();
}

const CubeDtype* FindCubeDtype(const NpuTarget& t, DType in) {
  for (const CubeDtype& c : t.cube_dtypes) {
    if (c.in == in) return &c;
  }
  return nullptr;
}

const VecCost* FindVecCost(const NpuTarget& t, TimingClass cls) {
  for (const VecCost& v : t.vec_costs) {
    if (v.cls == cls) return &v;
  }
  return nullptr;
}

double CubePeakFlops(const NpuTarget& t, DType in) {
  const CubeDtype* c = FindCubeDtype(t, in);
  if (c == nullptr) return 0;
  return 2.0 * static_cast<double>(c->macs_per_cycle.value) *
         static_cast<double>(t.num_groups.value * t.aic_per_group.value) * t.aic_clock_hz.value;
}

int64_t C0Elems(const NpuTarget& t, DType d) {
  const int bytes = DTypeBytes(d);
  return bytes == 0 ? 0 : t.c0_bytes.value / bytes;
}

Status ValidateForCore(const Instr& in, CoreType core, const NpuTarget& t) {
  if (static_cast<int>(in.op) >= kNumOpcodes) return Validate(in);  // names the bad opcode
  const OpcodeInfo& info = GetOpcodeInfo(in.op);
  // Every instruction of every compile passes here: the message is built only for an error.
  auto where = [&] {
    return std::string(info.mnemonic) + " on " + std::string(CoreTypeName(core));
  };
  const int core_bit = core == CoreType::kAic ? 1 : 2;
  if ((static_cast<int>(info.cores) & core_bit) == 0) {
    return InvalidArgument(where() + ": instruction not available on this core type");
  }
  const Pipe pipe = IssuePipe(in);
  if (pipe != Pipe::kAll && !HasPipe(t, core, pipe)) {
    return InvalidArgument(where() + ": core has no pipe " + std::string(PipeName(pipe)));
  }
  if (in.op == Opcode::kSetFlag || in.op == Opcode::kWaitFlag) {
    if (!IsLegalEventPair(t, core, in.spipe, in.dpipe)) {
      return InvalidArgument(where() + ": event pair " + std::string(PipeName(in.spipe)) + "->" +
                             std::string(PipeName(in.dpipe)) + " is not legal on this core");
    }
    if (in.event.is_static() && in.event.imm >= t.event_ids_per_pair.value) {
      return InvalidArgument(where() + ": event id " + std::to_string(in.event.imm) +
                             " >= " + std::to_string(t.event_ids_per_pair.value));
    }
  }
  if ((in.op == Opcode::kXset || in.op == Opcode::kXwait) && in.flag.is_static() &&
      in.flag.imm >= t.cross_flag_ids.value) {
    return InvalidArgument(where() + ": cross-core flag id " + std::to_string(in.flag.imm) +
                           " >= " + std::to_string(t.cross_flag_ids.value));
  }
  return Status::Ok();
}

Status ValidateProgram(std::span<const Instr> program, CoreType core, const NpuTarget& t) {
  for (size_t i = 0; i < program.size(); ++i) {
    Status s = Validate(program[i]);
    if (s.ok()) s = ValidateForCore(program[i], core, t);
    if (!s.ok()) return s.WithContext("instruction " + std::to_string(i));
  }
  return ValidateControlFlow(program);
}

Status ValidateControlFlow(std::span<const Instr> program) {
  if (program.empty()) return InvalidArgument("empty program");
  const int64_t n = static_cast<int64_t>(program.size());
  for (int64_t i = 0; i < n; ++i) {
    const Instr& in = program[i];
    const bool branch = in.op == Opcode::kJmp || in.op == Opcode::kBz || in.op == Opcode::kBnz;
    if (branch && (i + in.off < 0 || i + in.off >= n)) {
      return InvalidArgument("instruction " + std::to_string(i) + ": branch target " +
                             std::to_string(i + in.off) + " outside the program");
    }
  }
  const Opcode last = program.back().op;
  if (last != Opcode::kEnd && last != Opcode::kJmp) {
    return InvalidArgument("program can run past its last instruction (" +
                           std::string(OpcodeName(last)) + "); end it with `end`");
  }
  return Status::Ok();
}

}  // namespace tilejit::target
