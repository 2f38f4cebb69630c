// SPDX-License-Identifier: Apache-2.0
// Tile IR: the compiler's one intermediate representation, from the tracer to codegen.
//
// The IR is functional: nodes are immutable after construction and shared through
// std::shared_ptr<const ...>; a pass takes a Kernel and returns a new Kernel, rebuilding only
// the nodes it changes (see ir/mutator.h). Identity matters for Vars and Buffers: two uses
// refer to the same variable or buffer exactly when they hold the same node pointer. Names
// are hints for humans and diagnostics only; the canonical printer (ir/printer.h) assigns
// deterministic names, so the printed text (and the IR hash) does not depend on them.
//
// Every node carries the SourceLoc of the user code it came from (an unknown loc for nodes a
// pass invents with no user origin).
//
// Thread safety: immutable nodes may be read from any number of threads.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/check.h"
#include "common/source_loc.h"
#include "compiler/target/element_type.h"
#include "compiler/target/pipe.h"

namespace tilejit::ir {

using target::Pipe;

// ---------------------------------------------------------------------------------------------
// Types

// The element type of values and buffers: the target's one element-type enum
// (compiler/target/element_type.h), under the IR's spellings.
using DType = target::ElementType;
inline std::string_view DTypeName(DType t) { return target::ElementTypeName(t); }
// Accepts the canonical names plus TileLang's aliases ("float" = float32, "half" = float16).
std::optional<DType> ParseDType(std::string_view name);
inline int DTypeBits(DType t) { return target::ElementTypeBits(t); }
inline int DTypeBytes(DType t) { return target::ElementTypeBytes(t); }
inline bool IsFloat(DType t) { return target::IsFloatElement(t); }
inline bool IsInt(DType t) { return target::IsIntElement(t); }  // signed or unsigned, not bool

// Where a buffer lives. kShared and kFragment are Developer-mode scopes that
// infer_buffer_scope resolves; every later pass sees only hardware scopes.
enum class MemScope : uint8_t {
  kGM,        // kernel parameters and workspaces
  kShared,    // T.alloc_shared, unresolved (-> L1 or UB)
  kFragment,  // T.alloc_fragment, unresolved (-> L0A/L0B/L0C)
  kL1,
  kL0A,
  kL0B,
  kL0C,
  kUB,
  kLocalVar,  // T.alloc_var: a scalar in a register
};

std::string_view MemScopeName(MemScope s);  // "gm", "shared", "fragment", "l1", ..., "var"
std::optional<MemScope> ParseMemScope(std::string_view name);

// ---------------------------------------------------------------------------------------------
// Variables and buffers (identity by pointer)

struct VarNode {
  std::string name;  // hint only
  DType dtype = DType::kInt32;
  SourceLoc loc;
};
using Var = std::shared_ptr<const VarNode>;
Var MakeVar(std::string name, DType dtype, SourceLoc loc = {});

struct ExprNode;
using Expr = std::shared_ptr<const ExprNode>;

// How a GM parameter is used; on-chip buffers are kLocal.
enum class BufferRole : uint8_t { kLocal, kInput, kOutput, kWorkspace };

// The shape entry of a dim whose extent is a symbol, known only at launch.
inline constexpr int64_t kSymbolicDim = -1;

struct BufferNode {
  std::string name;  // hint only
  // Extents. A GM parameter's dim may be a kernel symbol (T.symbolic): then shape[d] is
  // kSymbolicDim and dim_symbols[d] the symbol's var; otherwise dim_symbols is empty or its
  // entry null. On-chip buffers are always static.
  std::vector<int64_t> shape;
  std::vector<Var> dim_symbols;
  DType dtype = DType::kFloat32;
  MemScope scope = MemScope::kGM;
  BufferRole role = BufferRole::kLocal;
  std::optional<int64_t> address;  // byte offset in its memory, once placed or annotated
  // A GM workspace the compiler added (role kWorkspace): shape [grid, ...], block b owns
  // index b of the leading dim; the runner allocates and zeroes it. Printed as the role
  // `compiler_workspace`. On chip: gemm_v0's L0 scratch (expand_composites), every one of a
  // memory placed at the same offset; printed as `compiler_scratch`.
  bool compiler_made = false;
  SourceLoc loc;

