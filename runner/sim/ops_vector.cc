// SPDX-License-Identifier: Apache-2.0
// Vector effects. Repeat form: element j of repeat r of an operand with block stride `blk`
// and repeat stride `rep` (both in 32-byte blocks) lives at
//   base + r * rep * 32 + (j / epb) * blk * 32 + (j % epb) * elem_bytes,  epb = 32 / elem_bytes,
// and the first `mask` elements of each repeat are active. 2-D forms address row r, element c
// at base + r * row_stride * 32 + c * elem_bytes. Each instruction gathers its operands into
// double buffers, computes with one loop and scatters the results (double holds every fp16,
// fp32 and int32 input and result of one operation exactly, so rounding happens once, on
// the store).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "runner/sim/half.h"
#include "runner/sim/ops.h"

namespace tilejit::runner::sim::internal {
namespace {

using target::DType;
using target::FieldId;
using target::Instr;
using target::Opcode;

uint64_t Eb(DType d) { return target::DTypeBytes(d); }

struct Operand {
  uint64_t base = 0;
  uint64_t blk = 1;
  uint64_t rep = 8;
  DType dtype = DType::kF16;
};

enum class Form { kRepeat, kRow2d, kCol2d, kBrow, kBcol, kBrcb, kCompare, kSelect };

Form FormOf(Opcode op) {
  switch (op) {
    case Opcode::kVrowSum:
    case Opcode::kVrowMax:
    case Opcode::kVrowMin:
      return Form::kRow2d;
    case Opcode::kVcolSum:
    case Opcode::kVcolMax:
    case Opcode::kVcolMin:
      return Form::kCol2d;
    case Opcode::kVbrowAdd:
    case Opcode::kVbrowSub:
    case Opcode::kVbrowMul:
    case Opcode::kVbrowDiv:
    case Opcode::kVbrowMax:
    case Opcode::kVbrowMin:
      return Form::kBrow;
    case Opcode::kVbcolAdd:
    case Opcode::kVbcolSub:
    case Opcode::kVbcolMul:
    case Opcode::kVbcolDiv:
    case Opcode::kVbcolMax:
    case Opcode::kVbcolMin:
      return Form::kBcol;
    case Opcode::kVbrcb:
      return Form::kBrcb;
    case Opcode::kVcmp:
      return Form::kCompare;
    case Opcode::kVsel:
      return Form::kSelect;
    default:
      return Form::kRepeat;
  }
}

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
bool HasSrc1(const Instr& in) { return target::UsesField(in.op, FieldId::src1); }
bool ReadsDst(const Instr& in) { return in.op == Opcode::kVaxpy || in.op == Opcode::kVaxpyUb; }

uint64_t ElemOffset(const Operand& o, uint64_t r, uint64_t j) {
  const uint64_t eb = Eb(o.dtype), epb = 32 / eb;
  return r * o.rep * 32 + (j / epb) * o.blk * 32 + (j % epb) * eb;
}

void DescribeOperand(const Operand& o, uint64_t repeat, uint64_t mask, bool write,
                     std::vector<Span>* out) {
  const uint64_t eb = Eb(o.dtype), epb = 32 / eb;
  for (uint64_t r = 0; r < repeat; ++r) {
    for (uint64_t j = 0; j < mask; j += epb) {
      AddRun(out,
             {MemSpace::kUb, o.base + ElemOffset(o, r, j), std::min(epb, mask - j) * eb, write});
    }
  }
}

void Describe2d(const Instr& in, Form form, std::vector<Span>* out) {
  const uint64_t rows = in.repeat.imm, count = in.count.imm;
  const uint64_t eb = Eb(in.dtype);
  auto matrix = [&](uint64_t base, uint64_t stride, bool write) {
    for (uint64_t r = 0; r < rows; ++r)
      AddRun(out, {MemSpace::kUb, base + r * stride * 32, count * eb, write});
  };
  switch (form) {
    case Form::kRow2d:
    case Form::kCol2d: {
      matrix(in.src.imm, in.src_rstride, false);
      const uint64_t n = form == Form::kRow2d ? rows : count;
      if (in.acc != 0)
        AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.dst.imm), n * eb, false});
      AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.dst.imm), n * eb, true});
      return;
    }
    case Form::kBrow:
    case Form::kBcol:
      matrix(in.src.imm, in.src_rstride, false);
      AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.src1.imm),
                   (form == Form::kBrow ? rows : count) * eb, false});
      matrix(in.dst.imm, in.dst_rstride, true);
      return;
    case Form::kBrcb:
      AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.src1.imm), rows * eb, false});
      matrix(in.dst.imm, in.dst_rstride, true);
      return;
    default:
      return;
  }
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

