// SPDX-License-Identifier: Apache-2.0
// Vector effects, repeat form (element-wise arithmetic, functions, vdup, vaxpy, vcast) and the
// mask instructions, plus the access sets of every vector instruction. Operand geometry and
// the gather / compute / scatter structure are in ops_vector_internal.h.
//
// Why compute in float for float dtypes: fp16 and bf16 values and every fp32 value are exact
// in float, each ISA operation is rounded once, and for + - * / the float result is the
// double result rounded to float (53 >= 2 * 24 + 2 bits), so the stored bits equal those of
// the scalar helpers' double arithmetic (LoadElem/StoreElem), at vector speed. The functions
// (exp, ln, sqrt, ...) are the float library functions either way. vaxpy keeps double: its
// product and sum round once together.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/target/gather_pattern.h"
#include "runner/sim/half.h"
#include "runner/sim/ops_vector_internal.h"

namespace tilejit::runner::sim::internal {
namespace {

using target::DType;
using target::FieldId;
using target::Instr;
using target::Opcode;

bool Is2d(Opcode op) { return target::UsesField(op, FieldId::count); }

uint64_t ElemsPerRepeat(const Instr& in) {
  uint64_t eb = Eb(in.dtype);
  if (in.op == Opcode::kVcast) eb = std::max(eb, Eb(in.odtype));
  return target::kRepeatBytes / eb;
}

uint64_t Mask(const Instr& in) {
  return target::UsesField(in.op, FieldId::mask) ? static_cast<uint64_t>(in.mask.imm)
                                                 : ElemsPerRepeat(in);
}

Operand DstOf(const Instr& in) {
  const DType d = in.op == Opcode::kVcast ? in.odtype : in.dtype;
  return {static_cast<uint64_t>(in.dst.imm), static_cast<uint64_t>(in.dst_blk),
          static_cast<uint64_t>(in.dst_rep), d};
}
Operand SrcOf(const Instr& in) {
  return {static_cast<uint64_t>(in.src.imm), static_cast<uint64_t>(in.src_blk),
          static_cast<uint64_t>(in.src_rep), in.dtype};
}
Operand Src1Of(const Instr& in) {
  return {static_cast<uint64_t>(in.src1.imm), static_cast<uint64_t>(in.src1_blk),
          static_cast<uint64_t>(in.src1_rep), in.dtype};
}

bool HasSrc(const Instr& in) { return in.op != Opcode::kVdup; }
bool IsMaskOp(Opcode op) {
  return op == Opcode::kVcmp || op == Opcode::kVcmps || op == Opcode::kVsel || op == Opcode::kVsels;
}
bool HasSrc1(const Instr& in) { return target::UsesField(in.op, FieldId::src1); }
bool IsAxpy(const Instr& in) { return in.op == Opcode::kVaxpy || in.op == Opcode::kVaxpyUb; }
// The instructions that read their destination: axpy and vmla.
bool ReadsDst(const Instr& in) { return IsAxpy(in) || in.op == Opcode::kVmla; }
bool IsScalarForm(const Instr& in) {
  return target::UsesField(in.op, FieldId::scalar) || target::UsesField(in.op, FieldId::saddr);
}

double ScalarOf(const Instr& in, MemView& mem) {
  if (target::UsesField(in.op, FieldId::saddr)) {
    return LoadElem(mem.Ptr(MemSpace::kUb, in.saddr.imm, Eb(in.dtype)), in.dtype);
  }
  const uint32_t bits = static_cast<uint32_t>(in.scalar.imm);
  switch (in.dtype) {
    case DType::kF32:
      return std::bit_cast<float>(bits);
    case DType::kF16:
      return HalfToFloat(FloatToHalf(std::bit_cast<float>(bits)));
    case DType::kBF16:
      return Bf16ToFloat(FloatToBf16(std::bit_cast<float>(bits)));
    case DType::kS16:
      return static_cast<int16_t>(static_cast<uint16_t>(bits));
    case DType::kU16:
      return static_cast<uint16_t>(bits);
    case DType::kS32:
      return static_cast<int32_t>(bits);
    default:
      return bits;
  }
}

// The operations appended to the ISA after the first release, in their own visitor so that
// VisitBinary (shared with the 2-D forms) keeps to the arithmetic ones. Integer elements are
// exact in the compute type (double), so the bit operations run on their int64 value; the
// store wraps the result to the element width. A shift count is the low 32 bits of s read as
// unsigned: counts of 32 or more clear every element width we have (left) or leave the sign
// fill (right; arithmetic, which for zero-extended unsigned values is the logical shift).
struct AndOp {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(static_cast<int64_t>(a) & static_cast<int64_t>(b));
  }
};
struct OrOp {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(static_cast<int64_t>(a) | static_cast<int64_t>(b));
  }
};
struct XorOp {
  template <typename T>
  T operator()(T a, T b) const {
    return static_cast<T>(static_cast<int64_t>(a) ^ static_cast<int64_t>(b));
  }
};
inline uint32_t ShiftCount(double s) { return static_cast<uint32_t>(static_cast<int64_t>(s)); }
struct ShlOp {
  template <typename T>
  T operator()(T a, T s) const {
    const uint32_t k = ShiftCount(s);
    if (k >= 32) return T{0};
    const uint32_t bits = static_cast<uint32_t>(static_cast<int64_t>(a)) << k;
    return static_cast<T>(static_cast<int32_t>(bits));  // the store wraps it to the width
  }
};
struct ShrOp {
  template <typename T>
  T operator()(T a, T s) const {
    return static_cast<T>(static_cast<int64_t>(a) >> std::min<uint32_t>(ShiftCount(s), 63));
  }
};
struct LeakyReluOp {
  template <typename T>
  T operator()(T a, T s) const {
    return a >= T{0} ? a : a * s;
  }
};
// Float types: powf in the vector unit's precision. int32: exact power, wrapping; a negative
// exponent gives the integer part of 1 / a^-e (1 for a = 1, +-1 for a = -1, else 0).
struct PowOp {
  bool integer = false;
  template <typename T>
  T operator()(T a, T b) const {
    if (!integer) return static_cast<T>(std::pow(static_cast<float>(a), static_cast<float>(b)));
    const int64_t base = static_cast<int64_t>(a), e = static_cast<int64_t>(b);
    if (e < 0) return static_cast<T>(base == 1 ? 1 : base == -1 ? (e % 2 != 0 ? -1 : 1) : 0);
    uint32_t result = 1, m = static_cast<uint32_t>(base);
    for (uint64_t k = static_cast<uint64_t>(e); k != 0; k >>= 1, m *= m) {
      if (k & 1) result *= m;
    }
    return static_cast<T>(static_cast<int32_t>(result));
  }
};