  bool has_symbolic_dims() const;
  // The symbol of dim d, or null when the dim is static.
  const Var& DimSymbol(size_t d) const;
  int64_t num_elements() const;  // TILEJIT_CHECKs that every dim is static
  int64_t size_bytes() const { return num_elements() * DTypeBytes(dtype); }
};
using Buffer = std::shared_ptr<const BufferNode>;
Buffer MakeBuffer(BufferNode node);

// ---------------------------------------------------------------------------------------------
// Scalar expressions: index arithmetic, conditions and scalar values.

enum class ExprKind : uint8_t {
  kIntImm,
  kFloatImm,
  kVarRef,
  kBinary,
  kUnary,
  kSelect,
  kLoad,
  kCall
};

enum class BinaryOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,       // true division (floats)
  kFloorDiv,  // Python //
  kFloorMod,  // Python %
  kMin,
  kMax,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
  kBitAnd,  // integers only, like the shifts
  kBitOr,
  kBitXor,
  kShl,  // the result has the left operand's type
  kShr,  // arithmetic for signed types, logical for unsigned
};
std::string_view BinaryOpName(BinaryOp op);  // "+", "-", "*", "/", "//", "%", "min", ...

enum class UnaryOp : uint8_t { kNeg, kNot, kBitNot };

struct ExprNode {
  ExprKind kind;
  DType dtype;
  SourceLoc loc;

 protected:
  ExprNode(ExprKind k, DType t, SourceLoc l) : kind(k), dtype(t), loc(l) {}
};

struct IntImmNode : ExprNode {
  static constexpr ExprKind kKinds[] = {ExprKind::kIntImm};
  int64_t value;
  IntImmNode(int64_t v, DType t, SourceLoc l) : ExprNode(ExprKind::kIntImm, t, l), value(v) {}
};

struct FloatImmNode : ExprNode {
  static constexpr ExprKind kKinds[] = {ExprKind::kFloatImm};
  double value;  // may be +-inf (T.infinity)
  FloatImmNode(double v, DType t, SourceLoc l) : ExprNode(ExprKind::kFloatImm, t, l), value(v) {}
};

struct VarRefNode : ExprNode {
  static constexpr ExprKind kKinds[] = {ExprKind::kVarRef};
  Var var;
  VarRefNode(Var v, SourceLoc l) : ExprNode(ExprKind::kVarRef, v->dtype, l), var(std::move(v)) {}
};

struct BinaryNode : ExprNode {
  static constexpr ExprKind kKinds[] = {ExprKind::kBinary};
  BinaryOp op;
  Expr a, b;
  BinaryNode(BinaryOp o, Expr x, Expr y, DType t, SourceLoc l)
      : ExprNode(ExprKind::kBinary, t, l), op(o), a(std::move(x)), b(std::move(y)) {}
};

struct UnaryNode : ExprNode {
  static constexpr ExprKind kKinds[] = {ExprKind::kUnary};
  UnaryOp op;
  Expr a;
  UnaryNode(UnaryOp o, Expr x, DType t, SourceLoc l)
      : ExprNode(ExprKind::kUnary, t, l), op(o), a(std::move(x)) {}
};

// T.if_then_else(cond, t, f)
struct SelectNode : ExprNode {
  static constexpr ExprKind kKinds[] = {ExprKind::kSelect};
  Expr cond, t, f;
  SelectNode(Expr c, Expr x, Expr y, DType ty, SourceLoc l)
      : ExprNode(ExprKind::kSelect, ty, l), cond(std::move(c)), t(std::move(x)), f(std::move(y)) {}
};

// A scalar read of one buffer element (`m_i[h]`, an alloc_var, a GM scalar).
struct LoadNode : ExprNode {
  static constexpr ExprKind kKinds[] = {ExprKind::kLoad};
  Buffer buffer;
  std::vector<Expr> indices;
  LoadNode(Buffer b, std::vector<Expr> idx, SourceLoc l)
      : ExprNode(ExprKind::kLoad, b->dtype, l), buffer(std::move(b)), indices(std::move(idx)) {}
};

