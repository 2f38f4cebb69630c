// SPDX-License-Identifier: Apache-2.0
// Internal to the vector-op lowering (vector*.cc): resolved UB operands and the two
// instruction engines every vector op is built from.
//
//  - EmitRepeat: a repeat-form instruction (vadd, vexp, vcast, vdup, vmov, ...) applied to
//    an R x C matrix whose operands each have their own row pitch. Dense operands are one
//    flat run of 256-byte repeats; others go row-chunk-wise (repeat over rows with the
//    repeat stride = the row pitch in blocks, mask = the chunk width), so padding bytes at
//    the end of UB rows are never read or written. Everything past the ISA limits (255
//    repeats, 8-bit strides, mask <= elements per repeat) is split.
//  - Emit2d: a 2-D instruction (vbrow_*, vbcol_*, vbrcb, vrow_*, vcol_*) over an R x C
//    matrix plus a [R] or [C] vector, split at 255 rows and 65535 columns; reductions that
//    are split across their reduced axis chain through `acc` with a `barrier v` between
//    the dependent instructions.
//
// Addresses are Opnds (register + immediate); static offsets are folded into the immediate,
// so a lowering never needs scalar instructions of its own.
//
// Thread safety: as Emitter (one op lowering at a time per Emitter).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/status.h"
#include "compiler/codegen/emitter.h"
#include "compiler/ir/ir.h"
#include "compiler/target/isa.h"

namespace tilejit::codegen::vec {

// A UB region resolved for a vector instruction.
struct Tile {
  const ir::Region* region = nullptr;
  target::Opnd addr;  // element (0, 0) of the first matrix
  target::DType dtype = target::DType::kF32;
  int es = 4;        // element bytes
  int64_t rows = 1;  // matrix extents (RegionRef)
  int64_t cols = 1;
  int64_t pitch = 0;             // bytes between row starts
  std::vector<int64_t> mats{0};  // byte offset of each matrix of the region from `addr`

  // Rows follow each other without padding: the matrix is one contiguous run.
  bool dense() const { return rows == 1 || pitch == cols * es; }
  int64_t batch() const { return static_cast<int64_t>(mats.size()); }
};

// The most elements one count-field instruction covers: a multiple of 256 below the field's
// 65535, so every piece after the first still starts 32-byte aligned for any element size and
// any gather_mask period.
inline constexpr int64_t kMaxVectorCount = 65280;

// Opnd `o` moved by `bytes` (folded into the immediate).
inline target::Opnd Off(target::Opnd o, int64_t bytes) { return {o.reg, o.imm + bytes}; }

// The lowering of one tile op: argument access, diagnostics at the op, checked emission.
class VecOp {
 public:
  VecOp(Emitter& e, const ir::TileOpNode& op) : e_(e), op_(op) {}

  Emitter& e() { return e_; }
  const ir::TileOpNode& op() const { return op_; }
  std::string_view name() const { return ir::TileOpName(op_.op); }

  // Reports `msg` as an error at the op and returns the diagnostics' status.
  Status Error(const std::string& msg);
  // Argument i as a region / a scalar expression (nullptr when it is the other kind or
  // missing).
  const ir::Region* RegionArg(size_t i) const;
  const ir::Expr* ScalarArg(size_t i) const;
  // Argument i resolved as a UB tile (diagnostic when it is not a UB region).
  Result<Tile> TileArg(size_t i, std::string_view role);
  // An integer / string attribute, or `dflt` when absent.
  int64_t IntAttr(std::string_view key, int64_t dflt) const;
  bool BoolAttr(std::string_view key, bool dflt) const;
  std::string StringAttr(std::string_view key) const;

  // Validates `in` against the ISA rules (a user-visible diagnostic on failure, e.g. an
  // element type the instruction does not support) and emits it.
  Status Emit(const target::Instr& in);
  // `barrier v`: orders a dependent instruction behind the previous ones on the vector pipe.
  void Barrier();
  // The scalar operand of a vector-scalar instruction for elements of type `dtype`: fp32
  // bits for float types, an int32 otherwise.
  Result<target::Opnd> ScalarBits(const ir::Expr& value, target::DType dtype);
  // The UB address of the element a LoadNode reads, when the vector pipe can read it itself
  // (a UB element of type `dtype`); nullopt otherwise.
  Result<std::optional<target::Opnd>> UbElementAddress(const ir::Expr& value, target::DType dtype);