bool IsFloatType(DType d) { return d == DType::kF16 || d == DType::kBF16 || d == DType::kF32; }

// Calls fn with the functor of an appended binary opcode (any operand form); false when `in`
// is not one of them.
template <typename Fn>
bool VisitAppendedBinary(const Instr& in, Fn&& fn) {
  switch (in.op) {
    case Opcode::kVand:
    case Opcode::kVands:
    case Opcode::kVandsUb:
      fn(AndOp{});
      return true;
    case Opcode::kVor:
    case Opcode::kVors:
    case Opcode::kVorsUb:
      fn(OrOp{});
      return true;
    case Opcode::kVxor:
      fn(XorOp{});
      return true;
    case Opcode::kVshls:
    case Opcode::kVshlsUb:
      fn(ShlOp{});
      return true;
    case Opcode::kVshrs:
    case Opcode::kVshrsUb:
      fn(ShrOp{});
      return true;
    case Opcode::kVlrelus:
    case Opcode::kVlrelusUb:
      fn(LeakyReluOp{});
      return true;
    case Opcode::kVpow:
      fn(PowOp{!IsFloatType(in.dtype)});
      return true;
    default:
      return false;
  }
}

// Unary functions in the compute type T; exp, ln, sqrt and the like are evaluated in float
// (the vector unit's precision) whatever T is.
template <typename T, typename F>
void MapUnary(const T* a, T* out, uint64_t n, F f) {
  for (uint64_t i = 0; i < n; ++i) out[i] = static_cast<T>(f(a[i]));
}