// Scalar intrinsics: "cast" (to dtype), "exp", "log", "sqrt", "rsqrt", "abs".
struct CallNode : ExprNode {
  static constexpr ExprKind kKinds[] = {ExprKind::kCall};
  std::string op;
  std::vector<Expr> args;
  CallNode(std::string o, std::vector<Expr> a, DType t, SourceLoc l)
      : ExprNode(ExprKind::kCall, t, l), op(std::move(o)), args(std::move(a)) {}
};

// Downcast with a kind check (an internal error if the kind does not match). Each node type
// lists the kinds it represents in kKinds.
template <typename T>
const T& As(const Expr& e) {
  TILEJIT_CHECK(e != nullptr) << "As<> on a null expression";
  bool match = false;
  for (auto k : T::kKinds) match = match || k == e->kind;
  TILEJIT_CHECK(match) << "expression kind mismatch in As<>";
  return static_cast<const T&>(*e);
}
template <typename T>
const T* TryAs(const Expr& e) {
  if (e == nullptr) return nullptr;
  for (auto k : T::kKinds)
    if (k == e->kind) return static_cast<const T*>(e.get());
  return nullptr;
}

// Builders. Binary builders compute the result dtype (comparisons and logic give kBool; int op
// int gives the wider int; any float gives float32 unless both are the same float type).
Expr IntImm(int64_t v, DType t = DType::kInt32, SourceLoc loc = {});
Expr FloatImm(double v, DType t = DType::kFloat32, SourceLoc loc = {});
Expr BoolImm(bool v, SourceLoc loc = {});
Expr Ref(const Var& v, SourceLoc loc = {});
Expr Binary(BinaryOp op, Expr a, Expr b, SourceLoc loc = {});
Expr Unary(UnaryOp op, Expr a, SourceLoc loc = {});
Expr Select(Expr cond, Expr t, Expr f, SourceLoc loc = {});
Expr Load(Buffer b, std::vector<Expr> indices, SourceLoc loc = {});
Expr Call(std::string op, std::vector<Expr> args, DType t, SourceLoc loc = {});

// The value of a constant integer (or bool) expression, if it is one.
std::optional<int64_t> AsConstInt(const Expr& e);

// Bounds of an integer expression from its constants alone (any variable is unbounded):
// enough to see that a trip count like `cid % 2 + 1` is at least 1 (Python's % by a positive
// constant is never negative). A comparison (<, <=, >, >=) is [1, 1] when its operands' bounds
// make it true, [0, 0] when they make it false, else [0, 1]. Unset: not known.
struct IntBounds {
  std::optional<int64_t> lo, hi;
};
IntBounds IntBoundsOf(const Expr& e);

// ---------------------------------------------------------------------------------------------
// Regions: a rectangular part of a buffer (`A[r0:r0+32, c0:c0+64]`). Mins may be runtime
// expressions; extents are static. A whole buffer is the region with zero mins and its shape.

struct Range {
  Expr min;
  int64_t extent = 1;
};

struct Region {
  Buffer buffer;
  std::vector<Range> ranges;  // one per buffer dimension
  SourceLoc loc;

  // Extents with leading unit dims dropped (`x[i, :]` of an [R, C] buffer is [C]); the shape
  // rule for tile-op operands.
  std::vector<int64_t> TrimmedShape() const;
  bool has_symbolic_dims() const;
  // The symbol of dim d, or null when the dim is static.
  const Var& DimSymbol(size_t d) const;
  int64_t num_elements() const;  // TILEJIT_CHECKs that every dim is static
};
Region WholeBuffer(const Buffer& b, SourceLoc loc = {});
// A shape as diagnostics print it: "[128, 64]".
std::string ShapeText(const std::vector<int64_t>& shape);

// ---------------------------------------------------------------------------------------------
// Tile operations: copies, cube and vector work on regions. The op list is an X-macro so the
// printer, parser, verifier and codegen share one table. Each op belongs to a family: ops of
// one family take the same operands and attributes and are traced, verified and generated by
// the same code, so a new op of an existing family is one row here (docs/adding_an_operation.md).

