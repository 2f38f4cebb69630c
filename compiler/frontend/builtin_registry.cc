// SPDX-License-Identifier: Apache-2.0
// The rows. Unsupported names are listed too, so that a kernel using a real TileLang
// construct hears "T.use_swizzle is not supported yet" rather than "unknown name". Signatures
// follow TileLang's own parameter names, so keyword calls written for TileLang bind here.
#include "compiler/frontend/builtin_registry.h"

#include <charconv>
#include <unordered_map>

#include "compiler/pass_config.h"

namespace tilejit::frontend {
namespace {

using C = BuiltinClass;
using H = BuiltinHandler;
using Op = ir::TileOpCode;
using Scope = ir::MemScope;

constexpr BuiltinRow Host(std::string_view n, H h, std::string_view sig) {
  return {n, C::kHost, h, sig, {}, {}, {}, {}};
}
constexpr BuiltinRow Stmt(std::string_view n, H h, std::string_view sig) {
  return {n, C::kStatement, h, sig, {}, {}, {}, {}};
}
constexpr BuiltinRow Tile(std::string_view n, Op op, std::string_view sig) {
  return {n, C::kStatement, H::kTileOp, sig, op, {}, {}, {}};
}
// A tile op whose call has its own tracing rules (handler) on top of the op's family.
constexpr BuiltinRow TileAs(std::string_view n, H h, Op op, std::string_view sig) {
  return {n, C::kStatement, h, sig, op, {}, {}, {}};
}
constexpr BuiltinRow Alloc(std::string_view n, Scope s) {
  return {n, C::kStatement, H::kAlloc, "shape, dtype, scope=None", {}, s, {}, {}};
}
constexpr BuiltinRow Deco(std::string_view n, H h) {
  return {n, C::kDecorator, h, "*args", {}, {}, {}, {}};
}
constexpr BuiltinRow Alias(std::string_view n, std::string_view target) {
  return {n, C::kHost, H::kNone, "", {}, {}, target, {}};
}
constexpr BuiltinRow Todo(std::string_view n, std::string_view note = {}) {
  return {n, C::kUnsupported, H::kNone, "", {}, {}, {}, note};
}
constexpr BuiltinRow OutOfScope(std::string_view n, std::string_view why) {
  return {n, C::kOutOfScope, H::kNone, "", {}, {}, {}, why};
}

constexpr BuiltinRow kRows[] = {
    // T.*: host helpers.
    Host("T.ceildiv", H::kCeilDiv, "a, b"),
    Host("T.symbolic", H::kSymbolic, "name, dtype='int32'"),
    Alias("T.dynamic", "T.symbolic"),
    Host("T.use_swizzle", H::kUseSwizzle,
         "cid, m, n, k, block_m, block_n, off=1, dir=0, in_loop=False"),
    Host("T.min", H::kMin, "a, b"),
    Host("T.max", H::kMax, "a, b"),
    Host("T.if_then_else", H::kIfThenElse, "cond, true_value, false_value"),
    Host("T.infinity", H::kInfinity, "dtype"),
    Host("T.cast", H::kCast, "value, dtype"),
    Host("T.Cast", H::kCast, "dtype, value"),  // TVM's tir.Cast: the dtype first
    Host("T.floordiv", H::kFloorOp, "a, b"),
    Host("T.floormod", H::kFloorOp, "a, b"),
    Alias("T.Select", "T.if_then_else"),
    Alias("T.Min", "T.min"),
    Alias("T.Max", "T.max"),
    Host("T.exp", H::kMathUnary, "x"),
    Host("T.log", H::kMathUnary, "x"),
    Host("T.sqrt", H::kMathUnary, "x"),
    Host("T.rsqrt", H::kMathUnary, "x"),
    Host("T.abs", H::kMathUnary, "x"),
    Host("T.And", H::kAnd, "a, b"),
    Host("T.Or", H::kOr, "a, b"),
    // Dtype names: a dtype when used as a value, a conversion when called.
    Host("T.float16", H::kConvert, "value"),
    Host("T.float32", H::kConvert, "value"),
    Host("T.bfloat16", H::kConvert, "value"),
    Host("T.int8", H::kConvert, "value"),
    Host("T.int16", H::kConvert, "value"),
    Host("T.int32", H::kConvert, "value"),
    Host("T.int64", H::kConvert, "value"),
    Host("T.uint8", H::kConvert, "value"),
    Host("T.uint16", H::kConvert, "value"),
    Host("T.uint32", H::kConvert, "value"),
    Host("T.uint64", H::kConvert, "value"),
    Host("T.bool", H::kConvert, "value"),
    // T.*: frames, loops, allocation, annotations.
    Stmt("T.Kernel", H::kKernel, "*blocks"),
    Stmt("T.Scope", H::kScope, "scope"),
    Stmt("T.If", H::kIfFrame, "cond"),  // TVM's script frames for an if statement
    Stmt("T.Then", H::kThenFrame, ""),
    Stmt("T.Else", H::kElseFrame, ""),
    Stmt("T.serial", H::kSerialLoop, "start, stop=None"),
    Stmt("T.Pipelined", H::kPipelinedLoop,
         "start, stop=None, num_stages=None, cross_interval=None"),
    Stmt("T.Parallel", H::kParallelLoop, "*extents"),
    Stmt("T.Persistent", H::kPersistentLoop, "domain, wave_size, index, group_size=8"),
    Alloc("T.alloc_shared", Scope::kShared),
    Alloc("T.alloc_fragment", Scope::kFragment),
    Alloc("T.alloc_L1", Scope::kL1),
    Alloc("T.alloc_L0A", Scope::kL0A),
    Alloc("T.alloc_L0B", Scope::kL0B),
    Alloc("T.alloc_L0C", Scope::kL0C),
    Alloc("T.alloc_ub", Scope::kUB),
    {"T.alloc_var",
     C::kStatement,
     H::kAlloc,
     "dtype, init=None, scope=None",
     {},
     Scope::kLocalVar,
     {},
     {}},
    Stmt("T.Tensor", H::kAnnotation, "shape, dtype=None"),
    Stmt("T.Buffer", H::kAnnotation, "shape, dtype=None"),
    Stmt("T.annotate_address", H::kAnnotateAddress, "address_map"),
    Stmt("T.annotate_layout", H::kAnnotateLayout, "layout_map"),
    Stmt("T.func_attr", H::kFuncAttr, "attrs"),
    // T.*: data movement, cube, reductions.
    Tile("T.copy", Op::kCopy, "src, dst, enable_relu=None, transpose=None, pad_value=None"),
    TileAs("T.tile.atomic_add", H::kAtomicAdd, Op::kCopy, "dst, src"),
    Tile("T.gemm_v0", Op::kGemmV0, "A, B, C, transpose_A=False, transpose_B=False, init=None"),
    Tile("T.mma", Op::kMma, "A, B, C, init=None"),
    Tile("T.reduce_sum", Op::kReduceSum, "src, dst, dim=-1, clear=True, real_shape=None"),
    Tile("T.reduce_max", Op::kReduceMax, "src, dst, dim=-1, clear=True, real_shape=None"),
    Tile("T.reduce_min", Op::kReduceMin, "src, dst, dim=-1, clear=True, real_shape=None"),
    // T.*: synchronisation.
    Stmt("T.barrier_all", H::kBarrierAll, ""),
    Stmt("T.pipe_barrier", H::kPipeBarrier, "pipe"),
    Stmt("T.set_flag", H::kSetFlag, "src, dst, event_id"),
    Stmt("T.wait_flag", H::kWaitFlag, "src, dst, event_id"),
    Stmt("T.set_cross_flag", H::kSetCrossFlag, "pipe, flag, mode=2"),
    Stmt("T.wait_cross_flag", H::kWaitCrossFlag, "flag, pipe=''"),
    Deco("T.prim_func", H::kPrimFunc),
    Deco("T.macro", H::kMacro),
    // T.tile.*: vector operations on UB tiles.
    Tile("T.tile.fill", Op::kFill, "dst, value"),
    Tile("T.tile.clear", Op::kFill, "dst"),
    Tile("T.tile.add", Op::kAdd, "dst, src0, src1"),
    Tile("T.tile.sub", Op::kSub, "dst, src0, src1"),
    Tile("T.tile.mul", Op::kMul, "dst, src0, src1"),
    Tile("T.tile.div", Op::kDiv, "dst, src0, src1"),
    Tile("T.tile.max", Op::kMax, "dst, src0, src1"),
    Tile("T.tile.min", Op::kMin, "dst, src0, src1"),
    Tile("T.tile.exp", Op::kExp, "dst, src"),
    Tile("T.tile.ln", Op::kLn, "dst, src"),
    Tile("T.tile.sqrt", Op::kSqrt, "dst, src"),
    Tile("T.tile.rsqrt", Op::kRsqrt, "dst, src"),
    Tile("T.tile.reciprocal", Op::kReciprocal, "dst, src"),
    Tile("T.tile.abs", Op::kAbs, "dst, src"),
    Tile("T.tile.relu", Op::kRelu, "dst, src"),
    Tile("T.tile.sigmoid", Op::kSigmoid, "dst, src"),
    Tile("T.tile.cast", Op::kCast, "dst, src, mode, count=None"),
    Tile("T.tile.broadcast", Op::kBroadcast, "dst, src, axis=None"),
    Tile("T.tile.compare", Op::kCompare, "dst, src0, src1, mode"),
    Tile("T.tile.select", Op::kSelect, "dst, mask, src0, src1, mode"),
    Tile("T.tile.axpy", Op::kAxpy, "dst, src, scalar"),
    Tile("T.tile.bitwise_and", Op::kBitwiseAnd, "dst, src0, src1"),
    Tile("T.tile.bitwise_or", Op::kBitwiseOr, "dst, src0, src1"),
    Tile("T.tile.bitwise_xor", Op::kBitwiseXor, "dst, src0, src1"),
    Tile("T.tile.bitwise_not", Op::kBitwiseNot, "dst, src0"),
    Tile("T.tile.bitwise_lshift", Op::kShiftLeft, "dst, src0, scalarValue"),
    Tile("T.tile.bitwise_rshift", Op::kShiftRight, "dst, src0, scalarValue"),
    Tile("T.tile.pow", Op::kPow, "dst, src0, src1"),
    Tile("T.tile.leaky_relu", Op::kLeakyRelu, "dst, src0, scalar_value"),
    Tile("T.tile.silu", Op::kSilu, "dst, src"),
    Tile("T.tile.sin", Op::kSin, "dst, src"),
    Tile("T.tile.cos", Op::kCos, "dst, src"),
    Tile("T.tile.round", Op::kRound, "out, buffer, count"),
    Tile("T.tile.transpose", Op::kTranspose, "dst, src"),
    Tile("T.tile.gather", Op::kGather, "dst, src, src_offset, src_base_addr=0"),
    Tile("T.tile.gather_mask", Op::kGatherMask, "dst, src, src1Pattern"),
    Tile("T.tile.sort32", Op::kSort32, "dst, src0, src1"),
    Tile("T.tile.merge_sort", Op::kMergeSort, "dst, src0, src1, src2=None, src3=None"),
    Tile("T.tile.sort", Op::kSort, "dst, src, actual_num"),
    Tile("T.tile.topk", Op::kTopK, "dst, src, K, actual_num"),
    Tile("T.set_deq_scale", Op::kSetDeqScale, "scale"),
    Tile("T.tile.gatherb", Op::kGatherB,
         "dst, src0, offset, repeat_time, dst_blk_stride, dst_rep_stride"),
    Tile("T.tile.block_reduce_sum", Op::kBlockReduceSum,
         "dst, src, repeat, mask, dstPepStride, srcBlkStride, srcRepStride"),
    Tile("T.tile.block_reduce_max", Op::kBlockReduceMax,
         "dst, src, repeat, mask, dstPepStride, srcBlkStride, srcRepStride"),
    Tile("T.tile.block_reduce_min", Op::kBlockReduceMin,
         "dst, src, repeat, mask, dstPepStride, srcBlkStride, srcRepStride"),
    Tile("T.tile.wholereducesum", Op::kWholeReduceSum,
         "dst, src, mask, repeattimes, dstrepstride, srcblkstride, srcrepstride"),
    Tile("T.tile.wholereducemax", Op::kWholeReduceMax,
         "dst, src, mask, repeattimes, dstrepstride, srcblkstride, srcrepstride, "
         "ReduceOrder=\"ORDER_VALUE_INDEX\""),
    Tile("T.tile.wholereducemin", Op::kWholeReduceMin,
         "dst, src, mask, repeattimes, dstrepstride, srcblkstride, srcrepstride, "
         "ReduceOrder=\"ORDER_VALUE_INDEX\""),
    Tile("T.tile.mul_add_dst", Op::kMulAddDst, "dst, src0, src1"),
    Tile("T.tile.createvecindex", Op::kCreateVecIndex, "dst, firstValue"),
    TileAs("T.tile.arith_progression", H::kArithProgression, Op::kCreateVecIndex,
           "buffer, first_value, diff_value, count"),
    // The tmp argument is AscendC's scratch; the vector unit needs none here.
    TileAs("T.tile.row_expand_mul", H::kRowExpand, Op::kMul, "dst, src0, src1, tmp=None"),
    TileAs("T.tile.row_expand_sub", H::kRowExpand, Op::kSub, "dst, src0, src1, tmp=None"),
    TileAs("T.tile.row_expand_div", H::kRowExpand, Op::kDiv, "dst, src0, src1, tmp=None"),
    Alias("T.tile.row_expand_mul_experiment", "T.tile.row_expand_mul"),
    Alias("T.tile.row_expand_sub_experiment", "T.tile.row_expand_sub"),
    Alias("T.tile.row_expand_div_experiment", "T.tile.row_expand_div"),
    TileAs("T.tile.brcb", H::kBrcb, Op::kBroadcast,
           "dst, src, repeat_times, dst_blk_stride, dst_repeat_stride"),
    Alias("T.tile.brcb_experiment", "T.tile.brcb"),
    TileAs("T.tile.clamp", H::kClamp, Op::kMax, "out, buffer, min_scalar, max_scalar, count"),
    TileAs("T.tile.clamp_max", H::kClampBound, Op::kMin, "out, buffer, scalar_value, count"),
    TileAs("T.tile.clamp_min", H::kClampBound, Op::kMax, "out, buffer, scalar_value, count"),
    // tilelang, tvm and Python.
    Deco("tilelang.jit", H::kJit),
    // Above @tilelang.jit: the client tunes (its arguments are never evaluated here).
    Deco("tilelang.autotune", H::kJit),
    {"tilelang.PassConfigKey", C::kHost, H::kNone, "", {}, {}, {}, {}},
    Alias("tilelang.cdiv", "T.ceildiv"),
    Host("tilelang.math.next_power_of_2", H::kNextPowerOf2, "x"),
    Alias("tilelang.math.cdiv", "T.ceildiv"),
    Alias("tilelang.next_power_of_2", "tilelang.math.next_power_of_2"),
    Alias("tvm.DataType", "DataType"),
    Stmt("range", H::kSerialLoop, "start, stop=None, step=None"),
    Host("len", H::kLen, "obj"),
    Host("min", H::kMin, "*values"),
    Host("max", H::kMax, "*values"),
    Host("abs", H::kAbs, "x"),
    Host("int", H::kInt, "x"),
    Host("float", H::kFloat, "x"),
    Host("bool", H::kBool, "x"),
    Host("str", H::kStr, "x"),
    Host("print", H::kPrint, "*values"),
    Host("getattr", H::kGetattr, "*args"),  // (obj, name[, default]); None is a default
    Host("sum", H::kSum, "iterable, start=0"),
    Host("any", H::kAnyAll, "iterable"),
    Host("all", H::kAnyAll, "iterable"),
    Host("list", H::kSequence, "iterable=None"),
    Host("tuple", H::kSequence, "iterable=None"),
    Host("enumerate", H::kEnumerate, "iterable, start=0"),
    Host("zip", H::kZip, "*iterables"),
    // Python's math module (host numbers only, as in Python: no runtime values).
    Host("math.ceil", H::kPyMath, "x"),
    Host("math.floor", H::kPyMath, "x"),
    Host("math.sqrt", H::kPyMath, "x"),
    Host("math.exp", H::kPyMath, "x"),
    Host("math.log", H::kPyMath, "x, base=None"),
    Host("math.log2", H::kPyMath, "x"),
    Host("math.log10", H::kPyMath, "x"),
    Host("math.pow", H::kPyMath, "x, y"),
    Host("math.isqrt", H::kPyMath, "n"),
    Host("math.gcd", H::kPyMath, "a, b"),
    Host("DataType", H::kDataType, "dtype"),
    Host("tilelang.intrinsics.make_zn_layout", H::kLayout, "buf"),
    Host("tilelang.intrinsics.make_nz_layout", H::kLayout, "buf"),
    // Real TileLang names not supported yet.
    // Refused by design: tilejit compiles one kernel for one 910B device.
    OutOfScope("T.shmem_put_nbi", "multi-device shared memory (T.shmem_*)"),
    OutOfScope("T.shmem_ub_put_nbi", "multi-device shared memory (T.shmem_*)"),
    OutOfScope("T.shmem_get_nbi", "multi-device shared memory (T.shmem_*)"),
    OutOfScope("T.shmem_ub_get_nbi", "multi-device shared memory (T.shmem_*)"),
    Stmt("T.printf", H::kPrintf, "*values"),
    Stmt("T.dump_tensor", H::kDumpTensor, "tensor, desc, dump_size, shape_info=None"),
    Stmt("T.sync_all", H::kSyncAll, ""),
    Todo("T.unroll"),
    Todo("T.grid"),
    Todo("T.vectorized"),
    Todo("T.gemm", "use T.gemm_v0"),
    Todo("T.init_flag"),
    Todo("T.clear_flag"),
    Todo("T.reinterpretcast"),
    Todo("T.ascend_copy"),
    Todo("T.tile.bilinear_interpolation"),
    Todo("tilelang.compile", "tilejit compiles through tilelang.jit"),
    Todo("tilelang.lower", "tilejit compiles through tilelang.jit"),
};

// The module a prefix of qualified names stands for.
struct ModulePrefix {
  std::string_view module;
  std::string_view prefix;
};
constexpr ModulePrefix kModules[] = {
    {"tilelang.language", "T."},
    {"tilelang.language.tile", "T.tile."},
    {"tilelang", "tilelang."},
    {"tvm", "tvm."},
    {"tvm.tir", "tvm."},
    {"tilelang.tvm", "tvm."},
    {"tilelang.intrinsics", "tilelang.intrinsics."},
    {"tilelang.math", "tilelang.math."},
    {"math", "math."},
};

// One default value as written in a signature.
std::optional<Value> ParseDefault(std::string_view text) {
  if (text == "None") return std::nullopt;
  if (text == "True" || text == "False") return Value::Bool(text == "True");
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"')) {
    return Value::Str(std::string(text.substr(1, text.size() - 2)));
  }
  int64_t i = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (ec == std::errc() && end == text.data() + text.size()) return Value::Int(i);
  return Value::Float(std::stod(std::string(text)));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

Signature Parse(const BuiltinRow& row) {
  Signature sig{row.name, {}, 0, {}, false};
  if (!row.signature.empty() && row.signature.front() == '*') {
    sig.variadic = true;
    return sig;
  }
  std::string_view rest = row.signature;
  bool optional = false;
  while (!Trim(rest).empty()) {
    size_t comma = rest.find(',');
    std::string_view param = Trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    size_t eq = param.find('=');
    sig.params.push_back(Trim(param.substr(0, eq)));
    if (eq == std::string_view::npos) {
      sig.defaults.emplace_back();
      sig.required += optional ? 0 : 1;
    } else {
      optional = true;
      sig.defaults.push_back(ParseDefault(Trim(param.substr(eq + 1))));
    }
  }
  return sig;
}

struct Index {
  std::unordered_map<std::string_view, const BuiltinRow*> by_name;
  std::vector<Signature> signatures;  // parallel to kRows
};

const Index& TheIndex() {
  static const Index index = [] {
    Index ix;
    for (const BuiltinRow& row : kRows) {
      ix.by_name.emplace(row.name, &row);
      ix.signatures.push_back(Parse(row));
    }
    return ix;
  }();
  return index;
}

const BuiltinRow* Canonical(const BuiltinRow* row) {
  return row != nullptr && !row->alias_of.empty() ? FindBuiltin(row->alias_of) : row;
}

}  // namespace

std::span<const BuiltinRow> BuiltinRows() { return kRows; }

const BuiltinRow* FindBuiltin(std::string_view qualified) {
  const auto& by_name = TheIndex().by_name;
  auto it = by_name.find(qualified);
  return it == by_name.end() ? nullptr : it->second;
}

const BuiltinRow* ResolveBuiltin(std::string_view qualified) {
  return Canonical(FindBuiltin(qualified));
}

const Signature& SignatureOf(const BuiltinRow& row) {
  return TheIndex().signatures[static_cast<size_t>(&row - kRows)];
}

const BuiltinRow* ResolveModuleMember(std::string_view module, std::string_view attr) {
  for (const ModulePrefix& m : kModules) {
    if (m.module != module) continue;
    std::string name = std::string(m.prefix) + std::string(attr);
    return Canonical(FindBuiltin(name));
  }
  return nullptr;
}

std::optional<std::string> ResolveSubmodule(std::string_view module, std::string_view attr) {
  if (module == "tilelang" && attr == "language") return std::string("tilelang.language");
  if (module == "tilelang.language" && attr == "tile") return std::string("tilelang.language.tile");
  if (module == "tvm" && attr == "tir") return std::string("tvm.tir");
  if (module == "tilelang" && attr == "tvm") return std::string("tilelang.tvm");
  if (module == "tilelang" && attr == "intrinsics") return std::string("tilelang.intrinsics");
  if (module == "tilelang" && attr == "math") return std::string("tilelang.math");
  return std::nullopt;
}

std::optional<BuiltinClass> ClassifyBuiltin(std::string_view name) {
  const BuiltinRow* row = ResolveBuiltin(name);
  if (row == nullptr) return std::nullopt;
  return row->cls;
}

std::optional<std::string> PythonBuiltin(std::string_view name) {
  if (name.find('.') != std::string_view::npos) return std::nullopt;
  if (FindBuiltin(name) == nullptr) return std::nullopt;
  return std::string(name);
}

std::optional<std::string> PassConfigKeyString(std::string_view enum_name) {
  // Only the enum spelling is an attribute of PassConfigKey; the canonical table lives with
  // the pass-config normaliser.
  if (enum_name.empty() || enum_name.find('.') != std::string_view::npos) return std::nullopt;
  return compiler::CanonicalPassConfigKey(enum_name);
}

std::string NotSupportedText(const BuiltinRow& row) {
  if (row.cls == BuiltinClass::kOutOfScope) {
    return std::string(row.name) + " is out of scope: tilejit compiles for one Ascend 910B " +
           "device, and " + std::string(row.note) + " is not part of it";
  }
  std::string text = std::string(row.name) + " is not supported yet";
  if (!row.note.empty()) text += " (" + std::string(row.note) + ")";
  return text;
}

bool IsKnownModule(std::string_view path) {
  for (const ModulePrefix& m : kModules) {
    if (m.module == path) return true;
  }
  return false;
}

}  // namespace tilejit::frontend
