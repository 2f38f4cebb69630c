// SPDX-License-Identifier: Apache-2.0
// Sample kernel binaries and raw-image helpers shared by the binary tests, the mutation test
// and the fuzzer. Header-only; every function returns fresh values (thread-safe).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/target/binary.h"
#include "compiler/target/elf_image.h"

namespace tilejit::target::testing {

// `words` instruction words of recognisable, non-zero bytes.
inline std::vector<uint8_t> SampleCode(size_t words, uint8_t seed) {
  std::vector<uint8_t> code(words * kInstructionWordBytes);
  for (size_t i = 0; i < code.size(); ++i) code[i] = static_cast<uint8_t>(seed + 37 * i + 1);
  return code;
}

// A mixed (1 AIC : 2 AIV) matmul-like kernel with a compiler-made workspace.
inline KernelBinary SampleBinary() {
  KernelBinary b;
  KernelMetadata& m = b.metadata;
  m.kernel_name = "main";
  m.target = "ascend910b2";
  m.compiler_fingerprint = "tilejit-0.1.0 build=test pipeline=frontend/1";
  m.cache_key = "5d41402abc4b2a76b9719d911017c592";
  m.params = {
      {"A", {128, 64}, ElementType::kFloat16, ParamRole::kInput, false, 0, {}},
      {"B", {64, 256}, ElementType::kFloat16, ParamRole::kInput, false, 0, {}},
      {"C", {128, 256}, ElementType::kFloat32, ParamRole::kOutput, false, 0, {}},
      {"ws0", {24, 4096}, ElementType::kUInt8, ParamRole::kWorkspace, true, 4096, {}},
  };
  m.out_idx = {2};
  m.workspace_idx = {3};
  m.block_count = 24;
  m.core_mix = CoreMix::kMixed;
  m.vector_cores_per_block = 2;
  m.on_chip = {65536, 32768, 32768, 65536, 98304};
  PrintRecord printf;
  printf.format = "cid %d\tx %f\n";
  printf.args = {ElementType::kInt64, ElementType::kFloat32};
  PrintRecord dump;
  dump.kind = PrintKind::kDump;
  dump.memory = "ub";
  dump.dtype = ElementType::kFloat16;
  dump.count = 64;
  dump.desc = 111;
  dump.shape = {8, 8};
  m.prints = {printf, dump};
  b.aic.code = SampleCode(6, 0x10);  // five instructions, one of them two words long
  b.aic.line_table = {0, 0, 1, 1, kNoStmt};
  b.aiv.code = SampleCode(3, 0x80);
  b.aiv.line_table = {2, 3, 3};
  b.source.pass_configs = "tl.ascend_auto_sync=true\ntl.ascend_memory_planning=false\n";
  b.source.ir_text = "kernel main\n  (a sample, not parsed by the format)\n";
  return b;
}

// SampleBinary with dynamic shapes: symbols M and N, A [M, 64], B [64, N], C [M, N], a grid of
// ceil(M / 128) blocks and a compiler workspace with one 4096-byte row per block.
inline KernelBinary SampleSymbolicBinary() {
  KernelBinary b = SampleBinary();
  KernelMetadata& m = b.metadata;
  m.symbols = {{"M", 1 << 20}, {"N", 65536}};
  m.params[0].shape = {0, 64};
  m.params[0].dim_symbols = {0, kStaticDim};
  m.params[1].shape = {64, 0};
  m.params[1].dim_symbols = {kStaticDim, 1};
  m.params[2].shape = {0, 0};
  m.params[2].dim_symbols = {0, 1};
  m.params[3].shape = {0, 4096};
  m.params[3].dim_symbols = {kBlockCountDim, kStaticDim};
  m.block_count = 0;
  m.grid = {"s0", "c127", "+", "c128", "//"};
  return b;
}

// The .tilejit.source encoding, spelled out independently of the writer.
inline std::vector<uint8_t> SourceBytes(const KernelSource& s) {
  if (s.ir_text.empty() && s.pass_configs.empty()) return {};
  const auto n = static_cast<uint32_t>(s.pass_configs.size());
  std::vector<uint8_t> out = {static_cast<uint8_t>(n), static_cast<uint8_t>(n >> 8),
                              static_cast<uint8_t>(n >> 16), static_cast<uint8_t>(n >> 24)};
  out.insert(out.end(), s.pass_configs.begin(), s.pass_configs.end());
  out.insert(out.end(), s.ir_text.begin(), s.ir_text.end());
  return out;
}

inline KernelBinary SampleCubeOnlyBinary() {
  KernelBinary b = SampleBinary();
  b.metadata.core_mix = CoreMix::kCubeOnly;
  b.metadata.vector_cores_per_block = 0;
  b.aiv = {};
  return b;
}

// One section of a hand-built image.
struct RawSection {
  std::string name;
  std::vector<uint8_t> data;
  uint32_t type = elf::kShtProgbits;
  uint64_t flags = 0;
  uint64_t align = 1;
};

inline std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

// The sections WriteKernelBinary would emit for `b`, in order, for tests to alter.
inline std::vector<RawSection> StandardSections(const KernelBinary& b) {
  const uint64_t exec = elf::kShfAlloc | elf::kShfExecInstr;
  std::vector<uint8_t> lines;
  AppendLineTable(b.aic.line_table, &lines);
  AppendLineTable(b.aiv.line_table, &lines);
  auto meta = SerializeKernelMetadata(b.metadata);
  return {
      {std::string(kAicCodeSection), b.aic.code, elf::kShtProgbits, exec, 8},
      {std::string(kAivCodeSection), b.aiv.code, elf::kShtProgbits, exec, 8},
      {std::string(kMetadataSection), meta.ok() ? Bytes(*meta) : std::vector<uint8_t>{}},
      {std::string(kLineTableSection), lines},
      {std::string(kSourceSection), SourceBytes(b.source)},
  };
}

// Lays `sections` out as a tilejit ELF image (empty vector if the ELF writer refuses).
inline std::vector<uint8_t> BuildRaw(const std::vector<RawSection>& sections,
                                     uint32_t eflags = kKernelBinaryFormatVersion) {
  std::vector<elf::SectionSpec> specs;
  for (const auto& s : sections) specs.push_back({s.name, s.type, s.flags, s.align, s.data});
  auto image = elf::WriteElfImage(elf::kTypeRel, elf::kMachineTilejitNpu, eflags, specs);
  return image.ok() ? std::move(image).value() : std::vector<uint8_t>{};
}

// Offset of section header `index` within an image.
inline size_t SectionHeaderOffset(const std::vector<uint8_t>& image, size_t index) {
  return static_cast<size_t>(elf::LoadLe(image.data() + 40, 8)) + index * elf::kShdrSize;
}

}  // namespace tilejit::target::testing