enum class TileOpFamily : uint8_t {
  kCopy,        // [dst, src] between memories
  kCube,        // [C, A, B] on the cube unit
  kFill,        // [dst, value]
  kBinary,      // [dst, src0, src1 region or scalar], element-wise
  kUnary,       // [dst, src], element-wise
  kCast,        // [dst, src] with a dtype change
  kBroadcast,   // [dst, src] row or column expansion
  kCompare,     // [mask, src0, src1 region or scalar]
  kSelect,      // [dst, mask, src0, src1 region or scalar]
  kAxpy,        // [dst, src, scalar]: dst += scalar * src
  kReduce,      // [dst, src] along one dim
  kTranspose,   // [dst, src]: a 2-D [C, R] destination of an [R, C] source
  kGather,      // [dst, src, offsets, base]: dst[i] = src element at byte offsets[i] + base
  kIndex,       // [dst, first]: dst[i] = first + i over the region in row-major order
  kGatherMask,  // [dst, src] {mode}: the elements of src a fixed pattern picks, packed into dst
  kSort,        // [dst, sources..., scratch?]: (value, index) proposals sorted descending
  kRawReduce,   // [dst, src] {repeat, mask, dst_rep, src_blk, src_rep, order?}: AscendC's
                // BlockReduce* / WholeReduce* in their raw repeat form
  kGatherB,     // [dst, src, offsets] {repeat, dst_blk, dst_rep}: 32-byte blocks by byte offset
  kDeqScale,    // [scale]: sets the scale of later int32 -> float16 casts (no destination)
  kDebug,       // device printing, no destination: printf [args...] {format};
                // dump_tensor [src] {count, desc, shape}
};

#define TILEJIT_TILE_OPS(X)                          \
  X(kCopy, "copy", kCopy)                            \
  X(kGemmV0, "gemm_v0", kCube)                       \
  X(kMma, "mma", kCube)                              \
  X(kFill, "fill", kFill)                            \
  X(kAdd, "add", kBinary)                            \
  X(kSub, "sub", kBinary)                            \
  X(kMul, "mul", kBinary)                            \
  X(kDiv, "div", kBinary)                            \
  X(kMax, "max", kBinary)                            \
  X(kMin, "min", kBinary)                            \
  X(kExp, "exp", kUnary)                             \
  X(kLn, "ln", kUnary)                               \
  X(kSqrt, "sqrt", kUnary)                           \
  X(kRsqrt, "rsqrt", kUnary)                         \
  X(kReciprocal, "reciprocal", kUnary)               \
  X(kAbs, "abs", kUnary)                             \
  X(kRelu, "relu", kUnary)                           \
  X(kSigmoid, "sigmoid", kUnary)                     \
  X(kCast, "cast", kCast)                            \
  X(kBroadcast, "broadcast", kBroadcast)             \
  X(kCompare, "compare", kCompare)                   \
  X(kSelect, "select", kSelect)                      \
  X(kAxpy, "axpy", kAxpy)                            \
  X(kReduceSum, "reduce_sum", kReduce)               \
  X(kReduceMax, "reduce_max", kReduce)               \
  X(kReduceMin, "reduce_min", kReduce)               \
  X(kBitwiseAnd, "bitwise_and", kBinary)             \
  X(kBitwiseOr, "bitwise_or", kBinary)               \
  X(kBitwiseXor, "bitwise_xor", kBinary)             \
  X(kShiftLeft, "bitwise_lshift", kBinary)           \
  X(kShiftRight, "bitwise_rshift", kBinary)          \
  X(kPow, "pow", kBinary)                            \
  X(kLeakyRelu, "leaky_relu", kBinary)               \
  X(kBitwiseNot, "bitwise_not", kUnary)              \
  X(kSilu, "silu", kUnary)                           \
  X(kSin, "sin", kUnary)                             \
  X(kCos, "cos", kUnary)                             \
  X(kRound, "round", kUnary)                         \
  X(kTranspose, "transpose", kTranspose)             \
  X(kGather, "gather", kGather)                      \
  X(kCreateVecIndex, "createvecindex", kIndex)       \
  X(kGatherMask, "gather_mask", kGatherMask)         \
  X(kMulAddDst, "mul_add_dst", kBinary)              \
  X(kSort32, "sort32", kSort)                        \
  X(kMergeSort, "merge_sort", kSort)                 \
  X(kSort, "sort", kSort)                            \
  X(kTopK, "topk", kSort)                            \
  X(kBlockReduceSum, "block_reduce_sum", kRawReduce) \
  X(kBlockReduceMax, "block_reduce_max", kRawReduce) \
  X(kBlockReduceMin, "block_reduce_min", kRawReduce) \
  X(kWholeReduceSum, "wholereducesum", kRawReduce)   \
  X(kWholeReduceMax, "wholereducemax", kRawReduce)   \
  X(kWholeReduceMin, "wholereducemin", kRawReduce)   \
  X(kGatherB, "gatherb", kGatherB)                   \
  X(kSetDeqScale, "set_deq_scale", kDeqScale)        \
  X(kPrintf, "printf", kDebug)                       \
  X(kDumpTensor, "dump_tensor", kDebug)

