// SPDX-License-Identifier: Apache-2.0
// compare {mode} and select {mode}: the bit-mask contract.
//
// compare(mask, src0, src1) writes one bit per element of the [R, C] source (a 1-D source is
// one row); select(dst, mask, src0, src1) reads the same layout: dst = bit ? src0 : src1.
// The mask is a UB tile counted in bytes (uint8 is TileLang's idiom). Layout:
//  - a mask tile with R rows (R > 1): row r of the comparison is row r of the mask, bit c of
//    the row = byte c / 8, bit c % 8 (each mask row needs ceil(C / 8) bytes);
//  - otherwise (1-D, or a different row count) the mask region is one contiguous run and row
//    r starts at byte r * S, S = ceil(C / 8) rounded up to 32.
// Why rows start on 32-byte blocks: vcmp/vsel address the mask per instruction and UB
// operands must be 32-byte aligned. For the same reason a row whose length C has both full
// repeats and a partial one (C % E != 0 and C > E, E = 256 / element bytes) lowers only when
// the full repeats end on a 32-byte mask block (C / E * E a multiple of 256); other lengths
// are a diagnostic. vcmp writes whole repeats, so up to 15 bytes after a row's bits (inside
// its 32-byte slot) are written as zero.
//
// Scalar operands (compare against a number, select with a scalar `src1`) are the vcmps /
// vsels forms, so the mask needs no room beyond its bits.
#include <string>

#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen::vec {
namespace {

using target::Opcode;

constexpr int64_t kMaxMaskRepeat = 248;  // a multiple of 4 and 2: pieces end on 32-byte blocks

struct MaskRows {
  target::Opnd addr;
  int64_t stride = 0;  // bytes between mask rows
};

std::optional<target::CmpMode> CmpOf(const std::string& mode) {
  if (mode == "EQ") return target::CmpMode::kEq;
  if (mode == "NE") return target::CmpMode::kNe;
  if (mode == "LT") return target::CmpMode::kLt;
  if (mode == "LE") return target::CmpMode::kLe;
  if (mode == "GT") return target::CmpMode::kGt;
  if (mode == "GE") return target::CmpMode::kGe;
  return std::nullopt;
}

// The mask is counted in bytes whatever its element type (uint8 is TileLang's idiom; upstream
// also reuses a scratch tile of another type).
Result<MaskRows> MaskLayout(VecOp& v, const Tile& m, int64_t rows, int64_t cols) {
  const int64_t row_bytes = m.cols * m.es;
  const int64_t need = target::CeilDiv(cols, 8), slot = target::RoundUp(need, target::kBlockBytes);
  if (m.batch() == 1 && m.rows == rows && rows > 1) {
    if (row_bytes < need) {
      return v.Error(std::string(v.name()) + ": mask rows of " + std::to_string(row_bytes) +
                     " bytes cannot hold " + std::to_string(cols) + " bits (need " +
                     std::to_string(need) + ")");
    }
    return MaskRows{m.addr, m.pitch};
  }
  const int64_t total = m.batch() * m.rows * row_bytes;
  if (m.batch() != 1 || !m.dense() || total < (rows - 1) * slot + need) {
    return v.Error(std::string(v.name()) + ": the mask " + ShapeText(*m.region) +
                   " is too small for " + std::to_string(rows) + " x " + std::to_string(cols) +
                   " bits (give it " + std::to_string(rows) + " rows of " + std::to_string(need) +
                   " bytes, or one run of " + std::to_string((rows - 1) * slot + need) + " bytes)");
  }
  return MaskRows{m.addr, slot};
}

// One row of a compare (bits -> dst) or select (bits -> sel); src1 is unused by the scalar
// forms (vcmps, vsels), whose prototype carries the scalar.
struct Row {
  target::Opnd dst, src, src1, bits;
};

Status EmitRow(VecOp& v, const target::Instr& proto, const Row& row, int64_t cols, int es) {
  const bool is_cmp = proto.op == Opcode::kVcmp || proto.op == Opcode::kVcmps;
  const bool has_src1 = target::UsesField(proto.op, target::FieldId::src1);
  const int64_t epr = target::kRepeatBytes / es, full = cols / epr, tail = cols % epr;
  const int64_t rep = epr * es / target::kBlockBytes;
  auto piece = [&](int64_t first, int64_t repeat, int64_t mask) {
    target::Instr in = proto;
    const int64_t bytes = first * epr * es;
    in.src = Off(row.src, bytes);
    if (has_src1) {
      in.src1 = Off(row.src1, bytes);
      in.src1_blk = 1;
      in.src1_rep = rep;
    }
    (is_cmp ? in.dst : in.sel) = Off(row.bits, first * epr / 8);
    if (!is_cmp) {
      in.dst = Off(row.dst, bytes);
      in.dst_blk = 1;
      in.dst_rep = rep;
    }
    in.src_blk = 1;
    in.src_rep = rep;
    in.repeat = target::OpImm(repeat);
    in.mask = target::OpImm(mask);
    return v.Emit(in);
  };
  for (int64_t k = 0; k < full; k += kMaxMaskRepeat) {
    TILEJIT_RETURN_IF_ERROR(piece(k, std::min(kMaxMaskRepeat, full - k), epr));
  }
  return tail == 0 ? Status::Ok() : piece(full, 1, tail);
}

Status CheckRowLength(VecOp& v, int64_t cols, int es) {
  const int64_t epr = target::kRepeatBytes / es, full = cols / epr;
  if (cols % epr == 0 || full == 0 || (full * epr) % 256 == 0) return Status::Ok();
  return v.Error(std::string(v.name()) + " on rows of " + std::to_string(cols) + " elements of " +
                 std::to_string(es * 8) + "-bit type cannot be lowered: the mask bits of the " +
                 "partial last repeat would not start on a 32-byte block (use a row length that " +
                 "is a multiple of " + std::to_string(epr) + ", at most " + std::to_string(epr) +
                 ", or whose full repeats cover a multiple of 256 elements)");
}

// Runs `proto` over every row with src1 a tile, or a scalar: then `proto` becomes the scalar
// form `scalar_op` carrying it.
Status EmitRows(VecOp& v, target::Instr proto, Opcode scalar_op, const Tile& shape_of,
                const Tile* dst, const Tile& src, const Tile* src1, const ir::Expr* scalar,
                const MaskRows& mr) {
  TILEJIT_RETURN_IF_ERROR(CheckRowLength(v, shape_of.cols, src.es));
  if (scalar != nullptr) {
    proto.op = scalar_op;
    TILEJIT_ASSIGN_OR_RETURN(proto.scalar, v.ScalarBits(*scalar, src.dtype));
  }
  Row row;
  for (int64_t r = 0; r < shape_of.rows; ++r) {
    row.src = Off(src.addr, r * src.pitch);
    if (src1 != nullptr) row.src1 = Off(src1->addr, r * src1->pitch);
    if (dst != nullptr) row.dst = Off(dst->addr, r * dst->pitch);
    row.bits = Off(mr.addr, r * mr.stride);
    TILEJIT_RETURN_IF_ERROR(EmitRow(v, proto, row, shape_of.cols, src.es));
  }
  return Status::Ok();
}

// src1 of compare/select: a tile of the same shape and type as `like`, or a scalar.
Result<std::optional<Tile>> SecondSource(VecOp& v, size_t i, const Tile& like) {
  if (v.ScalarArg(i) != nullptr) return std::optional<Tile>();
  TILEJIT_ASSIGN_OR_RETURN(Tile t, v.TileArg(i, "second source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameShape(v, like, "first source", t, "second source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, like, "first source", t, "second source"));
  return std::optional<Tile>(t);
}

}  // namespace

