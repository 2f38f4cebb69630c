// SPDX-License-Identifier: Apache-2.0
// The mma tile op: C (l0c) = / += A (l0a, m x k) x B (l0b, k x n) as mmad instructions.
//
// mmad addresses its operands in the layouts of the matrices it is given (A zZ with
// ceil(k / C0) fractals per fractal row, B nZ with ceil(n / 16), C zN with 16 * ceil(m / 16)
// rows per column block), so the regions must agree with their buffers' layouts: A spans its
// buffer's columns or is one fractal row (m <= 16), B spans its columns or is one band
// (k <= C0), and C's padded row count is its buffer's (or n <= 16).
//
// Splits past the 4095 limit of m/n/k follow the same rule: a part of an operand must again
// be a matrix in the layout mmad expects. k parts start at multiples of C0 and accumulate
// (init only on the first part); they need m <= 16 (A is one fractal row). n parts start at
// multiples of 16 and need k <= C0 (B is one band). m parts start at multiples of 16 and need
// n <= 16 (C is one column block). A split the layouts do not allow is a diagnostic; on the
// 910B no L0 buffer large enough to need one fails these conditions.
#include <algorithm>
#include <variant>

#include "common/check.h"
#include "compiler/codegen/copy_util.h"
#include "compiler/codegen/ops.h"
#include "compiler/target/tile_layout.h"

