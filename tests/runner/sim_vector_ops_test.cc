// SPDX-License-Identifier: Apache-2.0
// The vector effects (ApplyEffect, DescribeAccesses of runner/sim/ops.h) one instruction at a
// time on a host UB, bit for bit against a scalar reference written from docs/isa.md: every
// active element read with LoadElem, computed in double (the functions in float), written with
// StoreElem; the first NaN operand in operand order is the result of + - * / (and of vaxpy).
// Inputs cycle through quiet and signalling NaNs of both signs, infinities, signed zeros,
// subnormals, values that overflow fp16 and ordinary values; masks and counts are not
// multiples of any SIMD width, and strides leave gaps that must stay untouched.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "runner/sim/ops.h"
#include "tests/runner/sim_test_util.h"

namespace tilejit::runner::sim {
namespace vector_ops_test {
namespace {

using target::DType;
using target::Instr;

constexpr uint64_t kUbBytes = 192 * 1024;

class HostUb : public MemView {
 public:
  explicit HostUb(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  uint8_t* Ptr(MemSpace, uint64_t addr, uint64_t) override { return bytes_.data() + addr; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

Instr One(const std::string& text) {
  std::vector<Instr> code = testing::Asm(text + "\nend\n");
  return code.empty() ? Instr{} : code[0];
}

// Memory of 40-word cycles: 32-bit specials, pairs of 16-bit specials (fp16 and bf16 NaNs,
// infinities, zeros, subnormals, the largest finite values), then seeded ordinary floats
// (whose 16-bit halves are arbitrary fp16 patterns and moderate values).
std::vector<uint8_t> Patterns(uint32_t seed) {
  static const uint32_t k32[] = {0x7fc00000, 0x7fa00001, 0xffc00123, 0x7f800000, 0xff800000,
                                 0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x7f7fffff,
                                 0x477ff000, 0xc7800000, 0x33800000, 0x3f800000};
  static const uint16_t k16[] = {0x7e00, 0x7d01, 0xfe02, 0x7c00, 0xfc00, 0x0000, 0x8000,
                                 0x0001, 0x83ff, 0x7bff, 0x3c00, 0xbc00, 0x7fa1, 0xff81};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<uint8_t> ub(kUbBytes);
  for (uint64_t i = 0; i < kUbBytes; i += 4) {
    const uint64_t k = (i / 4) % 40;
    uint32_t w = std::bit_cast<uint32_t>(dist(rng));
    if (k < std::size(k32)) w = k32[k];
    if (k >= 20 && k < 20 + std::size(k16)) w = k16[k - 20] | (uint32_t{k16[k - 20]} << 16);
    std::memcpy(&ub[i], &w, 4);
  }
  return ub;
}

// Element j of repeat r of an operand (docs/isa.md section 7).
uint64_t At(int64_t base, uint64_t blk, uint64_t rep, DType d, uint64_t r, uint64_t j) {
  const uint64_t eb = target::DTypeBytes(d), epb = 32 / eb;
  return base + r * rep * 32 + (j / epb) * blk * 32 + (j % epb) * eb;
}

bool IsNan(double v) { return std::isnan(v); }

// The reference of one repeat-form element: f(src, src1 or the scalar, old dst).
using ElemFn = std::function<double(double, double, double)>;

// Runs `text` (a repeat-form instruction with src and, if `binary`, src1) on seeded memory and
// compares every byte with the reference.
void ExpectRepeatForm(const std::string& text, const ElemFn& f, double scalar = 0) {
  SCOPED_TRACE(text);
  const Instr in = One(text);
  const std::vector<uint8_t> init = Patterns(static_cast<uint32_t>(text.size()));
  std::vector<uint8_t> want = init;
  const DType od = in.op == target::Opcode::kVcast ? in.odtype : in.dtype;
  const bool binary = target::UsesField(in.op, target::FieldId::src1);
  for (uint64_t r = 0; r < static_cast<uint64_t>(in.repeat.imm); ++r) {
    for (uint64_t j = 0; j < static_cast<uint64_t>(in.mask.imm); ++j) {
      const uint64_t d = At(in.dst.imm, in.dst_blk, in.dst_rep, od, r, j);
      const double a =
          LoadElem(&init[At(in.src.imm, in.src_blk, in.src_rep, in.dtype, r, j)], in.dtype);
      const double b =
          binary
              ? LoadElem(&init[At(in.src1.imm, in.src1_blk, in.src1_rep, in.dtype, r, j)], in.dtype)
              : scalar;
      const bool cast = in.op == target::Opcode::kVcast;
      StoreElem(&want[d], od, f(a, b, LoadElem(&init[d], od)),
                cast ? in.round : target::RoundMode::kRint, cast);
    }
  }
  HostUb ub(init);
  ASSERT_TRUE(ApplyEffect(in, ub).ok());
  for (uint64_t i = 0; i < kUbBytes; ++i) {
    ASSERT_EQ(ub.bytes()[i], want[i]) << "first difference at UB byte " << i;
  }
}

// dst at 0, src at 64 KiB, src1 at 128 KiB: three repeats, a tail mask, a block stride of 2 on
// src and a repeat stride of 9 on dst (gaps the instruction must not touch).
std::string Strided(const std::string& op, const std::string& dtype, int mask,
                    const std::string& extra = "src1=131072, src1_blk=1, src1_rep=8, ") {
  return op + " dst=0, src=65536, " + extra + "repeat=3, mask=" + std::to_string(mask) +
         ", dst_blk=1, src_blk=2, dst_rep=9, src_rep=16, dtype=" + dtype;
}

double FirstNan(double a, double b, double v) { return IsNan(a) ? a : IsNan(b) ? b : v; }

const std::vector<std::pair<std::string, ElemFn>>& Binaries() {
  static const std::vector<std::pair<std::string, ElemFn>> ops = {
      {"vadd", [](double a, double b, double) { return FirstNan(a, b, a + b); }},
      {"vsub", [](double a, double b, double) { return FirstNan(a, b, a - b); }},
      {"vmul", [](double a, double b, double) { return FirstNan(a, b, a * b); }},
      {"vdiv", [](double a, double b, double) { return FirstNan(a, b, a / b); }},
      {"vmax", [](double a, double b, double) { return std::max(a, b); }},
      {"vmin", [](double a, double b, double) { return std::min(a, b); }},
  };
  return ops;
}

TEST(SimVectorOps, BinaryOpsMatchTheScalarReferenceOnTailsStridesNanAndInf) {
  for (const auto& [op, f] : Binaries()) {
    for (const char* dtype : {"f16", "f32"}) {
      const int epr = dtype[1] == '1' ? 128 : 64;
      ExpectRepeatForm(Strided(op, dtype, epr - 27), f);
      ExpectRepeatForm(op +
                           " dst=0, src=65536, src1=131072, repeat=5, mask=" + std::to_string(epr) +
                           ", dst_blk=1, src_blk=1, src1_blk=1, dst_rep=8, src_rep=8, "
                           "src1_rep=8, dtype=" +
                           dtype,
                       f);
    }
    if (op != "vdiv") ExpectRepeatForm(Strided(op, "s32", 45), f);
  }
}

TEST(SimVectorOps, ScalarFormsAndAxpyMatchTheScalarReference) {
  const uint32_t nan_bits = 0xffc00005, three = std::bit_cast<uint32_t>(-3.0f);
  for (uint32_t bits : {three, nan_bits}) {
    const std::string s = "scalar=" + std::to_string(bits) + ", ";
    const double sv = std::bit_cast<float>(bits);
    for (const auto& [op, f] : Binaries()) {
      ExpectRepeatForm(Strided(op + "s", "f32", 41, s), f, sv);
    }
    ExpectRepeatForm(
        Strided("vaxpy", "f32", 41, s),
        [](double a, double sc, double d) {
          return IsNan(a) ? a : IsNan(sc) ? sc : IsNan(d) ? d : sc * a + d;
        },
        sv);
    ExpectRepeatForm(
        Strided("vaxpy", "f16", 99, s),
        [](double a, double sc, double d) {
          return IsNan(a) ? a : IsNan(sc) ? sc : IsNan(d) ? d : sc * a + d;
        },
        HalfToFloat(FloatToHalf(static_cast<float>(sv))));
  }
}

TEST(SimVectorOps, UnaryFunctionsMatchTheFloatLibraryBitForBit) {
  const auto fl = [](double x) { return static_cast<float>(x); };
  const std::vector<std::pair<std::string, std::function<double(double)>>> ops = {
      {"vexp", [&](double a) { return std::exp(fl(a)); }},
      {"vln", [&](double a) { return std::log(fl(a)); }},
      {"vsqrt", [&](double a) { return std::sqrt(fl(a)); }},
      {"vrsqrt", [&](double a) { return 1.0f / std::sqrt(fl(a)); }},
      {"vrec", [](double a) { return 1.0 / a; }},
      {"vabs", [](double a) { return std::fabs(a); }},
      {"vrelu", [](double a) { return a > 0 ? a : 0.0; }},
      {"vneg", [](double a) { return -a; }},
      {"vsigmoid", [&](double a) { return 1.0f / (1.0f + std::exp(-fl(a))); }},
      {"vsilu", [&](double a) { return fl(a) / (1.0f + std::exp(-fl(a))); }},
      {"vsin", [&](double a) { return std::sin(fl(a)); }},
      {"vcos", [&](double a) { return std::cos(fl(a)); }},
      {"vmov", [](double a) { return a; }},
  };
  for (const auto& [op, f] : ops) {
    const ElemFn g = [&f](double a, double, double) { return f(a); };
    ExpectRepeatForm(Strided(op, "f32", 61, ""), g);
    ExpectRepeatForm(Strided(op, "f16", 83, ""), g);
  }
}

// The appended operations (docs/isa.md section 7): integer elements as their two's-complement
// values, shift counts of the width or more, pow in fp32 and exact int32, leaky ReLU.
TEST(SimVectorOps, BitwiseShiftPowAndLeakyReluMatchTheReference) {
  const auto i64 = [](double v) { return static_cast<int64_t>(v); };
  for (const char* dtype : {"s16", "u16"}) {
    const int mask = 77;
    ExpectRepeatForm(Strided("vand", dtype, mask),
                     [&](double a, double b, double) { return i64(a) & i64(b); });
    ExpectRepeatForm(Strided("vor", dtype, mask),
                     [&](double a, double b, double) { return i64(a) | i64(b); });
    ExpectRepeatForm(Strided("vxor", dtype, mask),
                     [&](double a, double b, double) { return i64(a) ^ i64(b); });
    ExpectRepeatForm(Strided("vnot", dtype, mask, ""),
                     [&](double a, double, double) { return ~i64(a); });
    ExpectRepeatForm(Strided("vands", dtype, mask, "scalar=1445, "),
                     [&](double a, double, double) { return i64(a) & 1445; });
  }
  for (const char* dtype : {"s16", "u16", "s32", "u32"}) {
    const int bits = target::DTypeBytes(*target::ParseDType(dtype)) * 8;
    for (int count : {0, 5, bits - 1, bits, 32, 40}) {
      const std::string s = "scalar=" + std::to_string(count) + ", ";
      ExpectRepeatForm(Strided("vshls", dtype, 29, s), [&](double a, double, double) {
        const uint64_t width = (uint64_t{1} << bits) - 1;  // the store wraps it into range
        return count >= bits ? 0.0
                             : static_cast<double>(
                                   ((static_cast<uint64_t>(i64(a)) & width) << count) & width);
      });
      ExpectRepeatForm(Strided("vshrs", dtype, 29, s), [&](double a, double, double) {
        return static_cast<double>(i64(a) >> std::min(count, 63));
      });
    }
  }
  const auto fl = [](double x) { return static_cast<float>(x); };
  ExpectRepeatForm(Strided("vpow", "f32", 45),
                   [&](double a, double b, double) { return std::pow(fl(a), fl(b)); });
  ExpectRepeatForm(Strided("vpow", "f16", 45),
                   [&](double a, double b, double) { return std::pow(fl(a), fl(b)); });
  // s32 powers of the seeded patterns overflow at once: IntegerPowIsExactAndWraps has its own.
  const uint32_t slope = std::bit_cast<uint32_t>(0.25f);
  for (const char* dtype : {"f16", "f32"}) {
    ExpectRepeatForm(
        Strided("vlrelus", dtype, 45, "scalar=" + std::to_string(slope) + ", "),
        [&](double a, double s, double) { return a >= 0 ? a : fl(fl(a) * fl(s)); }, 0.25);
  }
}

TEST(SimVectorOps, IntegerPowIsExactAndWraps) {
  // 3 ** 4, 7 ** 12 (wraps), (-2) ** 31, 5 ** -1 = 0, (-1) ** -3 = -1.
  const int32_t base[] = {3, 7, -2, 5, -1, 1, 0, 2};
  const int32_t expo[] = {4, 12, 31, -1, -3, -7, 0, 33};
  const int32_t want[] = {
      81, static_cast<int32_t>(13841287201LL & 0xffffffff), INT32_MIN, 0, -1, 1, 1, 0};
  std::vector<uint8_t> init(kUbBytes);
  std::memcpy(&init[65536], base, sizeof base);
  std::memcpy(&init[131072], expo, sizeof expo);
  HostUb ub(init);
  ASSERT_TRUE(ApplyEffect(One("vpow dst=0, src=65536, src1=131072, repeat=1, mask=8, dst_blk=1, "
                              "src_blk=1, src1_blk=1, dst_rep=8, src_rep=8, src1_rep=8, dtype=s32"),
                          ub)
                  .ok());
  int32_t got[8];
  std::memcpy(got, ub.bytes().data(), sizeof got);
  EXPECT_EQ(std::vector<int32_t>(got, got + 8), std::vector<int32_t>(want, want + 8));
}

TEST(SimVectorOps, DupAndCastsRoundLikeTheScalarStores) {
  const uint32_t v = std::bit_cast<uint32_t>(1.0f + 0x1p-12f);  // between two fp16 values
  const std::string dup = "vdup dst=0, scalar=" + std::to_string(v) +
                          ", repeat=3, mask=37, dst_blk=1, dst_rep=9, dtype=";
  const double as_half = HalfToFloat(FloatToHalf(std::bit_cast<float>(v)));
  ExpectRepeatForm(dup + "f16", [&](double, double, double) { return as_half; });
  ExpectRepeatForm(dup + "f32", [&](double, double, double) { return 1.0 + 0x1p-12; });
  const ElemFn same = [](double a, double, double) { return a; };
  for (const char* round : {"rint", "round", "floor", "ceil", "trunc", "odd"}) {
    const std::string tail = std::string(", odtype=f16, round=") + round;
    ExpectRepeatForm(Strided("vcast", "f32", 37, "") + tail, same);
    ExpectRepeatForm(Strided("vcast", "f32", 37, "") + ", odtype=s32, round=" + round, same);
  }
  ExpectRepeatForm(Strided("vcast", "f16", 50, "") + ", odtype=f32, round=rint", same);
  ExpectRepeatForm(Strided("vcast", "f32", 50, "") + ", odtype=bf16, round=rint", same);
  ExpectRepeatForm(Strided("vcast", "s32", 50, "") + ", odtype=f16, round=rint", same);
  ExpectRepeatForm(Strided("vmov", "bf16", 70, ""), same);
}

// 2-D forms: row r of a matrix at base + r * rstride * 32, contiguous elements.
struct Matrix2d {
  int64_t base;
  int64_t rstride;
  uint64_t At(DType d, uint64_t r, uint64_t c) const {
    return base + r * rstride * 32 + c * target::DTypeBytes(d);
  }
};

// Compares a 2-D instruction with `fill(init, want)`, which writes the expected bytes.
void Expect2d(const std::string& text,
              const std::function<void(const Instr&, const std::vector<uint8_t>&,
                                       std::vector<uint8_t>&)>& fill) {
  SCOPED_TRACE(text);
  const Instr in = One(text);
  const std::vector<uint8_t> init = Patterns(static_cast<uint32_t>(text.size()));
  std::vector<uint8_t> want = init;
  fill(in, init, want);
  HostUb ub(init);
  ASSERT_TRUE(ApplyEffect(in, ub).ok());
  for (uint64_t i = 0; i < kUbBytes; ++i) {
    ASSERT_EQ(ub.bytes()[i], want[i]) << "first difference at UB byte " << i;
  }
}

// Reductions fold in element order in double: the first of equal candidates (+0 / -0) wins,
// NaN elements are passed over by max and min and poison sums.
void ExpectReduction(const std::string& op, const std::string& dtype, bool rows, int acc) {
  const std::string text =
      op + " dst=131072, src=65536, repeat=5, count=37, src_rstride=7, acc=" + std::to_string(acc) +
      ", dtype=" + dtype;
  Expect2d(
      text, [&](const Instr& in, const std::vector<uint8_t>& init, std::vector<uint8_t>& want) {
        const Matrix2d src{in.src.imm, in.src_rstride};
        const uint64_t n = rows ? in.repeat.imm : in.count.imm;
        for (uint64_t i = 0; i < n; ++i) {
          double v = op.ends_with("sum") ? 0.0 : op.ends_with("max") ? -INFINITY : INFINITY;
          const auto fold = [&](double x) {
            v = op.ends_with("sum")   ? FirstNan(v, x, v + x)
                : op.ends_with("max") ? std::max(v, x)
                                      : std::min(v, x);
          };
          const uint64_t m = rows ? in.count.imm : in.repeat.imm;
          for (uint64_t k = 0; k < m; ++k) {
            fold(LoadElem(&init[rows ? src.At(in.dtype, i, k) : src.At(in.dtype, k, i)], in.dtype));
          }
          uint8_t* p = &want[in.dst.imm + i * target::DTypeBytes(in.dtype)];
          if (in.acc != 0) fold(LoadElem(p, in.dtype));
          StoreElem(p, in.dtype, v);
        }
      });
}

TEST(SimVectorOps, RowAndColumnReductionsFoldInElementOrder) {
  for (const char* dtype : {"f16", "f32", "s32"}) {
    for (int acc : {0, 1}) {
      for (const char* op : {"vrow_sum", "vrow_max", "vrow_min"})
        ExpectReduction(op, dtype, true, acc);
      for (const char* op : {"vcol_sum", "vcol_max", "vcol_min"})
        ExpectReduction(op, dtype, false, acc);
    }
  }
}

TEST(SimVectorOps, RowMaxOfSignedZerosIsTheFirstZeroInElementOrder) {
  // The first zero (element 1) and a zero of the other sign at element 8, which a lane-wise
  // maximum over 8 lanes would meet first; everything else is negative.
  for (uint32_t first : {0x00000000u, 0x80000000u}) {
    std::vector<uint8_t> init(kUbBytes, 0);
    for (int c = 0; c < 24; ++c) {
      uint32_t w = std::bit_cast<uint32_t>(c == 0 ? -1.0f : -2.0f);
      if (c == 1) w = first;
      if (c == 8) w = first ^ 0x80000000u;
      std::memcpy(&init[4 * c], &w, 4);
    }
    HostUb ub(init);
    const Instr in =
        One("vrow_max dst=4096, src=0, repeat=1, count=24, src_rstride=0, acc=0, "
            "dtype=f32");
    ASSERT_TRUE(ApplyEffect(in, ub).ok());
    uint32_t got = 0;
    std::memcpy(&got, &ub.bytes()[4096], 4);
    EXPECT_EQ(got, first);
  }
}

TEST(SimVectorOps, RowAndColumnBroadcastsMatchTheScalarReference) {
  for (const auto& [op, f] : Binaries()) {
    for (const char* form : {"vbrow_", "vbcol_"}) {
      for (const char* dtype : {"f16", "f32"}) {
        const std::string text = form + op.substr(1) +
                                 " dst=0, src=65536, src1=131072, repeat=6, count=37, "
                                 "dst_rstride=9, src_rstride=5, dtype=" +
                                 dtype;
        Expect2d(text, [&](const Instr& in, const std::vector<uint8_t>& init,
                           std::vector<uint8_t>& want) {
          const Matrix2d src{in.src.imm, in.src_rstride}, dst{in.dst.imm, in.dst_rstride};
          const uint64_t eb = target::DTypeBytes(in.dtype);
          for (uint64_t r = 0; r < static_cast<uint64_t>(in.repeat.imm); ++r) {
            for (uint64_t c = 0; c < static_cast<uint64_t>(in.count.imm); ++c) {
              const uint64_t v = in.src1.imm + (form[2] == 'c' ? c : r) * eb;
              StoreElem(&want[dst.At(in.dtype, r, c)], in.dtype,
                        f(LoadElem(&init[src.At(in.dtype, r, c)], in.dtype),
                          LoadElem(&init[v], in.dtype), 0));
            }
          }
        });
      }
    }
  }
}

TEST(SimVectorOps, TransposeMovesEveryElementAndNothingElse) {
  for (const char* dtype : {"f16", "f32", "s32", "bf16"}) {
    Expect2d(std::string("vtrans dst=0, src=65536, repeat=7, count=37, dst_rstride=2, "
                         "src_rstride=5, dtype=") +
                 dtype,
             [](const Instr& in, const std::vector<uint8_t>& init, std::vector<uint8_t>& want) {
               const Matrix2d src{in.src.imm, in.src_rstride}, dst{in.dst.imm, in.dst_rstride};
               const uint64_t eb = target::DTypeBytes(in.dtype);
               for (uint64_t r = 0; r < static_cast<uint64_t>(in.repeat.imm); ++r) {
                 for (uint64_t c = 0; c < static_cast<uint64_t>(in.count.imm); ++c) {
                   std::memcpy(&want[dst.At(in.dtype, c, r)], &init[src.At(in.dtype, r, c)], eb);
                 }
               }
             });
  }
}

TEST(SimVectorOps, GatherReadsTheTableAtByteOffsetsAndFaultsOutsideIt) {
  std::vector<uint8_t> init(kUbBytes);
  for (int i = 0; i < 64; ++i) {
    const uint16_t v = static_cast<uint16_t>(1000 + i);
    std::memcpy(&init[65536 + 2 * i], &v, 2);  // the table: 64 halves
  }
  const uint32_t offsets[] = {0, 126, 2, 64, 40, 40};
  std::memcpy(&init[131072], offsets, sizeof offsets);
  auto run = [&](const std::string& base, const std::string& len) {
    HostUb ub(init);
    Status st = ApplyEffect(One("vgather dst=0, src=65536, src1=131072, scalar=" + base +
                                ", repeat=1, count=6, len=" + len + ", dtype=u16"),
                            ub);
    std::vector<uint16_t> got(6);
    std::memcpy(got.data(), ub.bytes().data(), 12);
    return std::pair{st, got};
  };
  auto [st, got] = run("0", "128");
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(got, (std::vector<uint16_t>{1000, 1063, 1001, 1032, 1020, 1020}));
  auto [st2, got2] = run("2", "128");  // 126 + 2 is past the 128-byte table
  EXPECT_FALSE(st2.ok());
  EXPECT_NE(st2.message().find("vgather: element 1 reads byte offset 128, outside the 128-byte "
                               "table"),
            std::string::npos)
      << st2;
  EXPECT_FALSE(run("1", "128").first.ok());  // odd byte offsets split an element
  {  // no elements (a mutated program, past the assembler's checks): nothing moves or faults
    HostUb ub(init);
    Instr gather =
        One("vgather dst=0, src=65536, src1=131072, scalar=0, repeat=1, count=6, "
            "len=128, dtype=u16");
    Instr index = One("vindex dst=0, scalar=0, repeat=1, count=1, dtype=s32");
    ASSERT_EQ(gather.op, target::Opcode::kVgather);
    ASSERT_EQ(index.op, target::Opcode::kVindex);
    gather.repeat.imm = 0;
    index.count.imm = 0;
    EXPECT_TRUE(ApplyEffect(gather, ub).ok());
    EXPECT_TRUE(ApplyEffect(index, ub).ok());
    EXPECT_EQ(ub.bytes(), init);
  }
  std::vector<Span> spans;
  DescribeAccesses(One("vgather dst=0, src=65536, src1=131072, scalar=0, repeat=1, count=6, "
                       "len=128, dtype=u16"),
                   &spans);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].bytes, 128u);  // the whole table may be read
  EXPECT_EQ(spans[1].bytes, 24u);
  EXPECT_TRUE(spans[2].write);
  EXPECT_EQ(spans[2].bytes, 12u);
}

TEST(SimVectorOps, MulAddDstReadsItsDestination) {
  ExpectRepeatForm(
      "vmla dst=0, src=1024, src1=2048, repeat=2, mask=64, dst_blk=1, src_blk=1, "
      "src1_blk=1, dst_rep=8, src_rep=8, src1_rep=8, dtype=f32",
      [](double a, double b, double d) { return a * b + d; }, 1.0);
  std::vector<Span> spans;
  DescribeAccesses(One("vmla dst=0, src=1024, src1=2048, repeat=1, mask=8, dst_blk=1, "
                       "src_blk=1, src1_blk=1, dst_rep=8, src_rep=8, src1_rep=8, dtype=f32"),
                   &spans);
  int dst_reads = 0;
  for (const Span& s : spans) dst_reads += !s.write && s.addr == 0;
  EXPECT_EQ(dst_reads, 1);
}

// AscendC GatherMask's fixed modes: 1 keeps even positions, 2 odd ones, 3..6 one of every
// four, 7 all; the kept elements are packed from dst on, bits unchanged.
TEST(SimVectorOps, GatherMaskPacksThePatternsElements) {
  std::vector<uint8_t> init(kUbBytes);
  for (int i = 0; i < 10; ++i) {
    const int32_t v = 100 + i;
    std::memcpy(&init[1024 + 4 * i], &v, 4);
  }
  auto run = [&](int pattern, int count) {
    HostUb ub(init);
    Status st = ApplyEffect(One("vgathermask dst=0, src=1024, scalar=" + std::to_string(pattern) +
                                ", repeat=1, count=" + std::to_string(count) + ", dtype=s32"),
                            ub);
    EXPECT_TRUE(st.ok()) << st;
    std::vector<int32_t> got(10);
    std::memcpy(got.data(), ub.bytes().data(), 40);
    return got;
  };
  EXPECT_EQ(run(1, 10), (std::vector<int32_t>{100, 102, 104, 106, 108, 0, 0, 0, 0, 0}));
  EXPECT_EQ(run(2, 9), (std::vector<int32_t>{101, 103, 105, 107, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(run(3, 10), (std::vector<int32_t>{100, 104, 108, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(run(6, 10), (std::vector<int32_t>{103, 107, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(run(7, 3), (std::vector<int32_t>{100, 101, 102, 0, 0, 0, 0, 0, 0, 0}));
  HostUb ub(init);
  EXPECT_FALSE(
      ApplyEffect(One("vgathermask dst=0, src=1024, scalar=0, repeat=1, count=10, dtype=s32"), ub)
          .ok());
  std::vector<Span> spans;
  DescribeAccesses(One("vgathermask dst=0, src=1024, scalar=4, repeat=1, count=10, dtype=s32"),
                   &spans);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].bytes, 40u);  // all of the source is read
  EXPECT_TRUE(spans[1].write);
  EXPECT_EQ(spans[1].bytes, 12u);  // positions 1, 5, 9
}

TEST(SimVectorOps, InPlaceAndOverlappingOperandsReadEveryInputFirst) {
  // dst one block past src: each element is computed from the old source values.
  ExpectRepeatForm(
      "vadds dst=32, src=0, scalar=1065353216, repeat=4, mask=64, dst_blk=1, "
      "src_blk=1, dst_rep=8, src_rep=8, dtype=f32",
      [](double a, double s, double) { return FirstNan(a, s, a + s); }, 1.0);
}

TEST(SimVectorOps, AccessSetsListExactlyTheActiveBytes) {
  std::vector<Span> spans;
  DescribeAccesses(One(Strided("vadd", "f32", 37)), &spans);
  std::vector<std::tuple<uint64_t, uint64_t, bool>> got;
  for (const Span& s : spans) got.emplace_back(s.addr, s.bytes, s.write);
  std::vector<std::tuple<uint64_t, uint64_t, bool>> want;
  for (uint64_t r = 0; r < 3; ++r) {  // src: 32-byte blocks every 64 bytes, 5 elements last
    for (uint64_t b = 0; b < 5; ++b)
      want.emplace_back(65536 + r * 512 + b * 64, b < 4 ? 32 : 20, false);
  }
  for (uint64_t r = 0; r < 3; ++r) want.emplace_back(131072 + r * 256, 148, false);  // src1
  for (uint64_t r = 0; r < 3; ++r) want.emplace_back(r * 288, 148, true);            // dst
  EXPECT_EQ(got, want);
  spans.clear();
  DescribeAccesses(One("vrow_sum dst=4096, src=0, repeat=4, count=64, src_rstride=8, acc=1, "
                       "dtype=f32"),
                   &spans);
  ASSERT_EQ(spans.size(), 3u);  // four contiguous rows merge into one run
  EXPECT_EQ(spans[0].bytes, 1024u);
  EXPECT_EQ(spans[1].addr, 4096u);
  EXPECT_FALSE(spans[1].write);
  EXPECT_TRUE(spans[2].write);
}

// AscendC Sort32: each group of 32 scores sorted descending into (score, index) proposals, the
// index moved bit for bit; for half the score is followed by two zero bytes. Equal scores keep
// their order and NaN ranks first (docs/isa.md's choices).
TEST(SimVectorOps, Sort32SortsEachGroupIntoProposals) {
  std::vector<uint8_t> init(kUbBytes);
  float values[64];
  for (int i = 0; i < 64; ++i) values[i] = static_cast<float>((i * 7) % 11);
  values[40] = std::nanf("");
  std::memcpy(&init[1024], values, sizeof(values));
  for (uint32_t i = 0; i < 64; ++i) {
    const uint32_t index = 0xabc00000u + i;
    std::memcpy(&init[2048 + 4 * i], &index, 4);
  }
  HostUb ub(init);
  Status st = ApplyEffect(One("vsort32 dst=0, src=1024, src1=2048, repeat=2, dtype=f32"), ub);
  ASSERT_TRUE(st.ok()) << st;
  auto at = [&](int k) {
    float v;
    uint32_t index;
    std::memcpy(&v, &ub.bytes()[8 * k], 4);
    std::memcpy(&index, &ub.bytes()[8 * k + 4], 4);
    return std::pair{v, index - 0xabc00000u};
  };
  EXPECT_EQ(at(0), (std::pair{10.0f, 3u}));  // 3 * 7 % 11 = 10, the first 10 of group 0
  EXPECT_EQ(at(1), (std::pair{10.0f, 14u}));
  EXPECT_EQ(at(31).first, 0.0f);
  EXPECT_TRUE(std::isnan(at(32).first));  // group 1 starts with its NaN
  EXPECT_EQ(at(32).second, 40u);
  for (int k = 34; k < 64; ++k) EXPECT_GE(at(k - 1).first, at(k).first) << k;
  std::vector<Span> spans;
  DescribeAccesses(One("vsort32 dst=0, src=1024, src1=2048, repeat=2, dtype=f16"), &spans);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].bytes, 128u);  // 64 halves
  EXPECT_EQ(spans[1].bytes, 256u);  // 64 indices
  EXPECT_TRUE(spans[2].write);
  EXPECT_EQ(spans[2].bytes, 512u);  // 64 proposals
}

// AscendC MrgSort on two lists: the merged proposals in descending order, the first list
// first among equal scores.
TEST(SimVectorOps, MrgSortMergesTwoSortedLists) {
  std::vector<uint8_t> init(kUbBytes);
  auto put = [&](size_t at, std::vector<float> v, uint32_t first_index) {
    for (size_t i = 0; i < v.size(); ++i) {
      const uint32_t index = first_index + static_cast<uint32_t>(i);
      std::memcpy(&init[at + 8 * i], &v[i], 4);
      std::memcpy(&init[at + 8 * i + 4], &index, 4);
    }
  };
  put(1024, {9, 5, 5, 1}, 100);
  put(2048, {7, 5, 0}, 200);
  HostUb ub(init);
  Status st =
      ApplyEffect(One("vmrgsort dst=0, src=1024, src1=2048, count=4, count1=3, dtype=f32"), ub);
  ASSERT_TRUE(st.ok()) << st;
  std::vector<uint32_t> order;
  for (int k = 0; k < 7; ++k) {
    uint32_t index;
    std::memcpy(&index, &ub.bytes()[8 * k + 4], 4);
    order.push_back(index);
  }
  EXPECT_EQ(order, (std::vector<uint32_t>{100, 200, 101, 102, 201, 103, 202}));
  std::vector<Span> spans;
  DescribeAccesses(One("vmrgsort dst=0, src=1024, src1=2048, count=4, count1=3, dtype=f32"),
                   &spans);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[2].bytes, 56u);
  EXPECT_TRUE(spans[2].write);
}

// AscendC BlockReduceMax: one result per 32-byte block of the repeat's active elements (a block
// with none has no result); WholeReduceMin: the repeat's minimum and the index of its first
// occurrence as an element-wide integer, in the order asked for; Gatherb: 32-byte blocks by
// byte offset.
TEST(SimVectorOps, RawRepeatReductionsAndGatherB) {
  std::vector<uint8_t> init(kUbBytes);
  for (int i = 0; i < 64; ++i) {
    const float v = static_cast<float>((i * 5) % 17) - 8.0f;
    std::memcpy(&init[1024 + 4 * i], &v, 4);
  }
  auto floats = [](const HostUb& ub, int n) {
    std::vector<float> out(n);
    std::memcpy(out.data(), ub.bytes().data(), 4 * n);
    return out;
  };
  HostUb block(init);
  ASSERT_TRUE(ApplyEffect(One("vbreduce_max dst=0, src=1024, repeat=1, mask=20, src_blk=1, "
                              "dst_rep=1, src_rep=8, scalar=0, dtype=f32"),
                          block)
                  .ok());
  // Blocks 0..2 hold elements 0-7, 8-15 and 16-19 (mask 20); blocks 3.. have no result.
  EXPECT_EQ(floats(block, 4), (std::vector<float>{7, 8, 4, 0}));
  HostUb whole(init);
  ASSERT_TRUE(ApplyEffect(One("vwreduce_min dst=0, src=1024, repeat=2, mask=32, src_blk=1, "
                              "dst_rep=1, src_rep=4, scalar=1, dtype=f32"),
                          whole)
                  .ok());
  // Order 1 (index, value): repeat 0's minimum -8 first occurs at 0, repeat 1's at 2 (i = 34).
  uint32_t index0, index1;
  std::memcpy(&index0, &whole.bytes()[0], 4);
  std::memcpy(&index1, &whole.bytes()[8], 4);
  EXPECT_EQ(index0, 0u);
  EXPECT_EQ(index1, 2u);
  EXPECT_EQ(floats(whole, 4)[1], -8.0f);
  EXPECT_EQ(floats(whole, 4)[3], -8.0f);
  std::vector<uint8_t> with_offsets = init;
  const uint32_t offsets[8] = {224, 192, 160, 128, 96, 64, 32, 0};
  std::memcpy(&with_offsets[4096], offsets, sizeof(offsets));
  HostUb g(with_offsets);
  ASSERT_TRUE(ApplyEffect(One("vgatherb dst=0, src=1024, src1=4096, repeat=1, dst_blk=1, "
                              "dst_rep=8, len=256, dtype=u32"),
                          g)
                  .ok());
  EXPECT_EQ(std::memcmp(&g.bytes()[0], &with_offsets[1024 + 224], 32), 0);
  EXPECT_EQ(std::memcmp(&g.bytes()[224], &with_offsets[1024], 32), 0);
  const uint32_t bad = 16;
  std::memcpy(&with_offsets[4096], &bad, 4);
  HostUb b2(with_offsets);
  EXPECT_FALSE(ApplyEffect(One("vgatherb dst=0, src=1024, src1=4096, repeat=1, dst_blk=1, "
                               "dst_rep=8, len=256, dtype=u32"),
                           b2)
                   .ok());
}

}  // namespace
}  // namespace vector_ops_test
}  // namespace tilejit::runner::sim