Status EmitCompare(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile mask, v.TileArg(0, "mask"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "first source"));
  TILEJIT_ASSIGN_OR_RETURN(auto src1, SecondSource(v, 2, src));
  const std::string mode = v.StringAttr("mode");
  const auto cmp = CmpOf(mode);
  if (!cmp) return v.Error("compare: unknown mode \"" + mode + "\"");
  if (src.batch() != 1) return v.Error("compare works on 1-D or 2-D tiles");
  TILEJIT_ASSIGN_OR_RETURN(MaskRows mr, MaskLayout(v, mask, src.rows, src.cols));
  target::Instr in{.op = Opcode::kVcmp};
  in.dtype = src.dtype;
  in.cmp = *cmp;
  return EmitRows(v, in, Opcode::kVcmps, src, nullptr, src, src1 ? &*src1 : nullptr, v.ScalarArg(2),
                  mr);
}

Status EmitSelect(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile mask, v.TileArg(1, "mask"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(2, "first source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameShape(v, dst, "destination", src, "first source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src, "first source"));
  TILEJIT_ASSIGN_OR_RETURN(auto src1, SecondSource(v, 3, src));
  if (dst.batch() != 1) return v.Error("select works on 1-D or 2-D tiles");
  TILEJIT_ASSIGN_OR_RETURN(MaskRows mr, MaskLayout(v, mask, dst.rows, dst.cols));
  target::Instr in{.op = Opcode::kVsel};
  in.dtype = dst.dtype;
  return EmitRows(v, in, Opcode::kVsels, dst, &dst, src, src1 ? &*src1 : nullptr, v.ScalarArg(3),
                  mr);
}

}  // namespace tilejit::codegen::vec