template <typename T>
void Unary(Opcode op, const T* a, T* out, uint64_t n) {
  const auto fl = [](T x) { return static_cast<float>(x); };
  switch (op) {
    case Opcode::kVexp:
      return MapUnary(a, out, n, [&](T x) { return std::exp(fl(x)); });
    case Opcode::kVln:
      return MapUnary(a, out, n, [&](T x) { return std::log(fl(x)); });
    case Opcode::kVsqrt:
      return MapUnary(a, out, n, [&](T x) { return std::sqrt(fl(x)); });
    case Opcode::kVrsqrt:
      return MapUnary(a, out, n, [&](T x) { return 1.0f / std::sqrt(fl(x)); });
    case Opcode::kVrec:
      return MapUnary(a, out, n, [](T x) { return T{1} / x; });
    case Opcode::kVabs:
      return MapUnary(a, out, n, [](T x) { return std::fabs(x); });
    case Opcode::kVrelu:
      return MapUnary(a, out, n, [](T x) { return x > 0 ? x : T{0}; });
    case Opcode::kVneg:
      return MapUnary(a, out, n, [](T x) { return -x; });
    case Opcode::kVsigmoid:
      return MapUnary(a, out, n, [&](T x) { return 1.0f / (1.0f + std::exp(-fl(x))); });
    case Opcode::kVsilu:
      return MapUnary(a, out, n, [&](T x) { return fl(x) / (1.0f + std::exp(-fl(x))); });
    case Opcode::kVsin:
      return MapUnary(a, out, n, [&](T x) { return std::sin(fl(x)); });
    case Opcode::kVcos:
      return MapUnary(a, out, n, [&](T x) { return std::cos(fl(x)); });
    case Opcode::kVround:  // the default rounding mode: to nearest, halves to even
      return MapUnary(a, out, n, [&](T x) { return std::nearbyint(fl(x)); });
    case Opcode::kVnot:
      return MapUnary(a, out, n, [](T x) { return ~static_cast<int64_t>(x); });
    default:  // vmov
      return MapUnary(a, out, n, [](T x) { return x; });
  }
}

// Every repeat-form instruction except vcast, in the dtype's codec.
template <typename Codec>
void RepeatEffect(const Instr& in, MemView& mem, const Codec& codec) {
  using T = typename Codec::Compute;
  const uint64_t repeat = in.repeat.imm, mask = Mask(in), n = repeat * mask;
  const Operand d = DstOf(in);
  T* out = Scratch<T>(Slot::kOut, n);
  if (in.op == Opcode::kVdup) {
    std::fill(out, out + n, static_cast<T>(ScalarOf(in, mem)));
  } else {
    const T* a = Gather(codec, mem, SrcOf(in), repeat, mask, Slot::kSrc);
    if (in.op == Opcode::kVmla) {  // one rounding, as axpy
      const T* b = Gather(codec, mem, Src1Of(in), repeat, mask, Slot::kSrc1);
      const T* old = Gather(codec, mem, d, repeat, mask, Slot::kDst);
      for (uint64_t k = 0; k < n; ++k) {
        out[k] = static_cast<T>(AddOp{}(MulOp{}(double{a[k]}, double{b[k]}), double{old[k]}));
      }
    } else if (IsAxpy(in)) {
      const T* old = Gather(codec, mem, d, repeat, mask, Slot::kDst);
      const double s = ScalarOf(in, mem);
      MapPairs(a, old, out, n,
               [s](T x, T y) { return static_cast<T>(AddOp{}(MulOp{}(double{x}, s), double{y})); });
    } else if (HasSrc1(in)) {
      const T* b = Gather(codec, mem, Src1Of(in), repeat, mask, Slot::kSrc1);
      const auto pairs = [&](auto op) { MapPairs(a, b, out, n, op); };
      if (!VisitAppendedBinary(in, pairs)) VisitBinary(in.op, pairs);
    } else if (IsScalarForm(in)) {
      const T s = static_cast<T>(ScalarOf(in, mem));
      const auto with_scalar = [&](auto op) { MapScalar(a, s, out, n, op); };
      if (!VisitAppendedBinary(in, with_scalar)) VisitBinary(in.op, with_scalar);
    } else {
      Unary(in.op, a, out, n);
    }
  }
  Scatter(codec, out, mem, d, repeat, mask);
}

// vcast: widening into the source's compute type is exact, and so is float -> double; a
// double (integer source) narrows to float for a float destination exactly as StoreElem does.
void CastEffect(const Instr& in, MemView& mem) {
  const uint64_t repeat = in.repeat.imm, mask = Mask(in), n = repeat * mask;
  VisitCodec(in.dtype, [&](const auto& from) {
    VisitCodec(in.odtype, [&](const auto& to) {
      using To = typename std::decay_t<decltype(to)>::Compute;
      const auto* a = Gather(from, mem, SrcOf(in), repeat, mask, Slot::kSrc);
      To* out = Scratch<To>(Slot::kOut, n);
      if (in.dtype == DType::kS32 && in.odtype == DType::kF16) {  // scaled by DEQSCALE
        const double scale = mem.DeqScale();
        for (uint64_t i = 0; i < n; ++i) out[i] = static_cast<To>(a[i] * scale);
      } else {
        for (uint64_t i = 0; i < n; ++i) out[i] = static_cast<To>(a[i]);
      }
      Scatter(to, out, mem, DstOf(in), repeat, mask, in.round, /*saturate=*/true);
    });
  });
}