namespace tilejit::codegen {
namespace {

using internal::Describe;
using internal::Reject;
using target::Instr;
using target::Opcode;
using target::OpImm;
using target::Opnd;

constexpr int64_t kMaxMnk = 4095;
constexpr int64_t kL0cRowBytes = 64;  // one zN row of 16 fp32/s32

struct MmaShape {
  int64_t m, n, k, c0;
};

Result<Opnd> InitOperand(Emitter& e, const ir::TileOpNode& op) {
  const ir::AttrValue* v = op.FindAttr("init");
  if (v == nullptr) return OpImm(0);
  if (const bool* b = std::get_if<bool>(v)) return OpImm(*b ? 1 : 0);
  if (const ir::Expr* x = std::get_if<ir::Expr>(v)) {
    TILEJIT_ASSIGN_OR_RETURN(Opnd o, e.Int(*x));
    if (o.is_static()) return OpImm(o.imm != 0 ? 1 : 0);
    return o;
  }
  if (const int64_t* i = std::get_if<int64_t>(v)) return OpImm(*i != 0 ? 1 : 0);
  return Reject(e, op.loc, "mma init must be a bool or a scalar expression");
}

Status CheckTypes(Emitter& e, const ir::TileOpNode& op, const RegionRef& c, const RegionRef& a,
                  const RegionRef& b) {
  const ir::DType ta = a.region->buffer->dtype, tb = b.region->buffer->dtype;
  const ir::DType tc = c.region->buffer->dtype;
  if (ta != tb) {
    return Reject(e, op.loc, "mma operands A and B have different types (", ir::DTypeName(ta), ", ",
                  ir::DTypeName(tb), ")");
  }
  const bool is_float =
      ta == ir::DType::kFloat16 || ta == ir::DType::kBFloat16 || ta == ir::DType::kFloat32;
  if (!is_float && ta != ir::DType::kInt8) {
    return Reject(e, op.loc, "the cube does not multiply ", ir::DTypeName(ta),
                  " (float16, bfloat16, float32 or int8)");
  }
  const ir::DType want = is_float ? ir::DType::kFloat32 : ir::DType::kInt32;
  if (tc != want) {
    return Reject(e, op.loc, "mma of ", ir::DTypeName(ta), " accumulates in ", ir::DTypeName(want),
                  ", but C is ", ir::DTypeName(tc));
  }
  return Status::Ok();
}

Status CheckShapes(Emitter& e, const ir::TileOpNode& op, const RegionRef& c, const RegionRef& a,
                   const RegionRef& b, const MmaShape& s) {
  if (b.rows != s.k || c.rows != s.m || c.cols != s.n) {
    return Reject(e, op.loc, "mma shapes do not agree: C is ", c.rows, " x ", c.cols, ", A is ",
                  a.rows, " x ", a.cols, ", B is ", b.rows, " x ", b.cols,
                  " (need C m x n, A m x k, B k x n)");
  }
  if (a.batch != 1 || b.batch != 1 || c.batch != 1) {
    return Reject(e, op.loc, "mma operands must be single matrices (a leading dim of extent 1)");
  }
  if (a.cols != a.layout.cols && s.m > 16) {
    return Reject(e, op.loc, "A (", Describe(a), ") covers ", a.cols, " of its ", a.layout.cols,
                  " columns; with m > 16 it must span all of them");
  }
  if (b.cols != b.layout.cols && s.k > s.c0) {
    return Reject(e, op.loc, "B (", Describe(b), ") covers ", b.cols, " of its ", b.layout.cols,
                  " columns; with k > ", s.c0, " it must span all of them");
  }
  if (target::RoundUp(s.m, 16) != c.layout.pitch && s.n > 16) {
    return Reject(e, op.loc, "C (", Describe(c), ") has ", c.layout.pitch,
                  " padded rows but mmad writes m = ", s.m, " rows as ", target::RoundUp(s.m, 16),
                  "; with n > 16 they must agree");
  }
  auto split_error = [&](const char* dim, int64_t v, const char* need) {
    return Reject(e, op.loc, "mma ", dim, " = ", v, " exceeds the cube's limit of ", kMaxMnk,
                  " and cannot be split in these layouts (", need, ")");
  };
  if (s.k > kMaxMnk && s.m > 16) return split_error("k", s.k, "needs m <= 16");
  if (s.n > kMaxMnk && s.k > s.c0) return split_error("n", s.n, "needs k <= C0");
  if (s.m > kMaxMnk && s.n > 16) return split_error("m", s.m, "needs n <= 16");
  return Status::Ok();
}

}  // namespace

Status EmitMma(Emitter& e, const ir::TileOpNode& op) {
  TILEJIT_CHECK(op.op == ir::TileOpCode::kMma) << "EmitMma on " << ir::TileOpName(op.op);
  TILEJIT_CHECK(op.args.size() == 3) << "mma needs three operands";
  const ir::MemScope want[] = {ir::MemScope::kL0C, ir::MemScope::kL0A, ir::MemScope::kL0B};
  for (int i = 0; i < 3; ++i) {
    const ir::Region* r = std::get_if<ir::Region>(&op.args[i]);
    TILEJIT_CHECK(r != nullptr) << "mma operand " << i << " is not a region";
    if (r->buffer->scope != want[i]) {
      return Reject(e, op.loc, "mma operand ", "CAB"[i], " ('", r->buffer->name, "') must be in ",
                    ir::MemScopeName(want[i]), ", not ", ir::MemScopeName(r->buffer->scope));
    }
  }
  TILEJIT_ASSIGN_OR_RETURN(RegionRef c, e.RegionAddress(std::get<ir::Region>(op.args[0])));
  TILEJIT_ASSIGN_OR_RETURN(RegionRef a, e.RegionAddress(std::get<ir::Region>(op.args[1])));
  TILEJIT_ASSIGN_OR_RETURN(RegionRef b, e.RegionAddress(std::get<ir::Region>(op.args[2])));
  TILEJIT_RETURN_IF_ERROR(CheckTypes(e, op, c, a, b));
  const MmaShape s{a.rows, b.cols, a.cols, a.layout.c0};
  TILEJIT_RETURN_IF_ERROR(CheckShapes(e, op, c, a, b, s));
  TILEJIT_ASSIGN_OR_RETURN(Opnd init, InitOperand(e, op));

  const int64_t kf = target::CeilDiv(a.layout.cols, s.c0);  // A fractals per fractal row
  const int64_t nf = target::CeilDiv(b.layout.cols, 16);    // B fractals per band
  const int64_t pitch = c.layout.pitch;
  // Part sizes: the largest multiple of the part's fractal step within the limit.
  const int64_t m_step = kMaxMnk / 16 * 16, n_step = kMaxMnk / 16 * 16;
  const int64_t k_step = kMaxMnk / s.c0 * s.c0;
  for (int64_t m0 = 0; m0 < s.m; m0 += m_step) {
    for (int64_t n0 = 0; n0 < s.n; n0 += n_step) {
      for (int64_t k0 = 0; k0 < s.k; k0 += k_step) {
        Instr in{.op = Opcode::kMmad};
        in.dst = e.Add(c.address, OpImm(n0 / 16 * pitch * kL0cRowBytes + m0 * kL0cRowBytes));
        in.src = e.Add(a.address, OpImm((m0 / 16 * kf + k0 / s.c0) * target::kFractalBytes));
        in.src1 = e.Add(b.address, OpImm((k0 / s.c0 * nf + n0 / 16) * target::kFractalBytes));
        in.m = OpImm(std::min(m_step, s.m - m0));
        in.n = OpImm(std::min(n_step, s.n - n0));
        in.k = OpImm(std::min(k_step, s.k - k0));
        in.init = k0 == 0 ? init : OpImm(0);
        in.dtype = IsaDType(a.region->buffer->dtype);
        e.Emit(in);
      }
    }
  }
  return Status::Ok();
}

}  // namespace tilejit::codegen
