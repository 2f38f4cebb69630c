// SPDX-License-Identifier: Apache-2.0
#include "runner/sim/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "common/sha256.h"

namespace tilejit::runner::sim {
namespace {

std::string Hex(const Digest& d) {
  std::ostringstream os;
  for (uint8_t b : d) os << std::hex << std::setw(2) << std::setfill('0') << int{b};
  return os.str();
}

std::string ReferenceLine(const std::string& key) {
  std::ifstream in(std::string(TILEJIT_SOURCE_DIR) + "/tests/runner/testdata/fp16_reference.txt");
  std::string k, digest;
  while (in >> k >> digest) {
    if (k == key) return digest;
    std::string rest;
    std::getline(in, rest);
  }
  return "";
}

// A second, deliberately different decoder: value = (-1)^s * m * 2^(e - 25) by ldexp.
float SlowHalfToFloat(uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 31) {
    v = m == 0 ? INFINITY : NAN;
  } else if (e == 0) {
    v = std::ldexp(static_cast<float>(m), -24);
  } else {
    v = std::ldexp(static_cast<float>(m + 1024), e - 25);
  }
  return s ? -v : v;
}

TEST(Half, DecodesEveryBitPatternLikeTheIndependentDecoder) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float a = HalfToFloat(static_cast<uint16_t>(h));
    const float b = SlowHalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(b)) {
      ASSERT_TRUE(std::isnan(a)) << h;
    } else {
      ASSERT_EQ(std::bit_cast<uint32_t>(a), std::bit_cast<uint32_t>(b)) << std::hex << h;
    }
  }
}

TEST(Half, DecodeTableMatchesPythonReferenceDigest) {
  Sha256 sha;
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint32_t bits = std::bit_cast<uint32_t>(HalfToFloat(static_cast<uint16_t>(h)));
    const uint8_t le[4] = {uint8_t(bits), uint8_t(bits >> 8), uint8_t(bits >> 16),
                           uint8_t(bits >> 24)};
    sha.Update(le, 4);
  }
  EXPECT_EQ(Hex(sha.Finish()), ReferenceLine("decode"));
}

float NextF32(float x, bool up) { return std::nextafter(x, up ? INFINITY : -INFINITY); }

TEST(Half, EncodeOfValuesMidpointsAndNeighboursMatchesPythonReferenceDigest) {
  Sha256 sha;
  int count = 0;
  for (float sign : {1.0f, -1.0f}) {
    for (uint32_t h = 0; h < 0x7c00; ++h) {
      const float v = HalfToFloat(static_cast<uint16_t>(h));
      const float next = h + 1 < 0x7c00 ? HalfToFloat(static_cast<uint16_t>(h + 1)) : 65536.0f;
      const float mid = (v + next) / 2;
      for (float x : {v, mid, NextF32(mid, true), NextF32(mid, false)}) {
        const uint16_t r = FloatToHalf(sign * x);
        const uint8_t le[2] = {uint8_t(r), uint8_t(r >> 8)};
        sha.Update(le, 2);
        ++count;
      }
    }
  }
  EXPECT_EQ(count, 253952);
  EXPECT_EQ(Hex(sha.Finish()), ReferenceLine("encode"));
}

TEST(Half, MidpointsRoundToEvenExhaustively) {
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    const float mid =
        (HalfToFloat(static_cast<uint16_t>(h)) + HalfToFloat(static_cast<uint16_t>(h + 1))) / 2;
    const uint16_t even = (h & 1) ? static_cast<uint16_t>(h + 1) : static_cast<uint16_t>(h);
    ASSERT_EQ(FloatToHalf(mid), even) << std::hex << h;
    ASSERT_EQ(FloatToHalf(-mid), even | 0x8000) << std::hex << h;
  }
}