double Binary(Opcode op, double a, double b) {
  switch (op) {
    case Opcode::kVadd:
    case Opcode::kVadds:
    case Opcode::kVaddsUb:
    case Opcode::kVbrowAdd:
    case Opcode::kVbcolAdd:
      return a + b;
    case Opcode::kVsub:
    case Opcode::kVsubs:
    case Opcode::kVsubsUb:
    case Opcode::kVbrowSub:
    case Opcode::kVbcolSub:
      return a - b;
    case Opcode::kVmul:
    case Opcode::kVmuls:
    case Opcode::kVmulsUb:
    case Opcode::kVbrowMul:
    case Opcode::kVbcolMul:
      return a * b;
    case Opcode::kVdiv:
    case Opcode::kVdivs:
    case Opcode::kVdivsUb:
    case Opcode::kVbrowDiv:
    case Opcode::kVbcolDiv:
      return a / b;
    case Opcode::kVmax:
    case Opcode::kVmaxs:
    case Opcode::kVmaxsUb:
    case Opcode::kVbrowMax:
    case Opcode::kVbcolMax:
      return std::max(a, b);
    default:  // min forms
      return std::min(a, b);
  }
}

double Unary(Opcode op, double a) {
  switch (op) {
    case Opcode::kVexp:
      return std::exp(static_cast<float>(a));
    case Opcode::kVln:
      return std::log(static_cast<float>(a));
    case Opcode::kVsqrt:
      return std::sqrt(static_cast<float>(a));
    case Opcode::kVrsqrt:
      return 1.0f / std::sqrt(static_cast<float>(a));
    case Opcode::kVrec:
      return 1.0 / a;
    case Opcode::kVabs:
      return std::fabs(a);
    case Opcode::kVrelu:
      return a > 0 ? a : 0.0;
    case Opcode::kVneg:
      return -a;
    case Opcode::kVsigmoid:
      return 1.0f / (1.0f + std::exp(-static_cast<float>(a)));
    default:  // vmov, vcast
      return a;
  }
}

bool IsScalarForm(Opcode op) {
  return op == Opcode::kVadds || op == Opcode::kVsubs || op == Opcode::kVmuls ||
         op == Opcode::kVdivs || op == Opcode::kVmaxs || op == Opcode::kVmins ||
         op == Opcode::kVaxpy || op == Opcode::kVaddsUb || op == Opcode::kVsubsUb ||
         op == Opcode::kVmulsUb || op == Opcode::kVdivsUb || op == Opcode::kVmaxsUb ||
         op == Opcode::kVminsUb || op == Opcode::kVaxpyUb;
}

// Lowest address and span of an operand's elements (for one host pointer per operand).
uint64_t Extent(const Operand& o, uint64_t repeat, uint64_t mask) {
  if (repeat == 0 || mask == 0) return 0;
  uint64_t hi = 0;
  const uint64_t epb = 32 / Eb(o.dtype);
  for (uint64_t j = 0; j < mask; j += epb) {
    hi = std::max(hi, ElemOffset(o, repeat - 1, std::min(mask, j + epb) - 1));
  }
  hi = std::max(hi, ElemOffset(o, 0, mask - 1));
  return hi + Eb(o.dtype);
}

