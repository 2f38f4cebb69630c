// SPDX-License-Identifier: Apache-2.0
// Typed element runs for the vector effects (internal to runner/sim/ops_vector*.cc).
//
// A codec moves a run of `n` elements of one storage dtype between simulated memory (bytes at
// any alignment) and a contiguous array of the type the effect computes in:
//   F32Codec, F16Codec, Bf16Codec  compute in float (widening is exact; fp16 through F16C
//                                  when the CPU has it);
//   GenericCodec                   computes in double, element by element through LoadElem
//                                  and StoreElem (integer dtypes, which no hot path uses).
// Store narrows exactly as StoreElem (ops.h) does for the same value: round to nearest even
// unless a cast names another mode; fp32 stores quiet a signalling NaN, as the float -> double
// -> float round trip of the scalar helpers does, so the bits never depend on the path taken.
//
// VisitCodec(dtype, fn) calls fn with the codec of `dtype`; the effects are templates over the
// codec, so every (operation, dtype) pair compiles to its own loop over contiguous arrays.
//
// Scratch(slot, n) hands out a thread's reusable buffers. Everything here is stateless apart
// from those thread_local buffers: thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "compiler/target/isa.h"

namespace tilejit::runner::sim::internal {

// Buffer slots of one effect (per element type).
enum class Slot { kSrc, kSrc1, kDst, kOut, kVec, kAcc, kCount };

// This thread's buffer `slot` of at least `n` elements of T. Valid until the same thread asks
// for the same (T, slot) again; the contents are unspecified.
template <typename T>
T* Scratch(Slot slot, size_t n) {
  thread_local std::array<std::vector<T>, static_cast<size_t>(Slot::kCount)> buffers;
  std::vector<T>& b = buffers[static_cast<size_t>(slot)];
  if (b.size() < n) b.resize(n);
  return b.data();
}

struct F32Codec {
  using Compute = float;
  target::DType dtype() const { return target::DType::kF32; }
  void Load(const uint8_t* src, size_t n, float* out) const;
  void Store(const float* in, size_t n, uint8_t* dst, target::RoundMode mode, bool saturate) const;
};

struct F16Codec {
  using Compute = float;
  target::DType dtype() const { return target::DType::kF16; }
  void Load(const uint8_t* src, size_t n, float* out) const;
  void Store(const float* in, size_t n, uint8_t* dst, target::RoundMode mode, bool saturate) const;
};

struct Bf16Codec {
  using Compute = float;
  target::DType dtype() const { return target::DType::kBF16; }
  void Load(const uint8_t* src, size_t n, float* out) const;
  void Store(const float* in, size_t n, uint8_t* dst, target::RoundMode mode, bool saturate) const;
};

// Any dtype, one element at a time in double (integer results round by the mode, then wrap,
// or saturate for casts: StoreElem's rules).
struct GenericCodec {
  using Compute = double;
  target::DType type;
  target::DType dtype() const { return type; }
  void Load(const uint8_t* src, size_t n, double* out) const;
  void Store(const double* in, size_t n, uint8_t* dst, target::RoundMode mode, bool saturate) const;
};

template <typename Fn>
decltype(auto) VisitCodec(target::DType d, Fn&& fn) {
  switch (d) {
    case target::DType::kF32:
      return std::forward<Fn>(fn)(F32Codec{});
    case target::DType::kF16:
      return std::forward<Fn>(fn)(F16Codec{});
    case target::DType::kBF16:
      return std::forward<Fn>(fn)(Bf16Codec{});
    default:
      return std::forward<Fn>(fn)(GenericCodec{d});
  }
}

}  // namespace tilejit::runner::sim::internal
