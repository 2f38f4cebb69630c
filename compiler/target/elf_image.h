// SPDX-License-Identifier: Apache-2.0
// A minimal ELF64 little-endian container: named sections and nothing else (no program
// headers, symbols or relocations). WriteElfImage lays sections out deterministically;
// ParseElfImage validates the container structure of untrusted bytes. The kernel binary
// (binary.h) gives the sections their meaning. Pure functions: thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "compiler/target/elf_format.h"

namespace tilejit::target::elf {

// Largest file either function handles.
inline constexpr uint64_t kMaxImageBytes = uint64_t{256} << 20;  // 256 MiB
// Largest number of section headers accepted, including the null section and .shstrtab.
inline constexpr uint16_t kMaxSections = 32;
// Largest sh_addralign accepted.
inline constexpr uint64_t kMaxAlign = 4096;

// One section to write. `data` is borrowed for the duration of the call.
struct SectionSpec {
  std::string name;  // non-empty, no NUL, unique
  uint32_t type = kShtProgbits;
  uint64_t flags = 0;
  uint64_t align = 1;  // a power of two <= kMaxAlign
  std::span<const uint8_t> data;
};

// Writes: the ELF header; each section's data in the given order, at the next multiple of its
// alignment, gaps zero-filled; the section name table (.shstrtab, last section); the section
// header table (null section first, then the given sections, then .shstrtab), 8-aligned.
// `type` is the ELF e_type, `flags` goes to e_flags. kInvalidArgument on bad specs or if the
// image would exceed kMaxImageBytes.
Result<std::vector<uint8_t>> WriteElfImage(uint16_t type, uint16_t machine, uint32_t flags,
                                           std::span<const SectionSpec> sections);

// A section of a parsed image; `data` points into the caller's buffer.
struct SectionView {
  std::string name;
  SectionHeader header;
  std::span<const uint8_t> data;
};

struct ElfImage {
  FileHeader header;
  std::vector<SectionView> sections;  // in header order, without the null section and .shstrtab
};

// Validates the container and returns views into `file`, which must outlive the result.
// kInvalidArgument when the bytes are a well-formed ELF file of another kind (32-bit,
// big-endian, other ELF version, other e_type or e_machine than `type`/`machine`);
// kCorruption for everything else: truncation, size above kMaxImageBytes, bad magic, header
// fields with values the writer never produces, section headers out of range, misaligned or
// overlapping (with each other, the ELF header or the header table), a bad or missing name
// table, empty or duplicate section names.
Result<ElfImage> ParseElfImage(std::span<const uint8_t> file, uint16_t type, uint16_t machine);

}  // namespace tilejit::target::elf
