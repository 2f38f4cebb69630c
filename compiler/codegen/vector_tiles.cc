// SPDX-License-Identifier: Apache-2.0
// Whole-tile helpers shared by the op families: per-matrix emission, element prefixes (cast
// {count}), shape checks and the broadcast classification. The classification mirrors the
// frontend's shape rule (compiler/frontend/shape_rules.h) instead of linking the frontend:
// codegen also compiles Tile IR text that never went through it.
#include <string>

#include "compiler/codegen/vector_internal.h"

namespace tilejit::codegen::vec {
namespace {

std::vector<int64_t> LastTwo(const ir::Region& r) {
  std::vector<int64_t> e;
  for (const ir::Range& range : r.ranges) e.push_back(range.extent);
  size_t drop = 0;
  while (e.size() - drop > 2 && e[drop] == 1) ++drop;
  return std::vector<int64_t>(e.begin() + static_cast<std::ptrdiff_t>(drop), e.end());
}

RepeatArgs ArgsFor(const target::Instr& proto, const Tile& dst, const Tile* src, const Tile* src1,
                   size_t m) {
  RepeatArgs a{proto, {}, dst.rows, dst.cols};
  a.ops[kDst] = StreamOf(dst, m);
  if (src != nullptr) a.ops[kSrc] = StreamOf(*src, m);
  if (src1 != nullptr) a.ops[kSrc1] = StreamOf(*src1, m);
  return a;
}

}  // namespace

Status EmitTiles(VecOp& v, const target::Instr& proto, const Tile& dst, const Tile* src,
                 const Tile* src1) {
  for (size_t m = 0; m < dst.mats.size(); ++m) {
    TILEJIT_RETURN_IF_ERROR(EmitRepeat(v, ArgsFor(proto, dst, src, src1, m)));
  }
  return Status::Ok();
}

Status EmitPrefix(VecOp& v, const target::Instr& proto, const Tile& dst, const Tile& src,
                  int64_t count) {
  const int64_t per = dst.rows * dst.cols;
  const int64_t full = std::min<int64_t>(count / per, dst.batch());
  for (int64_t m = 0; m < full; ++m) {
    TILEJIT_RETURN_IF_ERROR(EmitRepeat(v, ArgsFor(proto, dst, &src, nullptr, m)));
  }
  const int64_t rem = count - full * per;
  if (rem <= 0 || full >= dst.batch()) return Status::Ok();
  RepeatArgs a = ArgsFor(proto, dst, &src, nullptr, static_cast<size_t>(full));
  a.rows = rem / dst.cols;
  TILEJIT_RETURN_IF_ERROR(EmitRepeat(v, a));
  for (auto& s : a.ops) {
    if (s) s->addr = Off(s->addr, a.rows * s->pitch);
  }
  a.cols = rem % dst.cols;
  a.rows = 1;
  return EmitRepeat(v, a);
}

std::string ShapeText(const ir::Region& r) { return ir::ShapeText(r.TrimmedShape()); }

target::Instr ConvertProto(target::DType from, target::DType to, target::RoundMode round) {
  target::Instr in{.op = target::Opcode::kVmov};
  in.dtype = from;
  if (from != to) {
    in.op = target::Opcode::kVcast;
    in.odtype = to;
    in.round = round;
  }
  return in;
}

Status CheckContiguous(VecOp& v, const Tile& t, std::string_view role) {
  if (t.dense() && t.batch() == 1) return Status::Ok();
  return v.Error(std::string(v.name()) + ": the " + std::string(role) +
                 " must be contiguous (whole rows of a UB tile, or rows that are a multiple of "
                 "32 bytes)");
}

Status CheckSameShape(VecOp& v, const Tile& a, std::string_view a_role, const Tile& b,
                      std::string_view b_role) {
  if (a.rows == b.rows && a.cols == b.cols && a.batch() == b.batch()) return Status::Ok();
  return v.Error(std::string(v.name()) + " shape mismatch: the " + std::string(a_role) + " is " +
                 ShapeText(*a.region) + " but the " + std::string(b_role) + " is " +
                 ShapeText(*b.region));
}

Status CheckSameType(VecOp& v, const Tile& a, std::string_view a_role, const Tile& b,
                     std::string_view b_role) {
  if (a.dtype == b.dtype) return Status::Ok();
  return v.Error(std::string(v.name()) + ": the " + std::string(a_role) + " is " +
                 std::string(ir::DTypeName(a.region->buffer->dtype)) + " but the " +
                 std::string(b_role) + " is " +
                 std::string(ir::DTypeName(b.region->buffer->dtype)) +
                 " (element types must match; convert with cast)");
}

std::optional<Bcast> ClassifyBroadcast(const Tile& dst, const Tile& src) {
  const std::vector<int64_t> d = dst.region->TrimmedShape(), s = src.region->TrimmedShape();
  if (d == s) return Bcast::kElementwise;
  if (d.size() != 2) return std::nullopt;
  const std::vector<int64_t> s2 = LastTwo(*src.region);
  if (s2.size() == 2 && s2[0] == 1 && s2[1] == d[1]) return Bcast::kPerColumn;
  if ((s.size() == 1 && s[0] == d[0]) || (s.size() == 2 && s[0] == d[0] && s[1] == 1)) {
    return Bcast::kPerRow;
  }
  return std::nullopt;
}

VecRef VecOf(const Tile& t) {
  if (t.rows == 1) return {t.addr, t.es};
  return {t.addr, t.pitch};
}

}  // namespace tilejit::codegen::vec
