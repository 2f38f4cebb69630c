// SPDX-License-Identifier: Apache-2.0
// The kernel metadata schema: everything a runner needs to allocate arguments and launch a
// compiled kernel, plus the provenance of the binary (compiler fingerprint, cache key,
// target). It is stored in the `.tilejit.meta` section of a kernel binary (binary.h) as
// canonical JSON; see docs/binary_format.md for the exact encoding.
//
// The schema is independent of the Tile IR library (compiler/ir), so the runner never links the
// IR; element types are the target's one enum (element_type.h), which the IR uses too.
//
// Nothing source-specific lives here (DESIGN.md section 3): parameter names are canonical
// name hints, never the user's local names.
//
// Plain value types and pure functions: thread-compatible, no global state.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/status.h"
#include "compiler/target/element_type.h"

namespace tilejit::target {

// Version of the whole kernel binary format (ELF layout, metadata schema, line table
// encoding) and of the ISA semantics the binary relies on. Any change to any of them bumps it;
// readers accept only their own version.
inline constexpr uint32_t kKernelBinaryFormatVersion = 5;

// How the runner treats a parameter (TileLang's allocation convention, DESIGN.md section 5):
// inputs are passed by the caller; outputs and workspaces are allocated by the runner.
enum class ParamRole : uint8_t { kInput, kOutput, kWorkspace };
std::string_view ParamRoleName(ParamRole r);  // "input", "output", "workspace"
std::optional<ParamRole> ParseParamRole(std::string_view name);

// Which AI cores a block uses.
enum class CoreMix : uint8_t { kCubeOnly, kVectorOnly, kMixed };
std::string_view CoreMixName(CoreMix m);  // "cube", "vector", "mixed"
std::optional<CoreMix> ParseCoreMix(std::string_view name);

// A dimension of a parameter that is known only at launch (TileLang's T.symbolic("M")). The
// runner binds each symbol from the shapes of the input tensors and passes its value in
// launch argument slot params.size() + (symbol index), after the tensor addresses.
struct KernelSymbol {
  std::string name;  // the author's name, e.g. "M"; non-empty, unique among symbols
  // The largest value the generated code handles (fields the value flows into, int32 index
  // arithmetic); a launch binding a value outside [0, max] is refused. 0 <= max <= INT32_MAX.
  int64_t max = INT32_MAX;

  bool operator==(const KernelSymbol&) const = default;
};

// Entries of KernelParam::dim_symbols.
inline constexpr int kStaticDim = -1;      // the extent is shape[d]
inline constexpr int kBlockCountDim = -2;  // the launch's block count (compiler workspaces, dim 0)

// One GM tensor parameter, in ABI (signature) order.
struct KernelParam {
  std::string name;  // canonical name hint, e.g. "A" or "p0"; non-empty, unique
  // Static extents, each >= 0 (exactly 0 where the dim is not static); rank <= kMaxRank.
  std::vector<int64_t> shape;
  ElementType dtype = ElementType::kFloat32;
  ParamRole role = ParamRole::kInput;
  // A workspace added by the compiler rather than declared by the kernel author. Only for
  // role kWorkspace. Such a workspace is sized per logical block: block b owns bytes
  // [b * workspace_bytes_per_block, (b + 1) * workspace_bytes_per_block) of the tensor, so
  // block_count * workspace_bytes_per_block must fit in the tensor's bytes.
  bool compiler_workspace = false;
  int64_t workspace_bytes_per_block = 0;  // > 0 iff compiler_workspace
  // One entry per dim: kStaticDim, a symbol index (the extent is that symbol's value), or
  // kBlockCountDim (only dim 0 of a compiler workspace of a kernel with a symbolic grid).
  // Every symbol is the extent of at least one dim of an input parameter.
  // Empty means every dim is static (kStaticDim), and that is its only spelling: a non-empty
  // list has one entry per dim and at least one non-static entry (NormalizeDimSymbols).
  // A symbolic compiler workspace's per-block rule is checked at launch, on concrete shapes.
  std::vector<int> dim_symbols;

  bool operator==(const KernelParam&) const = default;
};

// On-chip memory the kernel uses, in bytes per core instance (the highest address in use).
struct OnChipUsage {
  int64_t l1 = 0;
  int64_t l0a = 0;
  int64_t l0b = 0;
  int64_t l0c = 0;
  int64_t ub = 0;

  bool operator==(const OnChipUsage&) const = default;
};

// What a device-side print instruction prints (T.printf, T.dump_tensor; docs/isa.md, "Device
// printing"): `dbg_print msg=i` and `dbg_dump msg=i` name record i.
enum class PrintKind : uint8_t { kPrintf, kDump };
std::string_view PrintKindName(PrintKind k);  // "printf", "dump"
std::optional<PrintKind> ParsePrintKind(std::string_view name);

struct PrintRecord {
  PrintKind kind = PrintKind::kPrintf;
  // kPrintf: the author's format string (printable ASCII, newline and tab) and the type of each
  // argument its dbg_arg instructions pass (an integer type, or float32 as fp32 bits).
  std::string format;
  std::vector<ElementType> args;
  // kDump: `count` elements of `dtype` in memory `memory` ("gm", "l1", "l0a", "l0b", "l0c",
  // "ub") from the instruction's address, the author's `desc` number, and the shape to lay the
  // elements out in (empty: one row).
  std::string memory;
  ElementType dtype = ElementType::kFloat32;
  int64_t count = 0;
  int64_t desc = 0;
  std::vector<int64_t> shape;

