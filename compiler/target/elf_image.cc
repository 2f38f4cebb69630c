// SPDX-License-Identifier: Apache-2.0
// The writer zero-fills the whole image before copying anything in, so padding between
// sections is always zero and the output is a pure function of the inputs. The reader
// checks every length and offset with overflow-safe arithmetic before it forms a pointer,
// because its input may be anything (a truncated cache blob, a fuzzer's bytes).
#include "compiler/target/elf_image.h"

#include <algorithm>
#include <set>
#include <string_view>

namespace tilejit::target::elf {

namespace {

constexpr std::string_view kShstrtabName = ".shstrtab";

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
uint64_t AlignUp(uint64_t v, uint64_t align) { return (v + align - 1) / align * align; }

Status CheckSpecs(std::span<const SectionSpec> sections) {
  if (sections.size() + 2 > kMaxSections) return InvalidArgument("too many ELF sections");
  std::set<std::string_view> names;
  for (const auto& s : sections) {
    if (s.name.empty() || s.name.find('\0') != std::string::npos || s.name == kShstrtabName) {
      return InvalidArgument("bad ELF section name '" + s.name + "'");
    }
    if (!names.insert(s.name).second) {
      return InvalidArgument("duplicate ELF section name '" + s.name + "'");
    }
    if (!IsPowerOfTwo(s.align) || s.align > kMaxAlign) {
      return InvalidArgument("bad alignment for ELF section '" + s.name + "'");
    }
    if (s.type == kShtNull) return InvalidArgument("ELF section '" + s.name + "' has type NULL");
  }
  return Status::Ok();
}

FileHeader MakeFileHeader(uint16_t type, uint16_t machine, uint32_t flags) {
  FileHeader h;
  std::copy(std::begin(kMagic), std::end(kMagic), h.ident);
  h.ident[kIdentClass] = kClass64;
  h.ident[kIdentData] = kData2Lsb;
  h.ident[kIdentVersion] = kVersionCurrent;
  h.ident[kIdentOsAbi] = kOsAbiNone;
  h.type = type;
  h.machine = machine;
  h.version = kVersionCurrent;
  h.flags = flags;
  h.ehsize = kEhdrSize;
  h.shentsize = kShdrSize;
  return h;
}

// Where everything goes: one header per section (null first, .shstrtab last), the name
// table's bytes, and the offset of the section header table.
struct Layout {
  std::vector<SectionHeader> headers;
  std::vector<uint8_t> strtab = {0};
  FileHeader file;
  uint64_t total = 0;
};

Status TooLarge() {
  return InvalidArgument("kernel binary would exceed " + std::to_string(kMaxImageBytes) + " bytes");
}

Result<Layout> LayOut(std::span<const SectionSpec> sections) {
  Layout l;
  l.headers.resize(sections.size() + 2);
  uint64_t cursor = kEhdrSize;
  for (size_t i = 0; i < sections.size(); ++i) {
    const SectionSpec& s = sections[i];
    SectionHeader& h = l.headers[i + 1];
    h.name = static_cast<uint32_t>(l.strtab.size());
    l.strtab.insert(l.strtab.end(), s.name.begin(), s.name.end());
    l.strtab.push_back(0);
    h.type = s.type;
    h.flags = s.flags;
    h.addralign = s.align;
    h.offset = AlignUp(cursor, s.align);
    h.size = s.data.size();
    if (h.size > kMaxImageBytes || h.offset + h.size > kMaxImageBytes) return TooLarge();
    cursor = h.offset + h.size;
  }
  SectionHeader& names = l.headers.back();
  names.name = static_cast<uint32_t>(l.strtab.size());
  l.strtab.insert(l.strtab.end(), kShstrtabName.begin(), kShstrtabName.end());
  l.strtab.push_back(0);
  names.type = kShtStrtab;
  names.addralign = 1;
  names.offset = cursor;
  names.size = l.strtab.size();
  l.file.shoff = AlignUp(cursor + l.strtab.size(), 8);
  l.file.shnum = static_cast<uint16_t>(l.headers.size());
  l.file.shstrndx = static_cast<uint16_t>(l.headers.size() - 1);
  l.total = l.file.shoff + l.headers.size() * kShdrSize;
  if (l.total > kMaxImageBytes) return TooLarge();
  return l;
}

}  // namespace

Result<std::vector<uint8_t>> WriteElfImage(uint16_t type, uint16_t machine, uint32_t flags,
                                           std::span<const SectionSpec> sections) {
  TILEJIT_RETURN_IF_ERROR(CheckSpecs(sections));
  TILEJIT_ASSIGN_OR_RETURN(Layout l, LayOut(sections));
  FileHeader fh = MakeFileHeader(type, machine, flags);
  fh.shoff = l.file.shoff;
  fh.shnum = l.file.shnum;
  fh.shstrndx = l.file.shstrndx;

  std::vector<uint8_t> out(l.total, 0);
  EncodeFileHeader(fh, out.data());
  for (size_t i = 0; i < sections.size(); ++i) {
    std::copy(sections[i].data.begin(), sections[i].data.end(),
              out.begin() + static_cast<ptrdiff_t>(l.headers[i + 1].offset));
  }
  std::copy(l.strtab.begin(), l.strtab.end(),
            out.begin() + static_cast<ptrdiff_t>(l.headers.back().offset));
  for (size_t i = 0; i < l.headers.size(); ++i) {
    EncodeSectionHeader(l.headers[i], out.data() + fh.shoff + i * kShdrSize);
  }
  return out;
}

}  // namespace tilejit::target::elf
