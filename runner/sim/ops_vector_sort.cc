// SPDX-License-Identifier: Apache-2.0
// vsort32 and vmrgsort: the proposal instructions (docs/isa.md, "Sorting"). A proposal is
// 8 bytes: the value at byte 0 (f32, or f16 and two zero bytes) and a 32-bit index at byte 4
// (target::kProposalBytes).
//
// Why an explicit order key rather than operator>: AscendC leaves the order of NaN and of
// equal values open. We sort by a total order in which NaN ranks above +inf (so a NaN score
// comes first, as the largest) and equal values keep their source order; merging takes from
// the first list on ties. Both choices are stated in docs/isa.md.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "runner/sim/half.h"
#include "runner/sim/ops_vector_internal.h"

namespace tilejit::runner::sim::internal {
namespace {

using target::DType;
using target::Instr;
using target::kProposalBytes;
using target::kSortGroup;

struct Proposal {
  float value = 0;     // the comparison key
  uint32_t bits = 0;   // the value's stored bits (f32, or f16 in the low half)
  uint32_t index = 0;  // the 32-bit index, moved unchanged
};

// a ranks before b: larger values first, NaN above everything.
bool Before(float a, float b) {
  if (std::isnan(b)) return false;
  if (std::isnan(a)) return true;
  return a > b;
}

float ValueOf(uint32_t bits, DType d) {
  return d == DType::kF16 ? HalfToFloat(static_cast<uint16_t>(bits)) : std::bit_cast<float>(bits);
}

Proposal LoadProposal(const uint8_t* p) {
  Proposal out;
  std::memcpy(&out.bits, p, 4);
  std::memcpy(&out.index, p + 4, 4);
  out.value = std::bit_cast<float>(out.bits);
  return out;
}

void StoreProposal(const Proposal& q, DType d, uint8_t* p) {
  const uint32_t bits = d == DType::kF16 ? (q.bits & 0xffffu) : q.bits;
  std::memcpy(p, &bits, 4);
  std::memcpy(p + 4, &q.index, 4);
}

}  // namespace

void DescribeSort(const Instr& in, std::vector<Span>* out) {
  const auto at = [](const target::Opnd& o) { return static_cast<uint64_t>(o.imm); };
  if (in.op == target::Opcode::kVsort32) {
    const uint64_t n = static_cast<uint64_t>(in.repeat.imm) * kSortGroup;
    AddRun(out, {MemSpace::kUb, at(in.src), n * Eb(in.dtype), false});
    AddRun(out, {MemSpace::kUb, at(in.src1), n * 4, false});
    AddRun(out, {MemSpace::kUb, at(in.dst), n * kProposalBytes, true});
    return;
  }
  const uint64_t n0 = in.count.imm, n1 = in.count1.imm;
  AddRun(out, {MemSpace::kUb, at(in.src), n0 * kProposalBytes, false});
  AddRun(out, {MemSpace::kUb, at(in.src1), n1 * kProposalBytes, false});
  AddRun(out, {MemSpace::kUb, at(in.dst), (n0 + n1) * kProposalBytes, true});
}

// vsort32: each group of 32 (value, index) pairs sorted into proposals.
Status Sort32Effect(const Instr& in, MemView& mem) {
  const uint64_t n = static_cast<uint64_t>(in.repeat.imm) * kSortGroup, eb = Eb(in.dtype);
  if (n == 0) return Status::Ok();
  const uint8_t* values = mem.Ptr(MemSpace::kUb, in.src.imm, n * eb);
  const uint8_t* indices = mem.Ptr(MemSpace::kUb, in.src1.imm, n * 4);
  std::vector<Proposal> all(n);
  for (uint64_t k = 0; k < n; ++k) {
    Proposal& q = all[k];
    std::memcpy(&q.bits, values + k * eb, eb);
    std::memcpy(&q.index, indices + k * 4, 4);
    q.value = ValueOf(q.bits, in.dtype);
  }
  for (uint64_t g = 0; g < n; g += kSortGroup) {
    std::stable_sort(all.begin() + g, all.begin() + g + kSortGroup,
                     [](const Proposal& a, const Proposal& b) { return Before(a.value, b.value); });
  }
  uint8_t* dst = mem.Ptr(MemSpace::kUb, in.dst.imm, n * kProposalBytes);
  for (uint64_t k = 0; k < n; ++k) StoreProposal(all[k], in.dtype, dst + k * kProposalBytes);
  return Status::Ok();
}

// vmrgsort: two sorted f32 proposal lists merged, the first list winning ties. The result is
// computed before it is stored, so dst may overlap a source.
Status MrgSortEffect(const Instr& in, MemView& mem) {
  const uint64_t n0 = in.count.imm, n1 = in.count1.imm;
  const uint8_t* a = mem.Ptr(MemSpace::kUb, in.src.imm, n0 * kProposalBytes);
  const uint8_t* b = mem.Ptr(MemSpace::kUb, in.src1.imm, n1 * kProposalBytes);
  std::vector<uint8_t> out((n0 + n1) * kProposalBytes);
  uint64_t i = 0, j = 0;
  for (uint64_t k = 0; k < n0 + n1; ++k) {
    const bool take_b = i == n0 || (j < n1 && Before(LoadProposal(b + j * kProposalBytes).value,
                                                     LoadProposal(a + i * kProposalBytes).value));
    const uint8_t* from = take_b ? b + (j++) * kProposalBytes : a + (i++) * kProposalBytes;
    std::memcpy(&out[k * kProposalBytes], from, kProposalBytes);
  }
  std::memcpy(mem.Ptr(MemSpace::kUb, in.dst.imm, out.size()), out.data(), out.size());
  return Status::Ok();
}

}  // namespace tilejit::runner::sim::internal
