// SPDX-License-Identifier: Apache-2.0
// Dispatch by execution unit and the element conversions every effect shares.
#include "runner/sim/ops.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "runner/sim/half.h"

namespace tilejit::runner::sim {

using target::DType;
using target::Unit;

namespace internal {
void AddRun(std::vector<Span>* out, Span s) {
  if (s.bytes == 0) return;
  if (!out->empty()) {
    Span& b = out->back();
    if (b.space == s.space && b.write == s.write && b.accumulate == s.accumulate &&
        b.atomic == s.atomic && !b.element && !s.element && b.addr + b.bytes == s.addr) {
      b.bytes += s.bytes;
      return;
    }
  }
  out->push_back(s);
}
}  // namespace internal

void DescribeAccesses(const target::Instr& in, std::vector<Span>* out) {
  switch (target::GetOpcodeInfo(in.op).unit) {
    case Unit::kMte2:
    case Unit::kMte3:
      internal::DescribeDma(in, out);
      return;
    case Unit::kMte1:
    case Unit::kM:
    case Unit::kFix:
      internal::DescribeCube(in, out);
      return;
    case Unit::kV:
      if (in.op == target::Opcode::kCopyUbUb) {
        internal::DescribeDma(in, out);
      } else {
        internal::DescribeVector(in, out);
      }
      return;
    case Unit::kScalar:
    case Unit::kOperand:
      return;
  }
}

Status ApplyEffect(const target::Instr& in, MemView& mem) {
  switch (target::GetOpcodeInfo(in.op).unit) {
    case Unit::kMte2:
    case Unit::kMte3:
      return internal::ApplyDma(in, mem);
    case Unit::kMte1:
    case Unit::kM:
    case Unit::kFix:
      return internal::ApplyCube(in, mem);
    case Unit::kV:
      return in.op == target::Opcode::kCopyUbUb ? internal::ApplyDma(in, mem)
                                                : internal::ApplyVector(in, mem);
    case Unit::kScalar:
    case Unit::kOperand:
      return Status::Ok();
  }
  return Status::Ok();
}

namespace {
template <typename T>
T Get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
void Put(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}
// Integer stores round by the mode, then saturate (casts) or wrap (arithmetic, docs/isa.md).
int64_t RoundSat(double v, RoundMode m, int64_t lo, int64_t hi, bool saturate) {
  if (std::isnan(v)) return 0;
  const double r = RoundToIntegral(v, m);
  if (!saturate && r > -9.2e18 && r < 9.2e18) {
    // Wrap into [lo, hi] (two's complement of the narrower type).
    const uint64_t width = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
    const int64_t x = static_cast<int64_t>(r);
    if (width == 0) return x;
    return lo +
           static_cast<int64_t>((static_cast<uint64_t>(x) - static_cast<uint64_t>(lo)) % width);
  }
  if (r <= static_cast<double>(lo)) return lo;
  if (r >= static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(r);
}
RoundMode ToSim(target::RoundMode m) {
  switch (m) {
    case target::RoundMode::kRint:
      return RoundMode::kRint;
    case target::RoundMode::kRound:
      return RoundMode::kRound;
    case target::RoundMode::kFloor:
      return RoundMode::kFloor;
    case target::RoundMode::kCeil:
      return RoundMode::kCeil;
    case target::RoundMode::kTrunc:
      return RoundMode::kTrunc;
    case target::RoundMode::kOdd:
      return RoundMode::kOdd;
  }
  return RoundMode::kRint;
}
}  // namespace

double LoadElem(const uint8_t* p, DType d) {
  switch (d) {
    case DType::kF16:
      return HalfToFloat(Get<uint16_t>(p));
    case DType::kBF16:
      return Bf16ToFloat(Get<uint16_t>(p));
    case DType::kF32:
      return Get<float>(p);
    case DType::kS8:
      return Get<int8_t>(p);
    case DType::kU8:
      return Get<uint8_t>(p);
    case DType::kS16:
      return Get<int16_t>(p);
    case DType::kU16:
      return Get<uint16_t>(p);
    case DType::kS32:
      return Get<int32_t>(p);
    case DType::kU32:
      return Get<uint32_t>(p);
    case DType::kS64:
      return static_cast<double>(Get<int64_t>(p));
  }
  return 0;
}

void StoreElem(uint8_t* p, DType d, double v, target::RoundMode mode, bool saturate) {
  const RoundMode m = ToSim(mode);
  switch (d) {
    case DType::kF16:
      // double -> float is exact for every result a single fp16 operation can produce
      // (51 significant bits at most fit in double; float rounding is then innocuous).
      Put<uint16_t>(p, FloatToHalf(static_cast<float>(v), m));
      return;
    case DType::kBF16:
      Put<uint16_t>(p, FloatToBf16(static_cast<float>(v), m));
      return;
    case DType::kF32:
      Put<float>(p, static_cast<float>(v));
      return;
    case DType::kS8:
      Put<int8_t>(p, static_cast<int8_t>(RoundSat(v, m, INT8_MIN, INT8_MAX, saturate)));
      return;
    case DType::kU8:
      Put<uint8_t>(p, static_cast<uint8_t>(RoundSat(v, m, 0, UINT8_MAX, saturate)));
      return;
    case DType::kS16:
      Put<int16_t>(p, static_cast<int16_t>(RoundSat(v, m, INT16_MIN, INT16_MAX, saturate)));
      return;
    case DType::kU16:
      Put<uint16_t>(p, static_cast<uint16_t>(RoundSat(v, m, 0, UINT16_MAX, saturate)));
      return;
    case DType::kS32:
      Put<int32_t>(p, static_cast<int32_t>(RoundSat(v, m, INT32_MIN, INT32_MAX, saturate)));
      return;
    case DType::kU32:
      Put<uint32_t>(p, static_cast<uint32_t>(RoundSat(v, m, 0, UINT32_MAX, saturate)));
      return;
    case DType::kS64:
      Put<int64_t>(p, RoundSat(v, m, INT64_MIN, INT64_MAX, saturate));
      return;
  }
}

}  // namespace tilejit::runner::sim
