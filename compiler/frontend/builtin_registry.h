// SPDX-License-Identifier: Apache-2.0
// The builtin registry: every name the frontend knows (members of `tilelang`,
// `tilelang.language` (T), `T.tile`, `tvm`, and the Python builtins kernels use) is one row:
// its qualified name, its class (where it may be used), its signature, the handler that runs
// it and, for tile operations, the IR op it emits. The host evaluator, the tracer, module
// attribute lookup, imports, `getattr` and the client-value decoder all resolve names here,
// so "unknown T.* name" diagnostics and the dispatch always agree.
//
// Builtin values carry the qualified name of their row: "T.copy", "T.tile.add",
// "tilelang.jit", "range". An alias row ("tilelang.cdiv") resolves to its target's name.
//
// The table is static and immutable; every function here is thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/frontend/value.h"
#include "compiler/ir/ir.h"

namespace tilejit::frontend {

enum class BuiltinClass : uint8_t {
  kHost,         // evaluable in expression context (T.ceildiv, T.max, DataType, len, ...)
  kStatement,    // only valid as a statement, with, for iterator or annotation (T.copy, ...)
  kDecorator,    // T.prim_func, T.macro, tilelang.jit
  kUnsupported,  // a real TileLang name this frontend does not support yet
  kOutOfScope,   // a real TileLang name tilejit refuses by design (multi-device, other chips)
};

// What runs a call of the builtin. Host handlers are in host_builtins.cc, statement handlers
// in the tracer (trace_*.cc, tracer_frames.cc, tracer_stmts.cc).
enum class BuiltinHandler : uint8_t {
  kNone,  // not callable (unsupported names, namespaces such as tilelang.PassConfigKey)
  // Host: value in, value out.
  kCeilDiv,
  kSymbolic,      // T.symbolic(name): a dim known at launch, as a runtime int32 (ModuleEnv::Symbol)
  kUseSwizzle,    // T.use_swizzle: a task index -> the tile of CATLASS's block swizzle
  kNextPowerOf2,  // tilelang.math.next_power_of_2: 1 << (x - 1).bit_length()
  kMin,
  kMax,
  kIfThenElse,
  kInfinity,
  kCast,       // T.cast(value, dtype), T.Cast(dtype, value)
  kFloorOp,    // T.floordiv, T.floormod: Python's // and % (on runtime values too)
  kConvert,    // T.float16(value) and the other dtype names (the dtype is the name's suffix)
  kMathUnary,  // T.exp, T.log, ...: the scalar intrinsic is the name's suffix
  kAnd,
  kOr,
  kDataType,
  kPrint,
  kLen,
  kAbs,
  kInt,
  kFloat,
  kBool,
  kStr,
  kGetattr,
  kSum,        // sum(iterable, start=0)
  kAnyAll,     // any(iterable), all(iterable)
  kSequence,   // list(iterable=()), tuple(iterable=())
  kEnumerate,  // enumerate(iterable, start=0), as a list of (index, item) tuples
  kZip,        // zip(*iterables), as a list of tuples
  kPyMath,     // math.ceil, math.log2, ...: Python's math module on host numbers
  kLayout,     // make_zn_layout(buf), make_nz_layout(buf): the layout's name, "zN" / "nZ"
  // Statements, with and for forms, annotations.
  kKernel,
  kScope,
  kIfFrame,     // with T.If(cond): a `with T.Then():` and an optional `with T.Else():`
  kThenFrame,   // with T.Then(): only inside T.If
  kElseFrame,   // with T.Else(): only inside T.If, after T.Then
  kSerialLoop,  // T.serial, range
  kPipelinedLoop,
  kParallelLoop,
  kPersistentLoop,    // T.Persistent: every wave_size-th tile of a grid
  kAlloc,             // the row's scope says where
  kTileOp,            // the row's op says what; its IR family says how it is traced
  kRowExpand,         // row_expand_*: the row's binary op with a per-row [R] second operand
  kBrcb,              // brcb: the per-row broadcast in AscendC's repeat/stride spelling
  kClamp,             // clamp: max with the lower bound, then min with the upper
  kClampBound,        // clamp_max / clamp_min: the row's op (min / max) with one bound
  kArithProgression,  // arith_progression: an index sequence scaled and offset
  kAtomicAdd,         // atomic_add(dst, src): a copy out to GM that accumulates
  kBarrierAll,
  kSyncAll,  // T.sync_all: barrier(all) and a rendezvous of every core of the launch
  kPipeBarrier,
  kSetFlag,
  kWaitFlag,
  kSetCrossFlag,
  kWaitCrossFlag,
  kAnnotateAddress,
  kAnnotateLayout,  // T.annotate_layout: zN on L1 is what tilejit does; others warn
  kFuncAttr,        // T.func_attr: accepted, each attribute warned about as ignored
  kPrintf,          // T.printf(format, *values): device-side printing
  kDumpTensor,      // T.dump_tensor(tensor, desc, dump_size, shape_info)
  kAnnotation,      // T.Tensor, T.Buffer
  // Decorators.
  kPrimFunc,
  kMacro,
  kJit,
};

struct BuiltinRow {
  std::string_view name;  // qualified ("T.copy")
  BuiltinClass cls;
  BuiltinHandler handler;
  // Python-style parameter list, bound by the caller before the handler runs:
  // "dst, src0, src1", "src, dst, dim=-1, clear=True". Defaults are int, float, True,
  // False, None or a quoted string. "*values": the handler takes the raw arguments.
  std::string_view signature;
  std::optional<ir::TileOpCode> op;   // kTileOp, kRowExpand and kBrcb rows
  std::optional<ir::MemScope> scope;  // kAlloc rows
  std::string_view alias_of;          // another spelling of the row of that name
  std::string_view note;              // kUnsupported: what it is, when the name alone is unclear
};

// The parameters of a builtin, for argument binding: names in order, the first `required`
// of them mandatory. A parameter with a non-None default is bound to it when not given; one
// whose default is None stays unset (nullopt) when not given or given None, so a handler
// tests one thing.
struct Signature {
  std::string_view name;  // for diagnostics ("T.copy")
  std::vector<std::string_view> params;
  size_t required = 0;
  std::vector<std::optional<Value>> defaults;  // one per param; empty: none
  bool variadic = false;                       // "*values": no binding
};

// Every row, in table order.
std::span<const BuiltinRow> BuiltinRows();
// The row of a qualified name (aliases are rows of their own); nullptr if unknown.
const BuiltinRow* FindBuiltin(std::string_view qualified);
// The row a qualified name means, after aliases ("T.tile.brcb_experiment" -> "T.tile.brcb");
// nullptr if unknown.
const BuiltinRow* ResolveBuiltin(std::string_view qualified);
// The parsed signature of a row (parsed once, on first use).
const Signature& SignatureOf(const BuiltinRow& row);

// The row a module member resolves to, after aliases (`module` is a dotted path such as
// "tilelang.language"); nullptr for an unknown member. Sub-modules resolve through
// ResolveSubmodule.
const BuiltinRow* ResolveModuleMember(std::string_view module, std::string_view attr);
// A sub-module path ("tilelang.language" for ("tilelang", "language")), or nullopt.
std::optional<std::string> ResolveSubmodule(std::string_view module, std::string_view attr);
// The class of a qualified builtin name; nullopt if unknown.
std::optional<BuiltinClass> ClassifyBuiltin(std::string_view name);
// Python builtins available by bare name ("range", "len", "DataType", ...).
std::optional<std::string> PythonBuiltin(std::string_view name);
// The key string of tilelang.PassConfigKey.<enum_name> ("tl.ascend_auto_sync"), or nullopt.
std::optional<std::string> PassConfigKeyString(std::string_view enum_name);
// "T.symbolic is not supported yet (dynamic shapes)": the diagnostic for an unsupported row.
std::string NotSupportedText(const BuiltinRow& row);
// True for the modules a kernel may use ("tilelang", "tilelang.language", ...).
bool IsKnownModule(std::string_view path);

}  // namespace tilejit::frontend
