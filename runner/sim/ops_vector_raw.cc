// SPDX-License-Identifier: Apache-2.0
// The instructions of AscendC's raw repeat form that are not element-wise (docs/isa.md,
// "Raw repeat form"): the block and whole-repeat reductions, and vgatherb.
//
// Reductions read repeat r's first `mask` elements (block k at src + r * src_rep * 32 +
// k * src_blk * 32) and write one repeat's results at dst + r * dst_rep * (that many
// elements). Why the results are computed per repeat in the compute type: f16 sums accumulate
// in float and round once, like the row reductions. A block with no active element has no
// result (its dst element is not written), and the index of a max or min is the first one.
#include <cstring>
#include <vector>

#include "compiler/target/raw_reduce.h"
#include "runner/sim/ops_vector_internal.h"

namespace tilejit::runner::sim::internal {
namespace {

using target::DType;
using target::Instr;
using target::Opcode;

using target::IsBlockReduce;
using target::IsIndexedReduce;

bool IsSum(Opcode op) { return op == Opcode::kVbreduceSum || op == Opcode::kVwreduceSum; }
bool IsMax(Opcode op) { return op == Opcode::kVbreduceMax || op == Opcode::kVwreduceMax; }

Operand SrcOperand(const Instr& in) {
  return {static_cast<uint64_t>(in.src.imm), static_cast<uint64_t>(in.src_blk),
          static_cast<uint64_t>(in.src_rep), in.dtype};
}

uint64_t DstAt(const Instr& in, uint64_t r) {
  const auto results = static_cast<uint64_t>(target::ReduceResultsPerRepeat(in.op, in.scalar.imm));
  return static_cast<uint64_t>(in.dst.imm) + r * in.dst_rep * results * Eb(in.dtype);
}

uint64_t Written(const Instr& in) {
  return static_cast<uint64_t>(
      target::ReduceResultsWritten(in.op, in.scalar.imm, in.mask.imm, Eb(in.dtype)));
}

template <typename Codec>
void ReduceEffect(const Instr& in, MemView& mem, const Codec& codec) {
  using C = typename Codec::Compute;
  const uint64_t repeat = in.repeat.imm, mask = in.mask.imm;
  const C* x = Gather(codec, mem, SrcOperand(in), repeat, mask, Slot::kSrc);
  const uint64_t group = IsBlockReduce(in.op) ? 32 / Eb(in.dtype) : mask;
  const uint64_t eb = Eb(in.dtype), written = Written(in);
  std::vector<C> values(written);
  std::vector<uint32_t> index(written);
  std::vector<uint8_t> out(repeat * written * eb);  // all results, stored after the reads
  for (uint64_t r = 0; r < repeat; ++r) {
    const C* row = x + r * mask;
    for (uint64_t g = 0; g < written; ++g) {
      const uint64_t lo = g * group, hi = std::min(mask, lo + group);
      C acc = row[lo];
      uint32_t at = 0;
      for (uint64_t j = lo + 1; j < hi; ++j) {
        if (IsSum(in.op)) {
          acc += row[j];
        } else if (IsMax(in.op) ? row[j] > acc : row[j] < acc) {
          acc = row[j];
          at = static_cast<uint32_t>(j - lo);
        }
      }
      values[g] = acc;
      index[g] = at;
    }
    if (!IsIndexedReduce(in.op)) {
      codec.Store(values.data(), written, &out[r * written * eb], target::RoundMode::kRint, false);
      continue;
    }
    // Indexed: the value, the index's bits in an element-wide integer, in the chosen order.
    uint8_t value_bits[4];
    codec.Store(values.data(), 1, value_bits, target::RoundMode::kRint, false);
    const int64_t order = in.scalar.imm;
    uint8_t* o = &out[r * written * eb];
    if (order == 0 || order == 2) std::memcpy(o, value_bits, eb);
    if (order == 1 || order == 3) std::memcpy(o, &index[0], eb);
    if (order == 0) std::memcpy(o + eb, &index[0], eb);
    if (order == 1) std::memcpy(o + eb, value_bits, eb);
  }
  for (uint64_t r = 0; r < repeat; ++r) {
    std::memcpy(mem.Ptr(MemSpace::kUb, DstAt(in, r), written * eb), &out[r * written * eb],
                written * eb);
  }
}

}  // namespace

bool IsRawVector(Opcode op) {
  return IsBlockReduce(op) || op == Opcode::kVwreduceSum || IsIndexedReduce(op) ||
         op == Opcode::kVgatherb;
}

void DescribeRaw(const Instr& in, std::vector<Span>* out) {
  const uint64_t repeat = in.repeat.imm;
  if (in.op == Opcode::kVgatherb) {
    AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.src.imm),
                 static_cast<uint64_t>(in.len.imm), false});
    AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.src1.imm), repeat * 8 * 4, false});
    for (uint64_t b = 0; b < repeat * 8; ++b) {
      const uint64_t at = in.dst.imm + ((b / 8) * in.dst_rep + (b % 8) * in.dst_blk) * 32;
      AddRun(out, {MemSpace::kUb, at, 32, true});
    }
    return;
  }
  DescribeOperand(SrcOperand(in), repeat, in.mask.imm, false, out);
  for (uint64_t r = 0; r < repeat; ++r) {
    AddRun(out, {MemSpace::kUb, DstAt(in, r), Written(in) * Eb(in.dtype), true});
  }
}

Status ApplyRaw(const Instr& in, MemView& mem) {
  if (in.op != Opcode::kVgatherb) {
    if (in.repeat.imm > 0) {
      VisitCodec(in.dtype, [&](const auto& codec) { ReduceEffect(in, mem, codec); });
    }
    return Status::Ok();
  }
  // vgatherb: every block is read before any is written.
  const uint64_t blocks = static_cast<uint64_t>(in.repeat.imm) * 8;
  const uint64_t len = in.len.imm;
  const uint8_t* offsets = mem.Ptr(MemSpace::kUb, in.src1.imm, blocks * 4);
  const uint8_t* table = mem.Ptr(MemSpace::kUb, in.src.imm, len);
  std::vector<uint8_t> data(blocks * 32);
  for (uint64_t b = 0; b < blocks; ++b) {
    uint32_t off;
    std::memcpy(&off, offsets + 4 * b, 4);
    if (off % 32 != 0 || off + 32 > len) {
      return InvalidArgument("vgatherb: block offset " + std::to_string(off) +
                             " is not a 32-byte block inside the " + std::to_string(len) +
                             "-byte table");
    }
    std::memcpy(&data[b * 32], table + off, 32);
  }
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t at = in.dst.imm + ((b / 8) * in.dst_rep + (b % 8) * in.dst_blk) * 32;
    std::memcpy(mem.Ptr(MemSpace::kUb, at, 32), &data[b * 32], 32);
  }
  return Status::Ok();
}

}  // namespace tilejit::runner::sim::internal
