// SPDX-License-Identifier: Apache-2.0
// The scalar unit's own instructions (docs/isa.md section 4): integer and fp32-bit arithmetic,
// branches, indices and launch arguments, and the scalar GM/UB loads and stores, which go
// through the same checks (bounds, alignment, races, poison) as pipe instructions.
#include <algorithm>
#include <bit>
#include <cmath>

#include "runner/sim/block_runner.h"

namespace tilejit::runner::sim::internal {

using target::FieldId;
using target::Instr;
using target::Opcode;
using target::Pipe;

namespace {

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

float F32(int64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits)); }
int64_t Bits(float f) { return static_cast<int64_t>(std::bit_cast<uint32_t>(f)); }

}  // namespace

bool BlockRunner::ExecScalarAlu(CoreState& c, const Instr& in) {
  const int pc = static_cast<int>(c.pc);
  int64_t src2 = 0;
  if (target::UsesField(in.op, FieldId::src2)) {
    auto v = target::ResolveOperand(in, FieldId::src2, c.regs);
    if (!v.ok()) {
      Fault(c, pc, Pipe::kS, v.status().message());
      return false;
    }
    src2 = *v;
  }
  const int64_t a = c.regs[in.rs1], b = c.regs[in.rs2];
  int64_t r = 0;
  bool write = true;
  int64_t next = c.pc + 1;
  auto u = [](int64_t x) { return static_cast<uint64_t>(x); };
  switch (in.op) {
    case Opcode::kNop:
      write = false;
      break;
    case Opcode::kLi:
      r = in.imm64;
      break;
    case Opcode::kMov:
      r = a;
      break;
    case Opcode::kAdd:
      r = static_cast<int64_t>(u(a) + u(src2));
      break;
    case Opcode::kSub:
      r = static_cast<int64_t>(u(a) - u(src2));
      break;
    case Opcode::kMul:
      r = static_cast<int64_t>(u(a) * u(src2));
      break;
    case Opcode::kDiv:
    case Opcode::kMod:
      if (src2 == 0 || (a == INT64_MIN && src2 == -1)) {
        Fault(c, pc, Pipe::kS, "integer division by zero (or overflow)");
        return false;
      }
      r = in.op == Opcode::kDiv ? FloorDiv(a, src2) : a - FloorDiv(a, src2) * src2;
      break;
    case Opcode::kMin:
      r = std::min(a, src2);
      break;
    case Opcode::kMax:
      r = std::max(a, src2);
      break;
    case Opcode::kAnd:
      r = a & src2;
      break;
    case Opcode::kOr:
      r = a | src2;
      break;
    case Opcode::kXor:
      r = a ^ src2;
      break;
    case Opcode::kShl:
      r = static_cast<int64_t>(u(a) << (src2 & 63));
      break;
    case Opcode::kShr:
      r = a >> (src2 & 63);
      break;
    case Opcode::kCmp: {
      using target::CmpMode;
      const CmpMode m = in.cmp;
      r = m == CmpMode::kEq   ? a == src2
          : m == CmpMode::kNe ? a != src2
          : m == CmpMode::kLt ? a < src2
          : m == CmpMode::kLe ? a <= src2
          : m == CmpMode::kGt ? a > src2
                              : a >= src2;
      break;
    }
    case Opcode::kSelect:
      r = c.regs[in.rc] != 0 ? a : b;
      break;
    case Opcode::kFadd:
      r = Bits(F32(a) + F32(b));
      break;
    case Opcode::kFsub:
      r = Bits(F32(a) - F32(b));
      break;
    case Opcode::kFmul:
      r = Bits(F32(a) * F32(b));
      break;
    case Opcode::kFdiv:
      r = Bits(F32(a) / F32(b));
      break;
    case Opcode::kFmax:
      r = Bits(std::fmax(F32(a), F32(b)));
      break;
    case Opcode::kFmin:
      r = Bits(std::fmin(F32(a), F32(b)));
      break;
    case Opcode::kItof:
      r = Bits(static_cast<float>(a));
      break;
    case Opcode::kFtoi: {
      const float f = F32(a);
      r = std::isnan(f)         ? 0
          : f >= 9.2233720e18f  ? INT64_MAX
          : f <= -9.2233720e18f ? INT64_MIN
                                : static_cast<int64_t>(f);
      break;
    }
    case Opcode::kJmp:
      write = false;
      next = c.pc + in.off;
      break;
    case Opcode::kBz:
      write = false;
      if (a == 0) next = c.pc + in.off;
      break;
    case Opcode::kBnz:
      write = false;
      if (a != 0) next = c.pc + in.off;
      break;
    case Opcode::kGetCid:
      r = block_;
      break;
    case Opcode::kGetVid:
      r = c.index == 0 ? 0 : c.index - 1;
      break;
    case Opcode::kGetBnum:
      r = ctx_.block_count;
      break;
    case Opcode::kLdArg:
      if (static_cast<size_t>(in.arg) >= ctx_.args.size()) {
        Fault(c, pc, Pipe::kS,
              "ld_arg slot " + std::to_string(in.arg) + " but the launch has " +
                  std::to_string(ctx_.args.size()) + " argument slots");
        return false;
      }
      r = static_cast<int64_t>(ctx_.args[in.arg]);
      break;
    case Opcode::kDbgArg:
    case Opcode::kDbgPrint:
      if (!ExecPrint(c, in)) return false;
      write = false;
      break;
    default:
      Fault(c, pc, Pipe::kS, "not a scalar ALU instruction");
      return false;
  }
  if (write && in.rd != 0) c.regs[in.rd] = r;
  c.pc = next;
  c.stime += t_.scalar_alu.value;
  return true;
}

void BlockRunner::ExecScalarMemory(CoreState& c, const Instr& in) {
  if (in.op == Opcode::kDbgDump) return ExecDump(c, in);
  const int pc = static_cast<int>(c.pc);
  auto addr = target::ResolveOperand(in, FieldId::addr, c.regs);
  if (!addr.ok()) {
    Fault(c, pc, Pipe::kS, addr.status().message());
    return;
  }
  const bool store = in.op == Opcode::kStUb || in.op == Opcode::kStGm;
  const bool ub = in.op == Opcode::kLdUb || in.op == Opcode::kStUb;
  const uint64_t eb = target::DTypeBytes(in.dtype);
  Queued q{in, pc, c.stime};
  q.in.addr = target::OpImm(*addr);
  std::vector<Span> spans = {{ub ? MemSpace::kUb : MemSpace::kGm, static_cast<uint64_t>(*addr), eb,
                              store, false, false, true}};
  if (!CheckSpans(c, q, spans)) return;
  ApplyNow(c, q, spans);  // performs the scalar access (see ApplyNow) and marks poison
  const uint64_t cost = store ? t_.scalar_store.value : t_.scalar_load.value;
  Trace(c, Pipe::kS, c.stime, c.stime + cost, pc);
  CountPc(c, pc, cost);
  c.pipes[static_cast<int>(Pipe::kS)].busy += cost;
  c.stime += cost;
  ++c.pc;
}

}  // namespace tilejit::runner::sim::internal
