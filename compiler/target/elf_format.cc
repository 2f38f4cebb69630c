// SPDX-License-Identifier: Apache-2.0
// Field-by-field (de)serialisation: never memcpy of structs, so neither host padding nor host
// byte order can leak into the file.
#include "compiler/target/elf_format.h"

#include <algorithm>

namespace tilejit::target::elf {

void EncodeFileHeader(const FileHeader& h, uint8_t* out) {
  std::copy(std::begin(h.ident), std::end(h.ident), out);
  StoreLe(out + 16, h.type, 2);
  StoreLe(out + 18, h.machine, 2);
  StoreLe(out + 20, h.version, 4);
  StoreLe(out + 24, h.entry, 8);
  StoreLe(out + 32, h.phoff, 8);
  StoreLe(out + 40, h.shoff, 8);
  StoreLe(out + 48, h.flags, 4);
  StoreLe(out + 52, h.ehsize, 2);
  StoreLe(out + 54, h.phentsize, 2);
  StoreLe(out + 56, h.phnum, 2);
  StoreLe(out + 58, h.shentsize, 2);
  StoreLe(out + 60, h.shnum, 2);
  StoreLe(out + 62, h.shstrndx, 2);
}

FileHeader DecodeFileHeader(std::span<const uint8_t, kEhdrSize> in) {
  const uint8_t* p = in.data();
  FileHeader h;
  std::copy(p, p + kIdentSize, h.ident);
  h.type = static_cast<uint16_t>(LoadLe(p + 16, 2));
  h.machine = static_cast<uint16_t>(LoadLe(p + 18, 2));
  h.version = static_cast<uint32_t>(LoadLe(p + 20, 4));
  h.entry = LoadLe(p + 24, 8);
  h.phoff = LoadLe(p + 32, 8);
  h.shoff = LoadLe(p + 40, 8);
  h.flags = static_cast<uint32_t>(LoadLe(p + 48, 4));
  h.ehsize = static_cast<uint16_t>(LoadLe(p + 52, 2));
  h.phentsize = static_cast<uint16_t>(LoadLe(p + 54, 2));
  h.phnum = static_cast<uint16_t>(LoadLe(p + 56, 2));
  h.shentsize = static_cast<uint16_t>(LoadLe(p + 58, 2));
  h.shnum = static_cast<uint16_t>(LoadLe(p + 60, 2));
  h.shstrndx = static_cast<uint16_t>(LoadLe(p + 62, 2));
  return h;
}

void EncodeSectionHeader(const SectionHeader& h, uint8_t* out) {
  StoreLe(out + 0, h.name, 4);
  StoreLe(out + 4, h.type, 4);
  StoreLe(out + 8, h.flags, 8);
  StoreLe(out + 16, h.addr, 8);
  StoreLe(out + 24, h.offset, 8);
  StoreLe(out + 32, h.size, 8);
  StoreLe(out + 40, h.link, 4);
  StoreLe(out + 44, h.info, 4);
  StoreLe(out + 48, h.addralign, 8);
  StoreLe(out + 56, h.entsize, 8);
}

SectionHeader DecodeSectionHeader(std::span<const uint8_t, kShdrSize> in) {
  const uint8_t* p = in.data();
  SectionHeader h;
  h.name = static_cast<uint32_t>(LoadLe(p + 0, 4));
  h.type = static_cast<uint32_t>(LoadLe(p + 4, 4));
  h.flags = LoadLe(p + 8, 8);
  h.addr = LoadLe(p + 16, 8);
  h.offset = LoadLe(p + 24, 8);
  h.size = LoadLe(p + 32, 8);
  h.link = static_cast<uint32_t>(LoadLe(p + 40, 4));
  h.info = static_cast<uint32_t>(LoadLe(p + 44, 4));
  h.addralign = LoadLe(p + 48, 8);
  h.entsize = LoadLe(p + 56, 8);
  return h;
}

}  // namespace tilejit::target::elf