enum class TileOpCode : uint8_t {
#define TILEJIT_X(e, s, f) e,
  TILEJIT_TILE_OPS(TILEJIT_X)
#undef TILEJIT_X
};
std::string_view TileOpName(TileOpCode op);
TileOpFamily TileOpFamilyOf(TileOpCode op);
std::optional<TileOpCode> ParseTileOp(std::string_view name);

// An operand: a region, or a scalar expression (an immediate, a runtime scalar, or a LoadNode
// for the "scalar read from a buffer element" form, which the vector instruction reads itself).
using Operand = std::variant<Region, Expr>;

// Keyword attributes of a tile op, e.g. copy{transpose, enable_relu, pad_value},
// gemm_v0{transpose_A, transpose_B, init}, reduce{dim, clear}, cast{mode}, compare{mode}.
using AttrValue = std::variant<int64_t, double, bool, std::string, Expr>;
struct Attr {
  std::string key;
  AttrValue value;
};

// ---------------------------------------------------------------------------------------------
// Statements

enum class StmtKind : uint8_t {
  kSeq,
  kKernel,    // T.Kernel launch (the root of a kernel body)
  kAllocate,  // declares an on-chip buffer (lives to the end of its enclosing kernel)
  kFor,
  kIf,
  kLet,    // immutable binding of a scalar var over `body`
  kStore,  // scalar store to one buffer element
  kTileOp,
  kBarrier,  // pipe_barrier(pipe) / barrier_all (pipe == kAll)
  kSetFlag,
  kWaitFlag,
  kSetCrossFlag,
  kWaitCrossFlag,
  kCoreScope,  // T.Scope("C"|"V")
};

struct StmtNode;
using Stmt = std::shared_ptr<const StmtNode>;

struct StmtNode {
  StmtKind kind;
  SourceLoc loc;