TEST(Half, RoundTripsEveryFiniteValue) {
  for (uint32_t h = 0; h < 65536; ++h) {
    if ((h & 0x7c00) == 0x7c00) continue;
    ASSERT_EQ(FloatToHalf(HalfToFloat(static_cast<uint16_t>(h))), h) << std::hex << h;
  }
}

TEST(Half, KeepsNanAndInfinity) {
  EXPECT_EQ(FloatToHalf(INFINITY), 0x7c00);
  EXPECT_EQ(FloatToHalf(-INFINITY), 0xfc00);
  EXPECT_EQ(FloatToHalf(NAN) & 0x7c00, 0x7c00);
  EXPECT_NE(FloatToHalf(NAN) & 0x03ff, 0);
}

struct ModeCase {
  float in;
  RoundMode mode;
  uint16_t out;
};

TEST(Half, RoundingModesOnTiesOverflowAndSubnormals) {
  const float tie = 1.0f + 0x1p-11f;  // halfway between 0x3c00 and 0x3c01
  const float above = 1.0f + 0x1p-11f + 0x1p-20f;
  const float tiny = 0x1p-25f;  // half the smallest subnormal
  const ModeCase cases[] = {
      {tie, RoundMode::kRint, 0x3c00},         {tie, RoundMode::kRound, 0x3c01},
      {tie, RoundMode::kFloor, 0x3c00},        {tie, RoundMode::kCeil, 0x3c01},
      {tie, RoundMode::kTrunc, 0x3c00},        {tie, RoundMode::kOdd, 0x3c01},
      {-tie, RoundMode::kFloor, 0xbc01},       {-tie, RoundMode::kCeil, 0xbc00},
      {-tie, RoundMode::kRound, 0xbc01},       {-tie, RoundMode::kTrunc, 0xbc00},
      {above, RoundMode::kRint, 0x3c01},       {above, RoundMode::kTrunc, 0x3c00},
      {70000.0f, RoundMode::kRint, 0x7c00},    {70000.0f, RoundMode::kTrunc, 0x7bff},
      {70000.0f, RoundMode::kFloor, 0x7bff},   {70000.0f, RoundMode::kCeil, 0x7c00},
      {-70000.0f, RoundMode::kFloor, 0xfc00},  {-70000.0f, RoundMode::kCeil, 0xfbff},
      {70000.0f, RoundMode::kOdd, 0x7bff},     {tiny, RoundMode::kRint, 0x0000},
      {tiny, RoundMode::kRound, 0x0001},       {tiny, RoundMode::kCeil, 0x0001},
      {tiny, RoundMode::kFloor, 0x0000},       {tiny, RoundMode::kOdd, 0x0001},
      {3.0f * tiny, RoundMode::kRint, 0x0002},  // 1.5 ulp ties to even 2
      {2.0f, RoundMode::kOdd, 0x4000},          // exact stays exact
  };
  for (const ModeCase& c : cases) {
    EXPECT_EQ(FloatToHalf(c.in, c.mode), c.out) << c.in << " " << RoundModeName(c.mode) << " got 0x"
                                                << std::hex << FloatToHalf(c.in, c.mode);
  }
}