template <typename T>
bool Compare(target::CmpMode c, T a, T b) {
  switch (c) {
    case target::CmpMode::kEq:
      return a == b;
    case target::CmpMode::kNe:
      return a != b;
    case target::CmpMode::kLt:
      return a < b;
    case target::CmpMode::kLe:
      return a <= b;
    case target::CmpMode::kGt:
      return a > b;
    case target::CmpMode::kGe:
      return a >= b;
  }
  return false;
}

// vcmp / vcmps write bit (r * epr + j) of a packed mask, inactive bits 0.
void CompareEffect(const Instr& in, MemView& mem) {
  const uint64_t repeat = in.repeat.imm, mask = Mask(in), epr = ElemsPerRepeat(in);
  const uint64_t bits_bytes = (repeat * epr + 7) / 8;
  std::vector<uint8_t> bits(bits_bytes, 0);
  VisitCodec(in.dtype, [&](const auto& codec) {
    using T = typename std::decay_t<decltype(codec)>::Compute;
    const T* a = Gather(codec, mem, SrcOf(in), repeat, mask, Slot::kSrc);
    const bool scalar = in.op == Opcode::kVcmps;
    const T s = scalar ? static_cast<T>(ScalarOf(in, mem)) : T{};
    const T* b = scalar ? nullptr : Gather(codec, mem, Src1Of(in), repeat, mask, Slot::kSrc1);
    for (uint64_t r = 0; r < repeat; ++r) {
      for (uint64_t j = 0; j < mask; ++j) {
        const uint64_t bit = r * epr + j;
        if (Compare(in.cmp, a[r * mask + j], scalar ? s : b[r * mask + j])) {
          bits[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
        }
      }
    }
  });
  std::memcpy(mem.Ptr(MemSpace::kUb, in.dst.imm, bits_bytes), bits.data(), bits_bytes);
}

// vsel / vsels read bit (r * epr + j) and copy the chosen element's bytes unchanged (vsels:
// the scalar converted to the dtype as vdup does).
void SelectEffect(const Instr& in, MemView& mem) {
  const uint64_t repeat = in.repeat.imm, mask = Mask(in), epr = ElemsPerRepeat(in);
  const Operand s = SrcOf(in), d = DstOf(in);
  const bool scalar = in.op == Opcode::kVsels;
  const uint64_t eb = Eb(d.dtype);
  uint8_t scalar_bytes[8] = {};
  if (scalar) StoreElem(scalar_bytes, d.dtype, ScalarOf(in, mem));
  const Operand s1 = scalar ? Operand{} : Src1Of(in);
  const uint8_t* sp = mem.Ptr(MemSpace::kUb, s.base, Extent(s, repeat, mask));
  const uint8_t* s1p = scalar ? nullptr : mem.Ptr(MemSpace::kUb, s1.base, Extent(s1, repeat, mask));
  const uint8_t* sel = mem.Ptr(MemSpace::kUb, in.sel.imm, (repeat * epr + 7) / 8);
  uint8_t* dp = mem.Ptr(MemSpace::kUb, d.base, Extent(d, repeat, mask));
  std::vector<uint8_t> out(repeat * mask * eb);
  for (uint64_t r = 0; r < repeat; ++r) {
    for (uint64_t j = 0; j < mask; ++j) {
      const uint64_t bit = r * epr + j;
      const bool take = (sel[bit / 8] >> (bit % 8)) & 1;
      const uint8_t* other = scalar ? scalar_bytes : s1p + ElemOffset(s1, r, j);
      std::memcpy(&out[(r * mask + j) * eb], take ? sp + ElemOffset(s, r, j) : other, eb);
    }
  }
  ForEachRun(d, repeat, mask, [&](uint64_t off, uint64_t first, uint64_t n) {
    std::memcpy(dp + off, &out[first * eb], n * eb);
  });
}

// vgather: element k of dst (contiguous, repeat * count of them) is the element at byte
// src1[k] + s of the table [src, src + len). An offset outside the table, or not a multiple of
// the element size, faults: hardware would read whatever lies there, a program that relies on
// it is wrong either way.
Status GatherEffect(const Instr& in, MemView& mem) {
  const uint64_t n = static_cast<uint64_t>(in.repeat.imm) * in.count.imm, eb = Eb(in.dtype);
  if (n == 0) return Status::Ok();  // nothing to move (and no buffer to copy from)
  const uint64_t len = in.len.imm;
  const uint8_t* table = mem.Ptr(MemSpace::kUb, in.src.imm, len);
  const uint8_t* offsets = mem.Ptr(MemSpace::kUb, in.src1.imm, n * 4);
  const int64_t base = static_cast<int32_t>(static_cast<uint32_t>(in.scalar.imm));
  std::vector<uint8_t> out(n * eb);
  for (uint64_t k = 0; k < n; ++k) {
    uint32_t o;
    std::memcpy(&o, offsets + k * 4, 4);
    const int64_t at = int64_t{o} + base;
    if (at < 0 || static_cast<uint64_t>(at) + eb > len || at % static_cast<int64_t>(eb) != 0) {
      return InvalidArgument("vgather: element " + std::to_string(k) + " reads byte offset " +
                             std::to_string(at) + ", outside the " + std::to_string(len) +
                             "-byte table or not a multiple of the element size " +
                             std::to_string(eb));
    }
    std::memcpy(&out[k * eb], table + at, eb);
  }
  std::memcpy(mem.Ptr(MemSpace::kUb, in.dst.imm, n * eb), out.data(), n * eb);
  return Status::Ok();
}

// vgathermask: the src[k] (k < repeat * count) that pattern s keeps (target/gather_pattern.h),
// packed into dst; bits move unchanged. A pattern outside 1..7 faults (it may come from a
// register).
Status GatherMaskEffect(const Instr& in, MemView& mem) {
  const auto pattern = target::GatherPatternCoded(in.scalar.imm);
  if (!pattern) {
    return InvalidArgument("vgathermask: pattern " + std::to_string(in.scalar.imm) +
                           " is not one of the built-in patterns 1..7");
  }
  const uint64_t n = static_cast<uint64_t>(in.repeat.imm) * in.count.imm, eb = Eb(in.dtype);
  const uint64_t kept = target::GatherKept(*pattern, static_cast<int64_t>(n));
  if (kept == 0) return Status::Ok();
  const uint8_t* src = mem.Ptr(MemSpace::kUb, in.src.imm, n * eb);
  std::vector<uint8_t> out(kept * eb);
  for (uint64_t j = 0; j < kept; ++j) {
    std::memcpy(&out[j * eb], src + (j * pattern->period + pattern->phase) * eb, eb);
  }
  std::memcpy(mem.Ptr(MemSpace::kUb, in.dst.imm, kept * eb), out.data(), kept * eb);
  return Status::Ok();
}

// vindex: dst[k] = s + k, computed in the dtype's compute type and stored as any result is
// (integers wrap; fp16 rounds once).
void IndexEffect(const Instr& in, MemView& mem) {
  const uint64_t n = static_cast<uint64_t>(in.repeat.imm) * in.count.imm;
  if (n == 0) return;
  VisitCodec(in.dtype, [&](const auto& codec) {
    using T = typename std::decay_t<decltype(codec)>::Compute;
    const T first = static_cast<T>(ScalarOf(in, mem));
    T* out = Scratch<T>(Slot::kOut, n);
    for (uint64_t k = 0; k < n; ++k) out[k] = first + static_cast<T>(k);
    Scatter(codec, out, mem, Operand{static_cast<uint64_t>(in.dst.imm), 1, 8, in.dtype}, 1, n);
  });
}

}  // namespace

