// SPDX-License-Identifier: Apache-2.0
// The repeat-form engine (vector_internal.h). Why three strategies:
//  - flat: when every operand's rows follow each other without padding the matrix is one
//    run, so full 256-byte repeats (255 per instruction) plus one masked tail cover it with
//    the fewest instructions;
//  - row chunks: UB rows are padded to 32 bytes, so a matrix whose row bytes are not a
//    multiple of 32 (or a column sub-range) is not one run. Repeating over rows with the
//    repeat stride = the row pitch and mask = the chunk width touches exactly the elements,
//    never the padding (checked mode reports reads of never-written bytes);
//  - per-row runs: for a few long rows (or pitches past the 8-bit repeat stride) each row is a
//    flat run, which needs fewer instructions than column chunks.
#include <algorithm>

#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen::vec {
namespace {

constexpr int64_t kMaxRepeat = 255;
constexpr int64_t kMaxStride = 255;  // blk / rep fields, in 32-byte blocks

using Offsets = std::array<int64_t, 3>;

void SetSlot(target::Instr& in, int slot, target::Opnd addr, int64_t rep) {
  using F = target::FieldId;
  const bool strided = target::UsesField(in.op, slot == kDst   ? F::dst_blk
                                                : slot == kSrc ? F::src_blk
                                                               : F::src1_blk);
  const int64_t blk = strided ? 1 : 0;
  if (!strided) rep = 0;
  switch (slot) {
    case kDst:
      in.dst = addr;
      in.dst_blk = blk;
      in.dst_rep = rep;
      break;
    case kSrc:
      in.src = addr;
      in.src_blk = blk;
      in.src_rep = rep;
      break;
    default:
      in.src1 = addr;
      in.src1_blk = blk;
      in.src1_rep = rep;
      break;
  }
}

// One instruction: `repeat` repeats of `mask` elements; operand i starts `off[i]` bytes past
// its stream's address and advances `rep[i]` blocks per repeat.
Status EmitOne(VecOp& v, const RepeatArgs& a, const Offsets& off, const Offsets& rep,
               int64_t repeat, int64_t mask) {
  target::Instr in = a.proto;
  for (int i = 0; i < 3; ++i) {
    if (a.ops[i]) SetSlot(in, i, Off(a.ops[i]->addr, off[i]), rep[i]);
  }
  in.repeat = target::OpImm(repeat);
  in.mask = target::OpImm(mask);
  return v.Emit(in);
}

int64_t ElemsPerRepeat(const RepeatArgs& a) {
  int es = 1;
  for (const auto& s : a.ops) {
    if (s) es = std::max(es, s->es);
  }
  return target::kRepeatBytes / es;
}

// `n` consecutive elements starting `base[i]` bytes into each operand.
Status EmitFlat(VecOp& v, const RepeatArgs& a, const Offsets& base, int64_t n) {
  const int64_t epr = ElemsPerRepeat(a), full = n / epr, tail = n % epr;
  Offsets rep{}, off{};
  for (int i = 0; i < 3; ++i) {
    if (a.ops[i]) rep[i] = epr * a.ops[i]->es / target::kBlockBytes;
  }
  for (int64_t k = 0; k < full; k += kMaxRepeat) {
    for (int i = 0; i < 3; ++i) off[i] = a.ops[i] ? base[i] + k * epr * a.ops[i]->es : 0;
    TILEJIT_RETURN_IF_ERROR(EmitOne(v, a, off, rep, std::min(kMaxRepeat, full - k), epr));
  }
  if (tail == 0) return Status::Ok();
  for (int i = 0; i < 3; ++i) off[i] = a.ops[i] ? base[i] + full * epr * a.ops[i]->es : 0;
  return EmitOne(v, a, off, rep, 1, tail);
}

// Column chunks of `epr` elements, each repeated over groups of up to `group` rows.
Status EmitRowChunks(VecOp& v, const RepeatArgs& a, int64_t group) {
  const int64_t epr = ElemsPerRepeat(a);
  Offsets rep{}, off{};
  for (int i = 0; i < 3; ++i) {
    if (a.ops[i] && group > 1) rep[i] = a.ops[i]->pitch / target::kBlockBytes;
  }
  for (int64_t c0 = 0; c0 < a.cols; c0 += epr) {
    const int64_t w = std::min(epr, a.cols - c0);
    for (int64_t r0 = 0; r0 < a.rows; r0 += group) {
      for (int i = 0; i < 3; ++i) {
        off[i] = a.ops[i] ? r0 * a.ops[i]->pitch + c0 * a.ops[i]->es : 0;
      }
      TILEJIT_RETURN_IF_ERROR(EmitOne(v, a, off, rep, std::min(group, a.rows - r0), w));
    }
  }
  return Status::Ok();
}

}  // namespace

Status EmitRepeat(VecOp& v, const RepeatArgs& a) {
  if (a.rows <= 0 || a.cols <= 0) return Status::Ok();
  bool dense = true, stride_ok = true;
  for (const auto& s : a.ops) {
    if (!s) continue;
    dense = dense && (a.rows == 1 || s->pitch == a.cols * s->es);
    stride_ok = stride_ok && s->pitch % target::kBlockBytes == 0 &&
                s->pitch / target::kBlockBytes <= kMaxStride;
  }
  if (dense) return EmitFlat(v, a, Offsets{}, a.rows * a.cols);
  const int64_t epr = ElemsPerRepeat(a);
  const int64_t group = stride_ok ? kMaxRepeat : 1;
  const int64_t chunked = (a.cols + epr - 1) / epr * ((a.rows + group - 1) / group);
  const int64_t full = a.cols / epr;
  const int64_t per_row = a.rows * ((full + kMaxRepeat - 1) / kMaxRepeat + (a.cols % epr ? 1 : 0));
  if (per_row >= chunked) return EmitRowChunks(v, a, group);
  for (int64_t r = 0; r < a.rows; ++r) {
    Offsets base{};
    for (int i = 0; i < 3; ++i) base[i] = a.ops[i] ? r * a.ops[i]->pitch : 0;
    TILEJIT_RETURN_IF_ERROR(EmitFlat(v, a, base, a.cols));
  }
  return Status::Ok();
}

}  // namespace tilejit::codegen::vec
