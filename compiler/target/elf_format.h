// SPDX-License-Identifier: Apache-2.0
// ELF64 vocabulary for the tilejit kernel binary: the few constants, header layouts and
// little-endian byte helpers that the ELF image writer and reader need. Defined here rather
// than taken from <elf.h> so that the format does not depend on the host's system headers.
// Only what the kernel binary uses is defined; see docs/binary_format.md for the layout.
// Plain constants and pure functions: no state, safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace tilejit::target::elf {

// e_ident layout and the values tilejit writes (and the only ones it accepts).
inline constexpr size_t kIdentSize = 16;
inline constexpr uint8_t kMagic[4] = {0x7f, 'E', 'L', 'F'};
inline constexpr size_t kIdentClass = 4;
inline constexpr size_t kIdentData = 5;
inline constexpr size_t kIdentVersion = 6;
inline constexpr size_t kIdentOsAbi = 7;
inline constexpr uint8_t kClass64 = 2;         // ELFCLASS64
inline constexpr uint8_t kData2Lsb = 1;        // ELFDATA2LSB: little-endian
inline constexpr uint8_t kVersionCurrent = 1;  // EV_CURRENT (both e_ident and e_version)
inline constexpr uint8_t kOsAbiNone = 0;       // ELFOSABI_NONE

// e_type: tilejit binaries are relocatable-style containers (no program headers, no load
// addresses); the runner places each code section itself.
inline constexpr uint16_t kTypeRel = 1;  // ET_REL

// e_machine: 0x910B, a number outside the registered EM_* range, chosen for the 910B-class
// simulated NPU. readelf shows it as "<unknown>: 0x910b".
inline constexpr uint16_t kMachineTilejitNpu = 0x910B;

// Section header types and flags used by the kernel binary.
inline constexpr uint32_t kShtNull = 0;
inline constexpr uint32_t kShtProgbits = 1;
inline constexpr uint32_t kShtStrtab = 3;
inline constexpr uint64_t kShfAlloc = 0x2;
inline constexpr uint64_t kShfExecInstr = 0x4;

inline constexpr uint16_t kShnUndef = 0;
inline constexpr uint16_t kShnLoReserve = 0xff00;  // section indices at or above are special

// Sizes of the on-disk structures (ELF64).
inline constexpr size_t kEhdrSize = 64;
inline constexpr size_t kShdrSize = 64;

// Elf64_Ehdr without e_ident, in file order after it.
struct FileHeader {
  uint8_t ident[kIdentSize] = {};
  uint16_t type = 0;
  uint16_t machine = 0;
  uint32_t version = 0;
  uint64_t entry = 0;
  uint64_t phoff = 0;
  uint64_t shoff = 0;
  uint32_t flags = 0;
  uint16_t ehsize = 0;
  uint16_t phentsize = 0;
  uint16_t phnum = 0;
  uint16_t shentsize = 0;
  uint16_t shnum = 0;
  uint16_t shstrndx = 0;
};

// Elf64_Shdr.
struct SectionHeader {
  uint32_t name = 0;  // offset into the section name string table
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t addralign = 0;
  uint64_t entsize = 0;
};

// Little-endian stores and loads at `p`; callers guarantee the bytes are in bounds.
inline void StoreLe(uint8_t* p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint64_t LoadLe(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// Encodes `h` into exactly kEhdrSize bytes at `out`.
void EncodeFileHeader(const FileHeader& h, uint8_t* out);
// Decodes kEhdrSize bytes; the caller has checked the length.
FileHeader DecodeFileHeader(std::span<const uint8_t, kEhdrSize> in);

// Encodes `h` into exactly kShdrSize bytes at `out`.
void EncodeSectionHeader(const SectionHeader& h, uint8_t* out);
// Decodes kShdrSize bytes; the caller has checked the length.
SectionHeader DecodeSectionHeader(std::span<const uint8_t, kShdrSize> in);

}  // namespace tilejit::target::elf