uint64_t Extent(const Operand& o, uint64_t repeat, uint64_t mask) {
  if (repeat == 0 || mask == 0) return 0;
  // Strides are unsigned, so the last repeat reaches furthest; within it the last element does,
  // unless every block sits at the same place (blk 0) and the fullest block does.
  const uint64_t last = o.blk == 0 ? std::min(mask, 32 / Eb(o.dtype)) - 1 : mask - 1;
  return ElemOffset(o, repeat - 1, last) + Eb(o.dtype);
}

void DescribeOperand(const Operand& o, uint64_t repeat, uint64_t mask, bool write,
                     std::vector<Span>* out) {
  ForEachRun(o, repeat, mask, [&](uint64_t off, uint64_t, uint64_t n) {
    AddRun(out, {MemSpace::kUb, o.base + off, n * Eb(o.dtype), write});
  });
}

void DescribeVector(const Instr& in, std::vector<Span>* out) {
  const uint64_t repeat = in.repeat.imm, mask = Mask(in);
  if (in.op == Opcode::kVindex) {
    AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.dst.imm),
                 repeat * in.count.imm * Eb(in.dtype), true});
    return;
  }
  if (in.op == Opcode::kVsetdeq) return;  // a register, no memory
  if (in.op == Opcode::kVsort32 || in.op == Opcode::kVmrgsort) return DescribeSort(in, out);
  if (IsRawVector(in.op)) return DescribeRaw(in, out);
  if (in.op == Opcode::kVgathermask) {
    const auto pattern = target::GatherPatternCoded(in.scalar.imm);
    const uint64_t n = repeat * in.count.imm, eb = Eb(in.dtype);
    const uint64_t kept = pattern ? target::GatherKept(*pattern, static_cast<int64_t>(n)) : 0;
    AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.src.imm), n * eb, false});
    AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.dst.imm), kept * eb, true});
    return;
  }
  if (in.op == Opcode::kVgather) {
    const uint64_t n = repeat * in.count.imm;
    AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.src.imm),
                 static_cast<uint64_t>(in.len.imm), false});
    AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.src1.imm), n * 4, false});
    AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.dst.imm), n * Eb(in.dtype), true});
    return;
  }
  if (IsMaskOp(in.op)) {
    DescribeOperand(SrcOf(in), repeat, mask, false, out);
    if (HasSrc1(in)) DescribeOperand(Src1Of(in), repeat, mask, false, out);
    const uint64_t bits_bytes = (repeat * ElemsPerRepeat(in) + 7) / 8;
    if (in.op == Opcode::kVcmp || in.op == Opcode::kVcmps) {
      AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.dst.imm), bits_bytes, true});
    } else {
      AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.sel.imm), bits_bytes, false});
      DescribeOperand(DstOf(in), repeat, mask, true, out);
    }
    return;
  }
  if (Is2d(in.op)) return Describe2d(in, out);
  if (HasSrc(in)) DescribeOperand(SrcOf(in), repeat, mask, false, out);
  if (HasSrc1(in)) DescribeOperand(Src1Of(in), repeat, mask, false, out);
  if (target::UsesField(in.op, FieldId::saddr)) {
    AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.saddr.imm), Eb(in.dtype), false, false,
                 false, true});
  }
  if (ReadsDst(in)) DescribeOperand(DstOf(in), repeat, mask, false, out);
  DescribeOperand(DstOf(in), repeat, mask, true, out);
}

