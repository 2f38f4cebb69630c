// SPDX-License-Identifier: Apache-2.0
// 16-bit floating-point storage formats of the NPU (IEEE binary16 "fp16" and bfloat16) and the
// rounding casts of the vector unit's conversion instructions (vconv round modes).
//
// All functions are pure and thread-safe. Widening (16 -> 32 bit) is exact. Narrowing rounds
// by the given mode; NaN stays NaN (quiet), infinities stay infinities, and overflow follows
// the mode: modes that round away from zero in that direction give infinity, the others the
// largest finite value (IEEE 754 behaviour for directed rounding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tilejit::runner::sim {

// Rounding modes of the conversion instructions.
enum class RoundMode : uint8_t {
  kRint = 0,   // to nearest, ties to even (the default of every implicit conversion)
  kFloor = 1,  // toward -infinity
  kCeil = 2,   // toward +infinity
  kRound = 3,  // to nearest, ties away from zero
  kTrunc = 4,  // toward zero
  kOdd = 5,    // toward zero, then set the last kept bit if anything was dropped (von Neumann)
};

std::string_view RoundModeName(RoundMode mode);

// Widening, exact.
float HalfToFloat(uint16_t h);
float Bf16ToFloat(uint16_t b);

// Narrowing with round-to-nearest-even.
uint16_t FloatToHalf(float f);
uint16_t FloatToBf16(float f);

// Narrowing with an explicit mode.
uint16_t FloatToHalf(float f, RoundMode mode);
uint16_t FloatToBf16(float f, RoundMode mode);

// `v` rounded to an integral value by `mode` (kOdd: truncate, then make an inexact result odd).
double RoundToIntegral(double v, RoundMode mode);

// float -> integer in [lo, hi] by mode (saturating; NaN gives 0).
int64_t FloatToInt(float f, RoundMode mode, int64_t lo, int64_t hi);

// Bulk forms used by the executor (one call per instruction, no per-element dispatch).
void HalfToFloatN(const uint16_t* src, float* dst, size_t n);
void Bf16ToFloatN(const uint16_t* src, float* dst, size_t n);
void FloatToHalfN(const float* src, uint16_t* dst, size_t n);
void FloatToBf16N(const float* src, uint16_t* dst, size_t n);

}  // namespace tilejit::runner::sim