  bool operator==(const PrintRecord&) const = default;
};

struct KernelMetadata {
  uint32_t format_version = kKernelBinaryFormatVersion;
  std::string kernel_name;           // the prim_func's name hint; non-empty
  std::string target;                // target description name, e.g. "ascend910b2"; non-empty
  std::string compiler_fingerprint;  // may be empty (e.g. in tests)
  std::string cache_key;             // may be empty (e.g. a binary built outside the cache)
  std::vector<KernelParam> params;   // ABI order
  // Normalised indices into `params`: non-negative, distinct, in the caller's order.
  // out_idx lists exactly the kOutput params; workspace_idx exactly the kWorkspace params
  // (declared and compiler-made).
  std::vector<int> out_idx;
  std::vector<int> workspace_idx;
  // Logical blocks (the grid): 1 <= block_count <= kMaxBlockCount when the grid is static,
  // 0 exactly when `grid` is non-empty (the count is then evaluated at launch).
  int64_t block_count = 1;
  // The symbols, in order (launch argument slots params.size() + i).
  std::vector<KernelSymbol> symbols;
  // The grid when it depends on symbols (then block_count is 0), empty otherwise: a postfix
  // program over int64 evaluated at launch. Tokens: "c<int>" pushes the constant, "s<i>" symbol
  // i's value; "+", "-", "*", "//", "%" (floor semantics), "min", "max" pop two and push one.
  // At most kMaxGridTokens tokens; it must leave exactly one value, which must lie in
  // [0, kMaxBlockCount] for the launch (0: an empty launch that runs no block).
  std::vector<std::string> grid;
  CoreMix core_mix = CoreMix::kMixed;
  // AIV sub-cores used per block: 0 for kCubeOnly; 1 or 2 otherwise (the cube:vector ratio
  // 1:1 or 1:2 for kMixed, threads=1 or 2 for kVectorOnly).
  int vector_cores_per_block = 2;
  OnChipUsage on_chip;
  std::vector<PrintRecord> prints;  // indexed by the `msg` field of dbg_print / dbg_dump

  bool operator==(const KernelMetadata&) const = default;
};

// Limits the validator enforces (generous; they bound memory use on hostile input).
inline constexpr int kMaxRank = 16;
inline constexpr size_t kMaxParams = 4096;
inline constexpr size_t kMaxStringBytes = 4096;
inline constexpr int64_t kMaxBlockCount = int64_t{1} << 31;
inline constexpr size_t kMaxPrints = 4096;         // print records (the msg field is 16 bits)
inline constexpr size_t kMaxPrintArgs = 32;        // arguments of one printf
inline constexpr int64_t kMaxDumpCount = 1 << 20;  // elements of one dump
inline constexpr size_t kMaxSymbols = 64;
inline constexpr size_t kMaxGridTokens = 256;

// Number of bytes of a tensor of `dtype` and `shape`, or kInvalidArgument if a dim is negative
// or the size overflows int64.
Result<int64_t> ShapeSizeBytes(ElementType dtype, std::span<const int64_t> shape);

// True iff some dim of `p` is known only at launch (dim_symbols non-empty).
inline bool IsSymbolicParam(const KernelParam& p) { return !p.dim_symbols.empty(); }

// Number of bytes of a static parameter tensor (ShapeSizeBytes of its shape). A symbolic
// parameter has no static size: kInvalidArgument; its concrete shape comes from the launch
// binding (launch_shapes.h).
Result<int64_t> ParamSizeBytes(const KernelParam& p);

// Puts p.dim_symbols into its one canonical spelling: empty when every entry is kStaticDim
// (the validator rejects a non-empty all-static list). For metadata writers.
void NormalizeDimSymbols(KernelParam& p);

// Checks that `grid` is a well-formed grid program over `num_symbols` symbols (the rules at
// KernelMetadata::grid; constants and symbol indices in canonical decimal). Empty is
// well-formed (a static grid). kInvalidArgument naming the first bad token.
Status CheckGridProgram(std::span<const std::string> grid, size_t num_symbols);

// Evaluates a grid program with symbol i bound to symbols[i]. kInvalidArgument if the program
// is malformed, refers to a symbol outside `symbols`, divides by zero or overflows int64.
// Range checks on the result (kMaxBlockCount) are the caller's.
Result<int64_t> EvaluateGridProgram(std::span<const std::string> grid,
                                    std::span<const int64_t> symbols);

// Checks every rule stated above. Strings must be printable ASCII (0x20-0x7e).
// Returns kInvalidArgument naming the first violated rule.
Status ValidateKernelMetadata(const KernelMetadata& m);

// Canonical JSON text of `m` (sorted keys, no whitespace): deterministic, byte-identical for
// equal metadata. Validates first; kInvalidArgument if `m` is invalid.
Result<std::string> SerializeKernelMetadata(const KernelMetadata& m);

// Parses and validates metadata text. Rejects (kCorruption) anything that is not exactly the
// canonical serialisation of valid metadata: malformed JSON, nesting deeper than the schema,
// missing, unknown or mistyped fields, out-of-range numbers, duplicate keys, whitespace.
// A format_version other than kKernelBinaryFormatVersion is kInvalidArgument.
Result<KernelMetadata> ParseKernelMetadata(std::string_view text);

}  // namespace tilejit::target