Status ApplyVector(const Instr& in, MemView& mem) {
  if (in.op == Opcode::kVgather) return GatherEffect(in, mem);
  if (in.op == Opcode::kVgathermask) return GatherMaskEffect(in, mem);
  if (in.op == Opcode::kVsetdeq) {
    const float s = std::bit_cast<float>(static_cast<uint32_t>(in.scalar.imm));
    mem.DeqScale() = HalfToFloat(FloatToHalf(s));
    return Status::Ok();
  }
  if (in.op == Opcode::kVsort32) return Sort32Effect(in, mem);
  if (in.op == Opcode::kVmrgsort) return MrgSortEffect(in, mem);
  if (IsRawVector(in.op)) return ApplyRaw(in, mem);
  if (in.op == Opcode::kVindex) {
    IndexEffect(in, mem);
    return Status::Ok();
  }
  if (Is2d(in.op)) return Apply2d(in, mem);
  if (in.repeat.imm == 0) return Status::Ok();
  switch (in.op) {
    case Opcode::kVcmp:
    case Opcode::kVcmps:
      CompareEffect(in, mem);
      break;
    case Opcode::kVsel:
    case Opcode::kVsels:
      SelectEffect(in, mem);
      break;
    case Opcode::kVcast:
      CastEffect(in, mem);
      break;
    default:
      VisitCodec(in.dtype, [&](const auto& codec) { RepeatEffect(in, mem, codec); });
  }
  return Status::Ok();
}

}  // namespace tilejit::runner::sim::internal
