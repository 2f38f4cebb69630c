// SPDX-License-Identifier: Apache-2.0
// The sort family on vsort32 and vmrgsort (docs/isa.md, "Sorting"):
//  - sort32(dst, values, indices): one vsort32 per 255 groups of 32;
//  - merge_sort(dst, s0, s1 [, s2 [, s3]]): f32 (value, index) pair lists, merged two at a
//    time (3 ways: s0+s1 into the scratch, then with s2; 4 ways: s0+s1 and s2+s3 into the
//    scratch, then the two);
//  - sort(dst, src) {count} and topk(dst, src) {count, k}: the first `count` elements as f32
//    in the scratch over -inf up to N = count rounded up to 32, float indices 0..N-1
//    beside them, vsort32 into 32-proposal lists, a merge tree of pairwise vmrgsorts
//    ping-ponging between two scratch lists, and the first 2 * N (sort) or 2 * k (topk)
//    floats of the result copied (fp32) or cast (fp16) into dst: (value, index) pairs in
//    descending order, the index as a float value.
// Why float indices: vsort32 moves index bits unchanged, so indices made as float values
// read back as float values in the pairs, which is what TileLang's sort and topk return.
// Why pairwise merges: a 2-list vmrgsort keeps the ISA small; the hardware's 4-list merge
// would take fewer passes over the data (docs/isa.md says so with the timing).
#include <algorithm>
#include <bit>
#include <limits>
#include <utility>

#include "compiler/codegen/vector_internal.h"
#include "compiler/target/tile_layout.h"

