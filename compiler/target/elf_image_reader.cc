// SPDX-License-Identifier: Apache-2.0
// ParseElfImage: validation of untrusted ELF bytes. Every offset and size is checked with
// subtraction against the remaining length (never `offset + size <= n`, which can wrap)
// before any pointer into the buffer is formed. Checks run from the outside in (file size,
// identification, file header, header table, section extents, names) so that each message
// names the first thing that is wrong.
#include <algorithm>
#include <set>
#include <string_view>

#include "compiler/target/elf_image.h"

namespace tilejit::target::elf {

namespace {

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// True if [offset, offset + size) lies within a buffer of `total` bytes.
bool InBounds(uint64_t offset, uint64_t size, uint64_t total) {
  return offset <= total && size <= total - offset;
}

Status CheckIdent(const FileHeader& h) {
  if (!std::equal(std::begin(kMagic), std::end(kMagic), h.ident)) {
    return Corruption("not an ELF file (bad magic)");
  }
  if (h.ident[kIdentClass] != kClass64) {
    return InvalidArgument("ELF class " + std::to_string(h.ident[kIdentClass]) +
                           " is not supported (kernel binaries are 64-bit)");
  }
  if (h.ident[kIdentData] != kData2Lsb) {
    return InvalidArgument("ELF data encoding " + std::to_string(h.ident[kIdentData]) +
                           " is not supported (kernel binaries are little-endian)");
  }
  if (h.ident[kIdentVersion] != kVersionCurrent || h.version != kVersionCurrent) {
    return InvalidArgument("ELF version is not supported (need version 1)");
  }
  if (h.ident[kIdentOsAbi] != kOsAbiNone ||
      !std::all_of(h.ident + kIdentOsAbi + 1, h.ident + kIdentSize, [](uint8_t b) { return !b; })) {
    return Corruption("ELF identification has a non-zero OS ABI or padding byte");
  }
  return Status::Ok();
}

Status CheckFileHeader(const FileHeader& h, uint16_t type, uint16_t machine, uint64_t total) {
  if (h.type != type) {
    return InvalidArgument("ELF type " + std::to_string(h.type) + " is not supported (need " +
                           std::to_string(type) + ")");
  }
  if (h.machine != machine) {
    return InvalidArgument("ELF machine " + std::to_string(h.machine) +
                           " is not the tilejit NPU (" + std::to_string(machine) + ")");
  }
  if (h.entry != 0 || h.phoff != 0 || h.phnum != 0 || h.phentsize != 0) {
    return Corruption("ELF header has an entry point or program headers");
  }
  if (h.ehsize != kEhdrSize || h.shentsize != kShdrSize) {
    return Corruption("ELF header or section header size is wrong");
  }
  if (h.shnum < 2 || h.shnum > kMaxSections) {
    return Corruption("ELF section count " + std::to_string(h.shnum) + " is out of range");
  }
  if (h.shstrndx == kShnUndef || h.shstrndx >= h.shnum) {
    return Corruption("ELF section name table index " + std::to_string(h.shstrndx) +
                      " is out of range");
  }
  if (h.shoff % 8 != 0 || h.shoff < kEhdrSize) {
    return Corruption("ELF section header table offset is misaligned or inside the header");
  }
  if (!InBounds(h.shoff, uint64_t{h.shnum} * kShdrSize, total)) {
    return Corruption("ELF section header table extends past the end of the file (truncated?)");
  }
  return Status::Ok();
}

Status CheckSectionExtent(const SectionHeader& s, size_t index, uint64_t total) {
  const std::string where = "ELF section " + std::to_string(index);
  if (s.type == kShtNull) return Corruption(where + " has type NULL");
  if (s.addr != 0 || s.link != 0 || s.info != 0 || s.entsize != 0) {
    return Corruption(where + " has a non-zero address, link, info or entry size");
  }
  if ((s.addralign != 0 && !IsPowerOfTwo(s.addralign)) || s.addralign > kMaxAlign) {
    return Corruption(where + " has a bad alignment");
  }
  if (s.addralign > 1 && s.offset % s.addralign != 0) {
    return Corruption(where + " is misaligned");
  }
  if (s.offset < kEhdrSize) return Corruption(where + " overlaps the ELF header");
  if (!InBounds(s.offset, s.size, total)) {
    return Corruption(where + " extends past the end of the file (truncated?)");
  }
  return Status::Ok();
}

// No two non-empty sections, nor a section and the header table, may share a byte.
Status CheckNoOverlap(const std::vector<SectionHeader>& headers, const FileHeader& fh) {
  std::vector<std::pair<uint64_t, uint64_t>> extents;  // [begin, end)
  extents.emplace_back(fh.shoff, fh.shoff + uint64_t{fh.shnum} * kShdrSize);
  for (size_t i = 1; i < headers.size(); ++i) {
    if (headers[i].size != 0) {
      extents.emplace_back(headers[i].offset, headers[i].offset + headers[i].size);
    }
  }
  std::sort(extents.begin(), extents.end());
  for (size_t i = 1; i < extents.size(); ++i) {
    if (extents[i].first < extents[i - 1].second) {
      return Corruption("ELF sections overlap at offset " + std::to_string(extents[i].first));
    }
  }
  return Status::Ok();
}

Status ReadNames(std::span<const uint8_t> file, const FileHeader& fh,
                 const std::vector<SectionHeader>& headers, ElfImage* image) {
  const SectionHeader& st = headers[fh.shstrndx];
  if (st.type != kShtStrtab) return Corruption("ELF section name table is not a string table");
  const auto table = file.subspan(st.offset, st.size);
  if (table.empty() || table.front() != 0 || table.back() != 0) {
    return Corruption("ELF section name table is empty or not NUL-delimited");
  }
  const std::string_view chars(reinterpret_cast<const char*>(table.data()), table.size());
  std::set<std::string> seen;
  for (size_t i = 1; i < headers.size(); ++i) {
    if (headers[i].name >= table.size()) {
      return Corruption("ELF section " + std::to_string(i) + " name is out of range");
    }
    // The table ends in NUL, so find() always succeeds.
    const std::string name(
        chars.substr(headers[i].name, chars.find('\0', headers[i].name) - headers[i].name));
    if (name.empty()) return Corruption("ELF section " + std::to_string(i) + " has no name");
    if (!seen.insert(name).second) return Corruption("duplicate ELF section '" + name + "'");
    if (i == fh.shstrndx) {
      if (name != ".shstrtab") return Corruption("ELF section name table is misnamed");
      continue;
    }
    image->sections.push_back({name, headers[i], file.subspan(headers[i].offset, headers[i].size)});
  }
  return Status::Ok();
}

}  // namespace

Result<ElfImage> ParseElfImage(std::span<const uint8_t> file, uint16_t type, uint16_t machine) {
  if (file.size() > kMaxImageBytes) {
    return Corruption("kernel binary is " + std::to_string(file.size()) + " bytes, over the " +
                      std::to_string(kMaxImageBytes) + "-byte limit");
  }
  if (file.size() < kEhdrSize) {
    return Corruption("truncated: " + std::to_string(file.size()) +
                      " bytes is smaller than an ELF header");
  }
  ElfImage image;
  image.header = DecodeFileHeader(file.first<kEhdrSize>());
  const FileHeader& fh = image.header;
  TILEJIT_RETURN_IF_ERROR(CheckIdent(fh));
  TILEJIT_RETURN_IF_ERROR(CheckFileHeader(fh, type, machine, file.size()));
  std::vector<SectionHeader> headers;
  for (size_t i = 0; i < fh.shnum; ++i) {
    headers.push_back(
        DecodeSectionHeader(file.subspan(fh.shoff + i * kShdrSize).first<kShdrSize>()));
  }
  const auto null_entry = file.subspan(fh.shoff, kShdrSize);
  if (!std::all_of(null_entry.begin(), null_entry.end(), [](uint8_t b) { return b == 0; })) {
    return Corruption("ELF section 0 is not the null section");
  }
  for (size_t i = 1; i < headers.size(); ++i) {
    TILEJIT_RETURN_IF_ERROR(CheckSectionExtent(headers[i], i, file.size()));
  }
  TILEJIT_RETURN_IF_ERROR(CheckNoOverlap(headers, fh));
  TILEJIT_RETURN_IF_ERROR(ReadNames(file, fh, headers, &image));
  return image;
}

}  // namespace tilejit::target::elf