 private:
  Emitter& e_;
  const ir::TileOpNode& op_;
};

// The ISA element type of an IR dtype (nullopt when the ISA has none).
std::optional<target::DType> TargetDType(ir::DType t);

// ---- repeat form -------------------------------------------------------------------------

// One operand of a repeat-form instruction: element (r, c) at addr + r * pitch + c * es.
// pitch 0 repeats row 0 for every row (a [1, C] operand broadcast along the rows).
struct Stream {
  target::Opnd addr;
  int64_t pitch = 0;
  int es = 4;
};

enum Slot { kDst = 0, kSrc = 1, kSrc1 = 2 };

struct RepeatArgs {
  target::Instr proto;                       // opcode, dtypes, scalar/saddr/round set
  std::array<std::optional<Stream>, 3> ops;  // dst, src, src1 as the opcode uses them
  int64_t rows = 1;
  int64_t cols = 1;
};

// Emits `a.proto` over the a.rows x a.cols elements.
Status EmitRepeat(VecOp& v, const RepeatArgs& a);

// Streams of a tile's matrix m.
inline Stream StreamOf(const Tile& t, size_t m = 0) {
  return {Off(t.addr, t.mats[m]), t.pitch, t.es};
}

// ---- 2-D form ----------------------------------------------------------------------------

// The [R] or [C] operand of a 2-D instruction: element i at addr + i * stride.
struct VecRef {
  target::Opnd addr;
  int64_t stride = 4;
};

struct TwoDArgs {
  target::Instr proto;        // opcode, dtype, acc of the first instruction
  std::optional<Stream> dst;  // matrix destination (vb*), absent for reductions
  std::optional<Stream> src;  // matrix source (vb* except vbrcb, reductions)
  VecRef vec;                 // src1 of vb*, dst of reductions
  bool per_row = true;        // vec is indexed by row (else by column)
  bool reduce = false;        // vec is the destination, combined across splits
  int64_t rows = 1;
  int64_t cols = 1;
};

Status Emit2d(VecOp& v, const TwoDArgs& a);

// Emits `proto` once per matrix of `dst` over its rows x cols, with `src` / `src1` (same
// geometry) as the sources the opcode reads.
Status EmitTiles(VecOp& v, const target::Instr& proto, const Tile& dst, const Tile* src,
                 const Tile* src1);
// Emits `proto` over the first `count` elements (row-major over the matrices) of dst / src.
Status EmitPrefix(VecOp& v, const target::Instr& proto, const Tile& dst, const Tile& src,
                  int64_t count);

// The instruction converting `from` to `to` elements: vcast rounding by `round`, or vmov when
// the types are equal (a same-type conversion is a copy).
target::Instr ConvertProto(target::DType from, target::DType to, target::RoundMode round);

// The elements of all of a tile's matrices.
inline int64_t Elements(const Tile& t) { return t.batch() * t.rows * t.cols; }
// A diagnostic unless `t` is one contiguous run (one matrix whose rows have no padding), as
// the instructions that address an operand from its first element need.
Status CheckContiguous(VecOp& v, const Tile& t, std::string_view role);

// Shapes: the region's extents with leading unit dims dropped, as "[128, 64]".
std::string ShapeText(const ir::Region& r);
// A diagnostic unless `a` and `b` have the same matrix geometry and batch.
Status CheckSameShape(VecOp& v, const Tile& a, std::string_view a_role, const Tile& b,
                      std::string_view b_role);
// A diagnostic unless `a` and `b` have the same element type.
Status CheckSameType(VecOp& v, const Tile& a, std::string_view a_role, const Tile& b,
                     std::string_view b_role);

// How the second operand of a binary op (or the source of broadcast) combines with an
// [R, C] destination: the rule of compiler/frontend/shape_rules.h (BinaryBroadcast),
// applied to resolved tiles.
enum class Bcast : uint8_t { kElementwise, kPerRow, kPerColumn };
std::optional<Bcast> ClassifyBroadcast(const Tile& dst, const Tile& src);
// The [R] / [C] vector view of a broadcast operand (an [R, 1] tile has one element per row).
VecRef VecOf(const Tile& t);

// ---- op families (one file each) ---------------------------------------------------------

Status EmitFill(VecOp& v);
Status EmitBinary(VecOp& v);  // the kBinary ops, every operand form each has
Status EmitUnary(VecOp& v);   // the kUnary ops
Status EmitAxpy(VecOp& v);
Status EmitCast(VecOp& v);
Status EmitBroadcast(VecOp& v);
Status EmitReduce(VecOp& v);
Status EmitCompare(VecOp& v);
Status EmitSelect(VecOp& v);
Status EmitTranspose(VecOp& v);
Status EmitGather(VecOp& v);
Status EmitIndex(VecOp& v);
Status EmitGatherMask(VecOp& v);  // vector_gather_mask.cc
Status EmitSort(VecOp& v);        // vector_sort.cc: sort32, merge_sort, sort, topk
Status EmitRawReduce(VecOp& v);   // vector_raw.cc: block_reduce_*, wholereduce*
Status EmitGatherB(VecOp& v);     // vector_raw.cc
Status EmitDeqScale(VecOp& v);    // vector_elementwise.cc: set_deq_scale

}  // namespace tilejit::codegen::vec