namespace tilejit::codegen::vec {
namespace {

using target::DType;
using target::kProposalBytes;
using target::kSortGroup;
using target::Opcode;
using target::Opnd;

constexpr int64_t kMaxGroups = 255;  // vsort32's repeat field

// n contiguous elements of type d at addr, as a one-row tile.
Tile Flat(Opnd addr, DType d, int64_t n) {
  Tile t;
  t.addr = addr;
  t.dtype = d;
  t.es = target::DTypeBytes(d);
  t.cols = n;
  t.pitch = n * t.es;
  return t;
}

Status NeedRoom(VecOp& v, const Tile& t, std::string_view role, int64_t want) {
  if (Elements(t) >= want) return Status::Ok();
  return v.Error(std::string(v.name()) + ": the " + std::string(role) + " holds " +
                 std::to_string(Elements(t)) + " elements but " + std::to_string(want) +
                 " are written");
}

// dst[0, n) = src[0, n), converted with round-to-nearest-even when the types differ.
Status Move(VecOp& v, const Tile& dst, const Tile& src, int64_t n) {
  return EmitTiles(v, ConvertProto(src.dtype, dst.dtype, target::RoundMode::kRint),
                   Flat(dst.addr, dst.dtype, n), &src, nullptr);
}

Status Sort32(VecOp& v, Opnd dst, Opnd values, Opnd indices, DType d, int64_t n) {
  target::Instr in{.op = Opcode::kVsort32};
  in.dtype = d;
  const int64_t es = target::DTypeBytes(d);
  for (int64_t g = 0; g < n / kSortGroup; g += kMaxGroups) {
    const int64_t groups = std::min(kMaxGroups, n / kSortGroup - g), at = g * kSortGroup;
    in.dst = Off(dst, at * kProposalBytes);
    in.src = Off(values, at * es);
    in.src1 = Off(indices, at * 4);
    in.repeat = target::OpImm(groups);
    TILEJIT_RETURN_IF_ERROR(v.Emit(in));
  }
  return Status::Ok();
}

Status Merge(VecOp& v, Opnd dst, Opnd a, int64_t na, Opnd b, int64_t nb) {
  target::Instr in{.op = Opcode::kVmrgsort};
  in.dtype = DType::kF32;
  in.dst = dst;
  in.src = a;
  in.src1 = b;
  in.count = target::OpImm(na);
  in.count1 = target::OpImm(nb);
  return v.Emit(in);
}

// n proposals at `from` sorted in lists of kSortGroup (the last may be shorter), merged level
// by level between `from` and `to`. Returns where the sorted list ends up.
Result<Opnd> MergeTree(VecOp& v, Opnd from, Opnd to, int64_t n) {
  for (int64_t len = kSortGroup; len < n; len *= 2) {
    for (int64_t at = 0; at < n; at += 2 * len) {
      const int64_t na = std::min(len, n - at), nb = std::min(len, n - at - na);
      const int64_t byte = at * kProposalBytes;
      if (nb == 0) {
        const Tile rest = Flat(Off(from, byte), DType::kF32, 2 * na);
        TILEJIT_RETURN_IF_ERROR(Move(v, Flat(Off(to, byte), DType::kF32, 2 * na), rest, 2 * na));
      } else {
        TILEJIT_RETURN_IF_ERROR(Merge(v, Off(to, byte), Off(from, byte), na,
                                      Off(from, byte + na * kProposalBytes), nb));
      }
    }
    v.Barrier();
    std::swap(from, to);
  }
  return from;
}

Status EmitSort32(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile values, v.TileArg(1, "values"));
  TILEJIT_ASSIGN_OR_RETURN(Tile indices, v.TileArg(2, "indices"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", values, "values"));
  for (const auto& [t, role] : {std::pair{&dst, "destination"}, std::pair{&values, "values"},
                                std::pair{&indices, "indices"}}) {
    TILEJIT_RETURN_IF_ERROR(CheckContiguous(v, *t, role));
  }
  const int64_t n = Elements(values);
  if (n % kSortGroup != 0) {
    return v.Error("sort32 sorts groups of 32 elements; the values hold " + std::to_string(n));
  }
  if (indices.es != 4) return v.Error("sort32: the indices must be a 32-bit type (uint32)");
  TILEJIT_RETURN_IF_ERROR(NeedRoom(v, indices, "indices", n));
  TILEJIT_RETURN_IF_ERROR(NeedRoom(v, dst, "destination", n * kProposalBytes / dst.es));
  return Sort32(v, dst.addr, values.addr, indices.addr, values.dtype, n);
}

Status EmitMergeSort(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  const size_t ways = ir::SortSources(v.op());
  std::vector<Tile> src;
  int64_t total = 0;
  for (size_t i = 1; i <= ways; ++i) {
    TILEJIT_ASSIGN_OR_RETURN(Tile s, v.TileArg(i, "source " + std::to_string(i - 1)));
    TILEJIT_RETURN_IF_ERROR(CheckContiguous(v, s, "source " + std::to_string(i - 1)));
    if (s.dtype != DType::kF32 || Elements(s) % 2 != 0) {
      return v.Error("merge_sort merges float32 (value, index) pair lists; source " +
                     std::to_string(i - 1) + " is not one");
    }
    total += Elements(s) / 2;
    src.push_back(s);
  }
  if (dst.dtype != DType::kF32) return v.Error("merge_sort: the destination must be float32");
  TILEJIT_RETURN_IF_ERROR(CheckContiguous(v, dst, "destination"));
  TILEJIT_RETURN_IF_ERROR(NeedRoom(v, dst, "destination", 2 * total));
  auto len = [&](size_t i) { return Elements(src[i]) / 2; };
  if (ways == 2) return Merge(v, dst.addr, src[0].addr, len(0), src[1].addr, len(1));
  TILEJIT_ASSIGN_OR_RETURN(Tile x, v.TileArg(ways + 1, "scratch"));
  TILEJIT_RETURN_IF_ERROR(NeedRoom(v, x, "scratch", ir::SortScratchElements(v.op())));
  const int64_t l01 = len(0) + len(1);
  TILEJIT_RETURN_IF_ERROR(Merge(v, x.addr, src[0].addr, len(0), src[1].addr, len(1)));
  if (ways == 3) {
    v.Barrier();
    return Merge(v, dst.addr, x.addr, l01, src[2].addr, len(2));
  }
  const Opnd x1 = Off(x.addr, target::RoundUp(l01 * kProposalBytes, target::kBlockBytes));
  TILEJIT_RETURN_IF_ERROR(Merge(v, x1, src[2].addr, len(2), src[3].addr, len(3)));
  v.Barrier();
  return Merge(v, dst.addr, x.addr, l01, x1, len(2) + len(3));
}

Status EmitFullSort(VecOp& v) {
  TILEJIT_ASSIGN_OR_RETURN(Tile dst, v.TileArg(0, "destination"));
  TILEJIT_ASSIGN_OR_RETURN(Tile src, v.TileArg(1, "source"));
  TILEJIT_RETURN_IF_ERROR(CheckSameType(v, dst, "destination", src, "source"));
  if (src.dtype != DType::kF32 && src.dtype != DType::kF16) {
    return v.Error(std::string(v.name()) + " sorts float16 or float32 values");
  }
  const int64_t n = v.IntAttr("count", 0), big_n = target::RoundUp(n, kSortGroup);
  if (n < 1 || n > Elements(src)) {
    return v.Error(std::string(v.name()) + ": actual_num " + std::to_string(n) + " is outside 1.." +
                   std::to_string(Elements(src)));
  }
  if (n > src.cols) TILEJIT_RETURN_IF_ERROR(CheckContiguous(v, src, "source"));
  const bool topk = v.op().op == ir::TileOpCode::kTopK;
  const int64_t out = topk ? 2 * v.IntAttr("k", 0) : 2 * big_n;
  if (topk && (out < 2 || out > 2 * big_n)) {
    return v.Error("topk: K " + std::to_string(out / 2) + " is outside 1.." +
                   std::to_string(big_n));
  }
  if (out > dst.cols) TILEJIT_RETURN_IF_ERROR(CheckContiguous(v, dst, "destination"));
  TILEJIT_RETURN_IF_ERROR(NeedRoom(v, dst, "destination", out));
  TILEJIT_ASSIGN_OR_RETURN(Tile x, v.TileArg(2, "scratch"));
  TILEJIT_RETURN_IF_ERROR(NeedRoom(v, x, "scratch", ir::SortScratchElements(v.op())));
  const Opnd values = x.addr, indices = Off(x.addr, big_n * 4);
  const Opnd a = Off(x.addr, 2 * big_n * 4), b = Off(x.addr, 4 * big_n * 4);
  if (big_n > n) {  // -inf under the whole list first: the tail need not be block-aligned
    target::Instr pad{.op = Opcode::kVdup};
    pad.dtype = DType::kF32;
    pad.scalar = target::OpImm(std::bit_cast<uint32_t>(-std::numeric_limits<float>::infinity()));
    TILEJIT_RETURN_IF_ERROR(EmitTiles(v, pad, Flat(values, DType::kF32, big_n), nullptr, nullptr));
    v.Barrier();
  }
  TILEJIT_RETURN_IF_ERROR(Move(v, Flat(values, DType::kF32, n), src, n));
  target::Instr index{.op = Opcode::kVindex};
  index.dtype = DType::kF32;
  index.dst = indices;
  index.scalar = target::OpImm(0);
  index.repeat = target::OpImm(1);
  index.count = target::OpImm(big_n);
  TILEJIT_RETURN_IF_ERROR(v.Emit(index));
  v.Barrier();
  TILEJIT_RETURN_IF_ERROR(Sort32(v, a, values, indices, DType::kF32, big_n));
  v.Barrier();
  TILEJIT_ASSIGN_OR_RETURN(Opnd sorted, MergeTree(v, a, b, big_n));
  return Move(v, dst, Flat(sorted, DType::kF32, out), out);
}

}  // namespace

Status EmitSort(VecOp& v) {
  switch (v.op().op) {
    case ir::TileOpCode::kSort32:
      return EmitSort32(v);
    case ir::TileOpCode::kMergeSort:
      return EmitMergeSort(v);
    default:
      return EmitFullSort(v);
  }
}

}  // namespace tilejit::codegen::vec
