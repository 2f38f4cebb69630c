// SPDX-License-Identifier: Apache-2.0
// Simulated memory is bytes at any alignment, so runs are copied through memcpy (which the
// compiler turns into plain vector loads and stores) rather than read through a cast pointer;
// only Gather reads an aligned contiguous fp32 operand in place. 16-bit runs go through a
// small stack array in chunks: the bulk conversions of half.h take typed arrays.
#include "runner/sim/vector_codec.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "runner/sim/half.h"
#include "runner/sim/ops.h"

namespace tilejit::runner::sim::internal {
namespace {

constexpr size_t kChunk = 256;

// Widens 16-bit storage elements chunk by chunk with `widen` (a half.h bulk conversion).
template <typename Widen>
void Widen16(const uint8_t* src, size_t n, float* out, Widen widen) {
  uint16_t bits[kChunk];
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t k = std::min(kChunk, n - i);
    std::memcpy(bits, src + 2 * i, 2 * k);
    widen(bits, out + i, k);
  }
}

template <typename Narrow>
void Narrow16(const float* in, size_t n, uint8_t* dst, Narrow narrow) {
  uint16_t bits[kChunk];
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t k = std::min(kChunk, n - i);
    narrow(in + i, bits, k);
    std::memcpy(dst + 2 * i, bits, 2 * k);
  }
}

// Element by element through StoreElem: the directed rounding modes of casts.
void StoreEach(const float* in, size_t n, uint8_t* dst, target::DType d, target::RoundMode mode) {
  for (size_t i = 0; i < n; ++i) StoreElem(dst + 2 * i, d, in[i], mode);
}

}  // namespace

void F32Codec::Load(const uint8_t* src, size_t n, float* out) const {
  std::memcpy(out, src, n * sizeof(float));
}

void F32Codec::Store(const float* in, size_t n, uint8_t* dst, target::RoundMode, bool) const {
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits = std::bit_cast<uint32_t>(in[i]);
    if ((bits & 0x7fffffffu) > 0x7f800000u) bits |= 0x00400000u;  // NaN: set the quiet bit
    std::memcpy(dst + 4 * i, &bits, 4);
  }
}

void F16Codec::Load(const uint8_t* src, size_t n, float* out) const {
  Widen16(src, n, out, HalfToFloatN);
}

void F16Codec::Store(const float* in, size_t n, uint8_t* dst, target::RoundMode mode, bool) const {
  if (mode != target::RoundMode::kRint) return StoreEach(in, n, dst, target::DType::kF16, mode);
  Narrow16(in, n, dst, FloatToHalfN);
}

void Bf16Codec::Load(const uint8_t* src, size_t n, float* out) const {
  Widen16(src, n, out, Bf16ToFloatN);
}

void Bf16Codec::Store(const float* in, size_t n, uint8_t* dst, target::RoundMode mode, bool) const {
  if (mode != target::RoundMode::kRint) return StoreEach(in, n, dst, target::DType::kBF16, mode);
  Narrow16(in, n, dst, FloatToBf16N);
}

void GenericCodec::Load(const uint8_t* src, size_t n, double* out) const {
  const size_t eb = target::DTypeBytes(type);
  for (size_t i = 0; i < n; ++i) out[i] = LoadElem(src + i * eb, type);
}

void GenericCodec::Store(const double* in, size_t n, uint8_t* dst, target::RoundMode mode,
                         bool saturate) const {
  const size_t eb = target::DTypeBytes(type);
  for (size_t i = 0; i < n; ++i) StoreElem(dst + i * eb, type, in[i], mode, saturate);
}

}  // namespace tilejit::runner::sim::internal
