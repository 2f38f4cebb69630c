// SPDX-License-Identifier: Apache-2.0
#include "runner/sim/half.h"

#include <bit>
#include <cmath>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace tilejit::runner::sim {

namespace {

// A 16-bit binary floating-point format: 1 sign bit, `exp_bits`, `man_bits`.
struct Format {
  int exp_bits;
  int man_bits;
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  uint32_t inf_bits() const { return ((1u << exp_bits) - 1) << man_bits; }
};
constexpr Format kHalfFormat{5, 10};
constexpr Format kBf16Format{8, 7};

// Whether rounding the dropped fraction `rem` (in [0, 1) units of the last kept bit) away from
// zero is required for a value of magnitude quotient `q` and sign `negative`.
bool RoundsUp(double rem, uint32_t q, bool negative, RoundMode mode) {
  if (rem == 0.0) return false;
  switch (mode) {
    case RoundMode::kRint:
      return rem > 0.5 || (rem == 0.5 && (q & 1) != 0);
    case RoundMode::kRound:
      return rem >= 0.5;
    case RoundMode::kFloor:
      return negative;
    case RoundMode::kCeil:
      return !negative;
    case RoundMode::kTrunc:
    case RoundMode::kOdd:
      return false;
  }
  return false;
}

// What an overflowing magnitude becomes: infinity for modes that round away from zero in the
// value's direction, else the largest finite value.
bool OverflowsToInfinity(bool negative, RoundMode mode) {
  switch (mode) {
    case RoundMode::kRint:
    case RoundMode::kRound:
      return true;
    case RoundMode::kFloor:
      return negative;
    case RoundMode::kCeil:
      return !negative;
    case RoundMode::kTrunc:
    case RoundMode::kOdd:
      return false;
  }
  return true;
}

// Narrows a float to `fmt`, exactly as IEEE 754 prescribes for `mode`. The magnitude is scaled
// (exactly, in double) to units of the target's last mantissa bit at the value's exponent, so
// normal and subnormal results share one path and a carry into the next exponent (or into
// infinity) falls out of the integer addition.
uint16_t Narrow(float f, RoundMode mode, const Format& fmt) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const bool negative = (bits >> 31) != 0;
  const uint16_t sign = negative ? 0x8000 : 0;
  if (std::isnan(f)) {
    // Quiet NaN keeping the top payload bits.
    const uint32_t payload = (bits & 0x007fffffu) >> (23 - fmt.man_bits);
    return static_cast<uint16_t>(sign | fmt.inf_bits() | (1u << (fmt.man_bits - 1)) | payload);
  }
  if (std::isinf(f)) return static_cast<uint16_t>(sign | fmt.inf_bits());
  const double mag = std::fabs(static_cast<double>(f));
  if (mag == 0.0) return sign;

  int e2 = 0;
  std::frexp(mag, &e2);  // mag in [2^(e2-1), 2^e2)
  const int min_exp = 1 - fmt.bias();
  const int exp = std::max(e2 - 1, min_exp);
  const double scaled = std::ldexp(mag, fmt.man_bits - exp);  // exact
  uint32_t q = static_cast<uint32_t>(scaled);
  const double rem = scaled - q;
  if (RoundsUp(rem, q, negative, mode)) ++q;
  if (mode == RoundMode::kOdd && rem != 0.0) q |= 1;

  // Biased exponent (exp + bias - 1) on top of q: for a normal q >= 2^man_bits the implicit bit
  // adds the missing 1; for a subnormal the exponent field is 0.
  const int64_t field = static_cast<int64_t>(exp + fmt.bias() - 1) << fmt.man_bits;
  const int64_t out = field + q;
  if (out >= static_cast<int64_t>(fmt.inf_bits())) {
    return static_cast<uint16_t>(
        sign | (OverflowsToInfinity(negative, mode) ? fmt.inf_bits() : fmt.inf_bits() - 1));
  }
  return static_cast<uint16_t>(sign | out);
}