Status ApplyRepeat(const Instr& in, MemView& mem) {
  const uint64_t repeat = in.repeat.imm, mask = Mask(in);
  if (repeat == 0) return Status::Ok();
  const Operand d = DstOf(in), s = SrcOf(in), s1 = Src1Of(in);
  uint8_t* dp = mem.Ptr(MemSpace::kUb, d.base, Extent(d, repeat, mask));
  const uint8_t* sp =
      HasSrc(in) ? mem.Ptr(MemSpace::kUb, s.base, Extent(s, repeat, mask)) : nullptr;
  const uint8_t* s1p =
      HasSrc1(in) ? mem.Ptr(MemSpace::kUb, s1.base, Extent(s1, repeat, mask)) : nullptr;
  const bool scalar_form = IsScalarForm(in.op);
  const double sc = scalar_form || in.op == Opcode::kVdup ? ScalarOf(in, mem) : 0.0;
  const target::RoundMode rm = in.op == Opcode::kVcast ? in.round : target::RoundMode::kRint;
  const bool saturate = in.op == Opcode::kVcast;
  // Gather every input first so that overlapping destinations see the old values.
  thread_local std::vector<double> out;
  out.resize(repeat * mask);
  for (uint64_t r = 0; r < repeat; ++r) {
    for (uint64_t j = 0; j < mask; ++j) {
      double v;
      if (in.op == Opcode::kVdup) {
        v = sc;
      } else {
        const double a = LoadElem(sp + ElemOffset(s, r, j), s.dtype);
        if (in.op == Opcode::kVaxpy || in.op == Opcode::kVaxpyUb) {
          v = sc * a + LoadElem(dp + ElemOffset(d, r, j), d.dtype);
        } else if (s1p != nullptr) {
          v = Binary(in.op, a, LoadElem(s1p + ElemOffset(s1, r, j), s1.dtype));
        } else if (scalar_form) {
          v = Binary(in.op, a, sc);
        } else {
          v = Unary(in.op, a);
        }
      }
      out[r * mask + j] = v;
    }
  }
  for (uint64_t r = 0; r < repeat; ++r) {
    for (uint64_t j = 0; j < mask; ++j) {
      StoreElem(dp + ElemOffset(d, r, j), d.dtype, out[r * mask + j], rm, saturate);
    }
  }
  return Status::Ok();
}

double ReduceInit(Opcode op) {
  if (op == Opcode::kVrowMax || op == Opcode::kVcolMax)
    return -std::numeric_limits<double>::infinity();
  if (op == Opcode::kVrowMin || op == Opcode::kVcolMin)
    return std::numeric_limits<double>::infinity();
  return 0.0;
}

double Reduce(Opcode op, double a, double b) {
  if (op == Opcode::kVrowMax || op == Opcode::kVcolMax) return std::max(a, b);
  if (op == Opcode::kVrowMin || op == Opcode::kVcolMin) return std::min(a, b);
  return a + b;
}

Status Apply2d(const Instr& in, Form form, MemView& mem) {
  const uint64_t rows = in.repeat.imm, count = in.count.imm, eb = Eb(in.dtype);
  if (rows == 0) return Status::Ok();
  auto at = [&](uint64_t base, uint64_t stride, uint64_t r, uint64_t c) {
    return mem.Ptr(MemSpace::kUb, base + r * stride * 32 + c * eb, eb);
  };
  if (form == Form::kRow2d || form == Form::kCol2d) {
    const uint64_t n = form == Form::kRow2d ? rows : count;
    std::vector<double> acc(n, ReduceInit(in.op));
    for (uint64_t r = 0; r < rows; ++r) {
      for (uint64_t c = 0; c < count; ++c) {
        double& slot = acc[form == Form::kRow2d ? r : c];
        slot = Reduce(in.op, slot, LoadElem(at(in.src.imm, in.src_rstride, r, c), in.dtype));
      }
    }
    for (uint64_t i = 0; i < n; ++i) {
      uint8_t* p = at(in.dst.imm, 0, 0, i);
      StoreElem(p, in.dtype, in.acc != 0 ? Reduce(in.op, acc[i], LoadElem(p, in.dtype)) : acc[i]);
    }
    return Status::Ok();
  }
  std::vector<double> vec(form == Form::kBcol ? count : rows);
  for (uint64_t i = 0; i < vec.size(); ++i) vec[i] = LoadElem(at(in.src1.imm, 0, 0, i), in.dtype);
  std::vector<double> out(rows * count);
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t c = 0; c < count; ++c) {
      const double b = vec[form == Form::kBcol ? c : r];
      out[r * count + c] =
          form == Form::kBrcb
              ? b
              : Binary(in.op, LoadElem(at(in.src.imm, in.src_rstride, r, c), in.dtype), b);
    }
  }
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t c = 0; c < count; ++c)
      StoreElem(at(in.dst.imm, in.dst_rstride, r, c), in.dtype, out[r * count + c]);
  }
  return Status::Ok();
}