// bf16 reference by the classic bias trick (a different algorithm from the simulator's).
uint16_t TrickBf16(float f) {
  const uint32_t b = std::bit_cast<uint32_t>(f);
  return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

TEST(Bf16, RoundsToNearestEvenLikeTheBiasTrick) {
  for (uint32_t hi = 0; hi < 65536; ++hi) {
    if ((hi & 0x7f80) == 0x7f80) continue;  // inf/nan bands
    for (uint32_t lo : {0u, 1u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      const float f = std::bit_cast<float>((hi << 16) | lo);
      ASSERT_EQ(FloatToBf16(f), TrickBf16(f)) << std::hex << ((hi << 16) | lo);
    }
  }
  EXPECT_EQ(Bf16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(FloatToBf16(1.0f + 0x1p-8f, RoundMode::kCeil), 0x3f81);
}

TEST(Half, BulkConversionsMatchTheScalarOnes) {
  std::vector<uint16_t> all(65536);
  for (uint32_t h = 0; h < 65536; ++h) all[h] = static_cast<uint16_t>(h);
  std::vector<float> wide(all.size());
  HalfToFloatN(all.data(), wide.data(), all.size());
  for (uint32_t h = 0; h < 65536; ++h) {
    const float scalar = HalfToFloat(all[h]);
    if (std::isnan(scalar)) {  // the hardware path may quiet a signalling NaN
      ASSERT_TRUE(std::isnan(wide[h])) << std::hex << h;
      continue;
    }
    ASSERT_EQ(std::bit_cast<uint32_t>(wide[h]), std::bit_cast<uint32_t>(scalar)) << std::hex << h;
  }
  // Values, midpoints and near-midpoints of every finite half, both signs (NaN excluded).
  std::vector<float> narrow_in;
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    const float v = HalfToFloat(static_cast<uint16_t>(h));
    const float next = HalfToFloat(static_cast<uint16_t>(h + 1));
    for (float x : {v, (v + next) / 2, std::nextafter((v + next) / 2, 0.0f)}) {
      narrow_in.push_back(x);
      narrow_in.push_back(-x);
    }
  }
  std::vector<uint16_t> halves(narrow_in.size()), bf16s(narrow_in.size());
  FloatToHalfN(narrow_in.data(), halves.data(), narrow_in.size());
  FloatToBf16N(narrow_in.data(), bf16s.data(), narrow_in.size());
  for (size_t i = 0; i < narrow_in.size(); ++i) {
    ASSERT_EQ(halves[i], FloatToHalf(narrow_in[i])) << narrow_in[i];
    ASSERT_EQ(bf16s[i], FloatToBf16(narrow_in[i])) << narrow_in[i];
  }
}

TEST(Half, BulkNarrowingMatchesTheScalarOneOnEveryExponentIncludingNanAndOverflow) {
  // Every sign/exponent/top-mantissa pattern with the low half at the rounding boundaries: NaN
  // payloads (quiet and signalling), infinities, overflow into infinity, subnormals.
  std::vector<float> in;
  for (uint32_t hi = 0; hi < 65536; ++hi) {
    for (uint32_t lo : {0u, 1u, 0x1fffu, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      in.push_back(std::bit_cast<float>((hi << 16) | lo));
    }
  }
  std::vector<uint16_t> halves(in.size()), bf16s(in.size());
  FloatToHalfN(in.data(), halves.data(), in.size());
  FloatToBf16N(in.data(), bf16s.data(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(halves[i], FloatToHalf(in[i])) << std::hex << std::bit_cast<uint32_t>(in[i]);
    ASSERT_EQ(bf16s[i], FloatToBf16(in[i])) << std::hex << std::bit_cast<uint32_t>(in[i]);
  }
}

TEST(FloatToInt, AppliesModeAndSaturates) {
  EXPECT_EQ(FloatToInt(2.5f, RoundMode::kRint, -128, 127), 2);
  EXPECT_EQ(FloatToInt(2.5f, RoundMode::kRound, -128, 127), 3);
  EXPECT_EQ(FloatToInt(-2.5f, RoundMode::kFloor, -128, 127), -3);
  EXPECT_EQ(FloatToInt(-2.5f, RoundMode::kCeil, -128, 127), -2);
  EXPECT_EQ(FloatToInt(-2.5f, RoundMode::kTrunc, -128, 127), -2);
  EXPECT_EQ(FloatToInt(2.5f, RoundMode::kOdd, -128, 127), 3);
  EXPECT_EQ(FloatToInt(1000.0f, RoundMode::kRint, -128, 127), 127);
  EXPECT_EQ(FloatToInt(NAN, RoundMode::kRint, -128, 127), 0);
}

}  // namespace
}  // namespace tilejit::runner::sim