 protected:
  StmtNode(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
};

struct SeqNode : StmtNode {
  static constexpr StmtKind kKinds[] = {StmtKind::kSeq};
  std::vector<Stmt> stmts;
  SeqNode(std::vector<Stmt> s, SourceLoc l) : StmtNode(StmtKind::kSeq, l), stmts(std::move(s)) {}
};

// with T.Kernel(grid, [threads=N,] is_npu=True) as (cid, vid) | (cid)
struct KernelNode : StmtNode {
  static constexpr StmtKind kKinds[] = {StmtKind::kKernel};
  Expr grid;    // number of logical blocks
  int threads;  // 0: the (cid, vid) form (1:2, author splits by vid); 1 or 2: threads=N form
  Var cid;      // block index, int32
  Var vid;      // vector sub-core index 0/1 (hidden in the threads=N form; never null)
  Stmt body;
  KernelNode(Expr g, int t, Var c, Var v, Stmt b, SourceLoc l)
      : StmtNode(StmtKind::kKernel, l),
        grid(std::move(g)),
        threads(t),
        cid(std::move(c)),
        vid(std::move(v)),
        body(std::move(b)) {}
};

struct AllocateNode : StmtNode {
  static constexpr StmtKind kKinds[] = {StmtKind::kAllocate};
  Buffer buffer;
  AllocateNode(Buffer b, SourceLoc l) : StmtNode(StmtKind::kAllocate, l), buffer(std::move(b)) {}
};

enum class ForKind : uint8_t { kSerial, kPipelined, kParallel };
std::string_view ForKindName(ForKind k);  // "serial", "pipelined", "parallel"

struct ForNode : StmtNode {
  static constexpr StmtKind kKinds[] = {StmtKind::kFor};
  Var var;
  Expr min, extent;  // extent may be a runtime expression for serial loops
  ForKind for_kind;
  int num_stages;  // T.Pipelined(num_stages); 0 otherwise
  Stmt body;
  ForNode(Var v, Expr mn, Expr ext, ForKind k, int stages, Stmt b, SourceLoc l)
      : StmtNode(StmtKind::kFor, l),
        var(std::move(v)),
        min(std::move(mn)),
        extent(std::move(ext)),
        for_kind(k),
        num_stages(stages),
        body(std::move(b)) {}
};

struct IfNode : StmtNode {
  static constexpr StmtKind kKinds[] = {StmtKind::kIf};
  Expr cond;
  Stmt then_body;
  Stmt else_body;  // may be null
  IfNode(Expr c, Stmt t, Stmt e, SourceLoc l)
      : StmtNode(StmtKind::kIf, l),
        cond(std::move(c)),
        then_body(std::move(t)),
        else_body(std::move(e)) {}
};

struct LetNode : StmtNode {
  static constexpr StmtKind kKinds[] = {StmtKind::kLet};
  Var var;
  Expr value;
  Stmt body;
  LetNode(Var v, Expr val, Stmt b, SourceLoc l)
      : StmtNode(StmtKind::kLet, l), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
};

struct StoreNode : StmtNode {
  static constexpr StmtKind kKinds[] = {StmtKind::kStore};
  Buffer buffer;
  std::vector<Expr> indices;
  Expr value;
  StoreNode(Buffer b, std::vector<Expr> idx, Expr v, SourceLoc l)
      : StmtNode(StmtKind::kStore, l),
        buffer(std::move(b)),
        indices(std::move(idx)),
        value(std::move(v)) {}
};

struct TileOpNode : StmtNode {
  static constexpr StmtKind kKinds[] = {StmtKind::kTileOp};
  TileOpCode op;
  std::vector<Operand> args;  // destination first where the op has one
  std::vector<Attr> attrs;    // sorted by key
  TileOpNode(TileOpCode o, std::vector<Operand> a, std::vector<Attr> at, SourceLoc l);

