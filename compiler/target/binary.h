// SPDX-License-Identifier: Apache-2.0
// The tilejit kernel binary: an ELF64 little-endian file (e_type ET_REL, e_machine 0x910B,
// e_flags = format version) holding one compiled kernel. Codegen writes it, the cache stores
// it, the runner reads it. Layout and encodings: docs/binary_format.md.
//
// Sections, always all present and in this order:
//   .text.aic       the AIC (cube core) instruction stream, opaque bytes
//   .text.aiv       the AIV (vector core) instruction stream, opaque bytes
//   .tilejit.meta   KernelMetadata as canonical JSON (kernel_metadata.h)
//   .tilejit.lines  the line tables of both streams (line_table.h)
//   .tilejit.source what the kernel was compiled from (KernelSource), possibly empty
//   .shstrtab       section names
//
// Instruction encodings belong to the ISA; here an instruction is only known to be a whole
// number (>= 1) of kInstructionWordBytes-byte words.
//
// Ownership: KernelBinary owns all its bytes; ReadKernelBinary copies out of the caller's
// buffer and keeps no reference to it. Thread safety: the functions are pure and may be called
// concurrently; KernelBinary is a plain value (thread-compatible).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/status.h"
#include "compiler/target/kernel_metadata.h"
#include "compiler/target/line_table.h"

namespace tilejit::target {

inline constexpr size_t kInstructionWordBytes = 8;

inline constexpr std::string_view kAicCodeSection = ".text.aic";
inline constexpr std::string_view kAivCodeSection = ".text.aiv";
inline constexpr std::string_view kMetadataSection = ".tilejit.meta";
inline constexpr std::string_view kLineTableSection = ".tilejit.lines";
inline constexpr std::string_view kSourceSection = ".tilejit.source";

// The canonical inputs of the compile that made the binary: recompiling `ir_text` (Tile IR)
// with `pass_configs` on the metadata's target reproduces the binary byte for byte, which is
// how a daemon checks an imported binary. Both empty for a binary not made by the compiler
// (tests, tools), which can then not be verified that way.
struct KernelSource {
  std::string ir_text;       // canonical Tile IR (docs/tile_ir.md)
  std::string pass_configs;  // NormalizedPassConfigs::canonical: "key=value\n", sorted by key

  bool operator==(const KernelSource&) const = default;
};
inline constexpr size_t kMaxSourceConfigBytes = 65536;

// The code of one core type.
struct CoreCode {
  // Instruction bytes; the size is a multiple of kInstructionWordBytes.
  std::vector<uint8_t> code;
  // line_table[i] is the canonical IR statement id of instruction i (kNoStmt if none). Its
  // size is the instruction count: at most code.size() / kInstructionWordBytes, and zero
  // exactly when `code` is empty.
  std::vector<uint32_t> line_table;

  bool operator==(const CoreCode&) const = default;
};

struct KernelBinary {
  KernelMetadata metadata;
  // A core type the core mix uses has non-empty code; one it does not use has none (AIC is
  // used unless the mix is kVectorOnly, AIV unless it is kCubeOnly).
  CoreCode aic;
  CoreCode aiv;
  KernelSource source;

  bool operator==(const KernelBinary&) const = default;
};

// Checks the metadata (ValidateKernelMetadata) and the code/line-table rules above.
// kInvalidArgument naming the first violation.
Status ValidateKernelBinary(const KernelBinary& binary);

// Encodes `binary`. Deterministic: equal inputs give byte-identical outputs (no timestamps,
// all padding zero). kInvalidArgument if ValidateKernelBinary fails or the file would exceed
// 256 MiB.
Result<std::vector<uint8_t>> WriteKernelBinary(const KernelBinary& binary);

// Decodes and fully validates untrusted bytes; never reads outside `bytes`.
// Accepts exactly the files WriteKernelBinary produces: any other byte sequence is rejected.
//   kInvalidArgument: a well-formed file of another kind (not ELF64 little-endian version 1,
//     not ET_REL, another e_machine) or another kernel binary format version.
//   kCorruption: everything else (truncation, size over 256 MiB, bad magic, bad section
//     headers or names, missing/unknown/duplicate sections, bad metadata, code not a whole
//     number of words, line tables inconsistent with the code, non-canonical bytes).
Result<KernelBinary> ReadKernelBinary(std::span<const uint8_t> bytes);

}  // namespace tilejit::target