bool Compare(target::CmpMode c, double a, double b) {
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

// vcmp writes bit (i * epr + e) of a packed mask; vsel reads it.
Status ApplyMaskOp(const Instr& in, Form form, MemView& mem) {
  const uint64_t repeat = in.repeat.imm, mask = Mask(in), epr = ElemsPerRepeat(in);
  if (repeat == 0) return Status::Ok();
  const Operand s = SrcOf(in), s1 = Src1Of(in), d = DstOf(in);
  const uint8_t* sp = mem.Ptr(MemSpace::kUb, s.base, Extent(s, repeat, mask));
  const uint8_t* s1p = mem.Ptr(MemSpace::kUb, s1.base, Extent(s1, repeat, mask));
  const uint64_t bits_bytes = (repeat * epr + 7) / 8;
  if (form == Form::kCompare) {
    std::vector<uint8_t> bits(bits_bytes, 0);
    for (uint64_t r = 0; r < repeat; ++r) {
      for (uint64_t j = 0; j < mask; ++j) {
        const bool v = Compare(in.cmp, LoadElem(sp + ElemOffset(s, r, j), s.dtype),
                               LoadElem(s1p + ElemOffset(s1, r, j), s1.dtype));
        const uint64_t bit = r * epr + j;
        if (v) bits[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
      }
    }
    std::memcpy(mem.Ptr(MemSpace::kUb, in.dst.imm, bits_bytes), bits.data(), bits_bytes);
    return Status::Ok();
  }
  const uint8_t* sel = mem.Ptr(MemSpace::kUb, in.sel.imm, bits_bytes);
  uint8_t* dp = mem.Ptr(MemSpace::kUb, d.base, Extent(d, repeat, mask));
  std::vector<uint8_t> out(repeat * mask * Eb(d.dtype));
  const uint64_t eb = Eb(d.dtype);
  for (uint64_t r = 0; r < repeat; ++r) {
    for (uint64_t j = 0; j < mask; ++j) {
      const uint64_t bit = r * epr + j;
      const bool take = (sel[bit / 8] >> (bit % 8)) & 1;
      std::memcpy(&out[(r * mask + j) * eb],
                  take ? sp + ElemOffset(s, r, j) : s1p + ElemOffset(s1, r, j), eb);
    }
  }
  for (uint64_t r = 0; r < repeat; ++r) {
    for (uint64_t j = 0; j < mask; ++j)
      std::memcpy(dp + ElemOffset(d, r, j), &out[(r * mask + j) * eb], eb);
  }
  return Status::Ok();
}

}  // namespace

void DescribeVector(const Instr& in, std::vector<Span>* out) {
  const Form form = FormOf(in.op);
  const uint64_t repeat = in.repeat.imm, mask = Mask(in);
  if (form == Form::kCompare || form == Form::kSelect) {
    DescribeOperand(SrcOf(in), repeat, mask, false, out);
    DescribeOperand(Src1Of(in), repeat, mask, false, out);
    const uint64_t bits_bytes = (repeat * ElemsPerRepeat(in) + 7) / 8;
    if (form == Form::kCompare) {
      AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.dst.imm), bits_bytes, true});
    } else {
      AddRun(out, {MemSpace::kUb, static_cast<uint64_t>(in.sel.imm), bits_bytes, false});
      DescribeOperand(DstOf(in), repeat, mask, true, out);
    }
    return;
  }
  if (form != Form::kRepeat) {
    Describe2d(in, form, out);
    return;
  }
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
  const Form form = FormOf(in.op);
  if (form == Form::kCompare || form == Form::kSelect) return ApplyMaskOp(in, form, mem);
  if (form != Form::kRepeat) return Apply2d(in, form, mem);
  return ApplyRepeat(in, mem);
}

}  // namespace tilejit::runner::sim::internal