  const AttrValue* FindAttr(std::string_view key) const;
};

// The sort family's operands: [dst, sources..., scratch]. sort32 has two sources (values,
// indices), sort and topk one, merge_sort its `ways` attribute (2..4). The trailing UB scratch
// is added by expand_composites where the op needs one (sort, topk, merge_sort of 3 or 4
// ways); the op writes and reads it. SortSources: the number of sources; SortScratch: the
// scratch operand's index, when present.
size_t SortSources(const TileOpNode& op);
std::optional<size_t> SortScratch(const TileOpNode& op);
// The float32 elements of scratch the op's lowering uses (0: none). sort and topk of `count`
// elements, N = count rounded up to 32: 6 * N (the float values, their indices, two proposal
// lists of 2 * N floats each); merge_sort of 3 ways: the first two lists' floats; of 4 ways:
// those rounded up to a 32-byte block, then the last two lists' floats.
int64_t SortScratchElements(const TileOpNode& op);

// Who made a sync statement: the kernel's author, or a pass (printed as a `{compiler}` suffix).
// verify_sync's severity depends on it: a finding on a compiler-made sync is an internal error,
// on an author's sync a warning.
enum class SyncOrigin : uint8_t { kAuthor, kCompiler };

struct BarrierNode : StmtNode {
  static constexpr StmtKind kKinds[] = {StmtKind::kBarrier};
  Pipe pipe;  // kAll for barrier_all
  SyncOrigin origin;
  // T.sync_all (printed `sync_all`, pipe kAll): a barrier(all) on its core that then waits
  // until every core of every block of the launch reached it (AscendC's SyncAll<false>).
  bool grid = false;
  BarrierNode(Pipe p, SourceLoc l, SyncOrigin o = SyncOrigin::kAuthor, bool g = false)
      : StmtNode(StmtKind::kBarrier, l), pipe(p), origin(o), grid(g) {}
};

// set_flag / wait_flag on the (src, dst) pipe pair; event may be a runtime expression.
struct FlagNode : StmtNode {
  static constexpr StmtKind kKinds[] = {StmtKind::kSetFlag, StmtKind::kWaitFlag};
  Pipe src, dst;
  Expr event;
  SyncOrigin origin;
  FlagNode(StmtKind k, Pipe s, Pipe d, Expr e, SourceLoc l, SyncOrigin o = SyncOrigin::kAuthor)
      : StmtNode(k, l), src(s), dst(d), event(std::move(e)), origin(o) {}
};

// set_cross_flag(pipe, flag, mode) / wait_cross_flag(flag[, pipe]).
struct CrossFlagNode : StmtNode {
  static constexpr StmtKind kKinds[] = {StmtKind::kSetCrossFlag, StmtKind::kWaitCrossFlag};
  Pipe pipe;  // the pipe the set is ordered behind; kS for a plain wait
  Expr flag;
  int mode;  // 0, 1 or 2 (set only)
  SyncOrigin origin;
  CrossFlagNode(StmtKind k, Pipe p, Expr f, int m, SourceLoc l, SyncOrigin o = SyncOrigin::kAuthor)
      : StmtNode(k, l), pipe(p), flag(std::move(f)), mode(m), origin(o) {}
};

enum class CoreKind : uint8_t { kCube, kVector };

struct CoreScopeNode : StmtNode {
  static constexpr StmtKind kKinds[] = {StmtKind::kCoreScope};
  CoreKind core;
  Stmt body;
  CoreScopeNode(CoreKind c, Stmt b, SourceLoc l)
      : StmtNode(StmtKind::kCoreScope, l), core(c), body(std::move(b)) {}
};

template <typename T>
const T& As(const Stmt& s) {
  TILEJIT_CHECK(s != nullptr) << "As<> on a null statement";
  bool match = false;
  for (auto k : T::kKinds) match = match || k == s->kind;
  TILEJIT_CHECK(match) << "statement kind mismatch in As<>";
  return static_cast<const T&>(*s);
}
template <typename T>
const T* TryAs(const Stmt& s) {
  if (s == nullptr) return nullptr;
  for (auto k : T::kKinds)
    if (k == s->kind) return static_cast<const T*>(s.get());
  return nullptr;
}

// The origin of a barrier, flag or cross-flag statement; kAuthor for any other statement.
SyncOrigin SyncOriginOf(const StmtNode& s);

// Statement builders (thin wrappers over make_shared, for readability at call sites).
Stmt Seq(std::vector<Stmt> stmts, SourceLoc loc = {});
// A sequence of `stmts` with the statements of any sequence among them spliced in (one level:
// rewrites that replace one statement by a Seq of several keep the body flat); a single
// statement is returned as is.
Stmt FlatSeq(const std::vector<Stmt>& stmts, SourceLoc loc = {});
Stmt MakeTileOp(TileOpCode op, std::vector<Operand> args, std::vector<Attr> attrs = {},
                SourceLoc loc = {});

// ---------------------------------------------------------------------------------------------
// Kernel: one specialised prim_func.

struct Kernel {
  std::string name;            // the prim_func's name hint ("main"); not printed canonically
  std::vector<Buffer> params;  // GM tensors in signature (ABI) order, roles set
  // T.symbolic dims, in order of first appearance in the params' shapes (ABI: their values
  // follow the tensor addresses in the launch arguments). Each is an int32 var that
  // expressions anywhere in the body may read; each is some input param's dim.
  std::vector<Var> symbols;
  std::vector<int> out_idx;  // normalised: non-negative, in the caller's order
  std::vector<int> workspace_idx;
  Stmt body;  // a KernelNode (possibly wrapped in Lets/Seq for prelude code)
  SourceLoc loc;
};

}  // namespace tilejit::ir