#if defined(__x86_64__) && defined(__GNUC__)
// F16C conversions are exact IEEE conversions (round to nearest even when narrowing); used when
// the CPU has them, eight values at a time. The tests check them against the scalar paths.
__attribute__((target("avx,f16c"))) void HalfToFloatF16c(const uint16_t* src, float* dst,
                                                         size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = HalfToFloat(src[i]);
}

__attribute__((target("avx,f16c"))) void FloatToHalfF16c(const float* src, uint16_t* dst,
                                                         size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = FloatToHalf(src[i]);
}

// CPUID leaf 1, ECX bit 29 is F16C; read directly because clang before 16 rejects "f16c" in
// __builtin_cpu_supports. The "avx" check also covers the OS saving the YMM registers.
bool HasF16c() {
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
    return (ecx & (1u << 29)) != 0 && __builtin_cpu_supports("avx");
  }();
  return has;
}
#endif

}  // namespace

std::string_view RoundModeName(RoundMode mode) {
  switch (mode) {
    case RoundMode::kRint:
      return "rint";
    case RoundMode::kFloor:
      return "floor";
    case RoundMode::kCeil:
      return "ceil";
    case RoundMode::kRound:
      return "round";
    case RoundMode::kTrunc:
      return "trunc";
    case RoundMode::kOdd:
      return "odd";
  }
  return "?";
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t man = h & 0x3ff;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
  if (exp == 0) {
    // Subnormal (or zero): man * 2^-24 is exact in float.
    const float v = static_cast<float>(man) * 0x1p-24f;
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(v));
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

float Bf16ToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t FloatToHalf(float f) { return Narrow(f, RoundMode::kRint, kHalfFormat); }
uint16_t FloatToBf16(float f) { return Narrow(f, RoundMode::kRint, kBf16Format); }
uint16_t FloatToHalf(float f, RoundMode mode) { return Narrow(f, mode, kHalfFormat); }
uint16_t FloatToBf16(float f, RoundMode mode) { return Narrow(f, mode, kBf16Format); }

double RoundToIntegral(double v, RoundMode mode) {
  switch (mode) {
    case RoundMode::kRint:
      return std::nearbyint(v);
    case RoundMode::kFloor:
      return std::floor(v);
    case RoundMode::kCeil:
      return std::ceil(v);
    case RoundMode::kRound:
      return std::round(v);
    case RoundMode::kTrunc:
      return std::trunc(v);
    case RoundMode::kOdd: {
      // Truncate, then make an inexact result odd.
      const double r = std::trunc(v);
      if (r == v) return r;
      double mag = std::fabs(r);
      if (std::fmod(mag, 2.0) == 0.0) mag += 1.0;
      return std::copysign(mag, v);
    }
  }
  return v;
}

int64_t FloatToInt(float f, RoundMode mode, int64_t lo, int64_t hi) {
  if (std::isnan(f)) return 0;
  const double r = RoundToIntegral(f, mode);
  if (r <= static_cast<double>(lo)) return lo;
  if (r >= static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(r);
}

void HalfToFloatN(const uint16_t* src, float* dst, size_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (HasF16c()) return HalfToFloatF16c(src, dst, n);
#endif
  for (size_t i = 0; i < n; ++i) dst[i] = HalfToFloat(src[i]);
}

void Bf16ToFloatN(const uint16_t* src, float* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] = Bf16ToFloat(src[i]);
}

void FloatToHalfN(const float* src, uint16_t* dst, size_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (HasF16c()) return FloatToHalfF16c(src, dst, n);
#endif
  for (size_t i = 0; i < n; ++i) dst[i] = FloatToHalf(src[i]);
}

void FloatToBf16N(const float* src, uint16_t* dst, size_t n) {
  // bf16 is the top half of a float, so round to nearest even is an integer addition on the
  // bits (a carry into the exponent, or into infinity, is the right result); NaNs keep their
  // top payload bits and become quiet, as Narrow makes them. Branch-free, so it vectorises.
  for (size_t i = 0; i < n; ++i) {
    const uint32_t b = std::bit_cast<uint32_t>(src[i]);
    const uint32_t rounded = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
    const uint32_t quiet_nan = (b >> 16) | 0x0040u;
    dst[i] = static_cast<uint16_t>((b & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  }
}

}  // namespace tilejit::runner::sim
