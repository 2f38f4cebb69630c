// SPDX-License-Identifier: Apache-2.0
// The kernel binary on top of the generic ELF container (elf_image.h). The reader validates
// in layers (container, section set, metadata, code, line tables, cross-checks) and then
// re-encodes what it decoded: the file must be byte-identical to that encoding. The specific
// checks give precise messages; the final comparison guarantees that nothing the specific
// checks overlooked (padding, flags, layout) can differ from what the writer produces.
#include "compiler/target/binary.h"

#include <algorithm>
#include <array>
#include <string>

#include "compiler/target/elf_image.h"

namespace tilejit::target {

namespace {

struct SectionRule {
  std::string_view name;
  uint32_t type;
  uint64_t flags;
  uint64_t align;
};

// The sections in file order; the writer emits exactly these and the reader requires them.
constexpr std::array<SectionRule, 5> kSections = {{
    {kAicCodeSection, elf::kShtProgbits, elf::kShfAlloc | elf::kShfExecInstr,
     kInstructionWordBytes},
    {kAivCodeSection, elf::kShtProgbits, elf::kShfAlloc | elf::kShfExecInstr,
     kInstructionWordBytes},
    {kMetadataSection, elf::kShtProgbits, 0, 1},
    {kLineTableSection, elf::kShtProgbits, 0, 1},
    {kSourceSection, elf::kShtProgbits, 0, 1},
}};
enum SectionIndex { kAic = 0, kAiv = 1, kMeta = 2, kLines = 3, kSource = 4 };

// .tilejit.source: the configs' byte count (u32 little-endian), the configs, the IR text.
std::vector<uint8_t> EncodeSource(const KernelSource& source) {
  std::vector<uint8_t> out;
  if (source.ir_text.empty() && source.pass_configs.empty()) return out;
  out.resize(4);
  elf::StoreLe(out.data(), source.pass_configs.size(), 4);
  out.insert(out.end(), source.pass_configs.begin(), source.pass_configs.end());
  out.insert(out.end(), source.ir_text.begin(), source.ir_text.end());
  return out;
}

Result<KernelSource> DecodeSource(std::span<const uint8_t> data) {
  KernelSource source;
  if (data.empty()) return source;
  if (data.size() < 4) return Corruption("source section is shorter than its header");
  const uint64_t n = elf::LoadLe(data.data(), 4);
  if (n > kMaxSourceConfigBytes || n > data.size() - 4) {
    return Corruption("source section's pass configs overrun it");
  }
  const char* bytes = reinterpret_cast<const char*>(data.data());
  source.pass_configs.assign(bytes + 4, n);
  source.ir_text.assign(bytes + 4 + n, data.size() - 4 - n);
  return source;
}

Status CheckCore(const CoreCode& core, std::string_view name, bool used) {
  const std::string where(name);
  if (core.code.size() % kInstructionWordBytes != 0) {
    return InvalidArgument(where + " code is " + std::to_string(core.code.size()) +
                           " bytes, not a whole number of " +
                           std::to_string(kInstructionWordBytes) + "-byte words");
  }
  if (used == core.code.empty()) {
    return InvalidArgument(where + (used ? " code is empty but the core mix uses it"
                                         : " code is present but the core mix does not use it"));
  }
  const size_t words = core.code.size() / kInstructionWordBytes;
  if (core.line_table.size() > words) {
    return InvalidArgument(where + " line table has " + std::to_string(core.line_table.size()) +
                           " entries for " + std::to_string(words) + " code words");
  }
  if (core.line_table.empty() != core.code.empty()) {
    return InvalidArgument(where + " has code but an empty line table");
  }
  return Status::Ok();
}

// Finds each required section by name; rejects unknown ones and wrong types or alignment.
Status MapSections(const elf::ElfImage& image,
                   std::array<std::span<const uint8_t>, kSections.size()>* data) {
  std::array<bool, kSections.size()> found = {};
  for (const auto& s : image.sections) {
    auto rule = std::find_if(kSections.begin(), kSections.end(),
                             [&](const SectionRule& r) { return r.name == s.name; });
    if (rule == kSections.end()) return Corruption("unexpected section '" + s.name + "'");
    if (s.header.type != rule->type || s.header.flags != rule->flags ||
        s.header.addralign != rule->align) {
      return Corruption("section '" + s.name + "' has the wrong type, flags or alignment");
    }
    const size_t i = static_cast<size_t>(rule - kSections.begin());
    found[i] = true;  // duplicates were rejected by the container parser
    (*data)[i] = s.data;
  }
  for (size_t i = 0; i < kSections.size(); ++i) {
    if (!found[i]) return Corruption("missing section '" + std::string(kSections[i].name) + "'");
  }
  return Status::Ok();
}

Result<CoreCode> ReadCore(std::span<const uint8_t> code, std::span<const uint8_t> lines,
                          size_t* pos, std::string_view name) {
  if (code.size() % kInstructionWordBytes != 0) {
    return Corruption("section '" + std::string(name) + "' is " + std::to_string(code.size()) +
                      " bytes, not a whole number of instruction words");
  }
  CoreCode core;
  auto table = DecodeLineTable(lines, pos, code.size() / kInstructionWordBytes);
  if (!table.ok()) return table.status().WithContext(name);
  core.line_table = std::move(table).value();
  core.code.assign(code.begin(), code.end());
  return core;
}

Result<KernelBinary> Decode(std::span<const uint8_t> bytes) {
  TILEJIT_ASSIGN_OR_RETURN(elf::ElfImage image,
                           elf::ParseElfImage(bytes, elf::kTypeRel, elf::kMachineTilejitNpu));
  if (image.header.flags != kKernelBinaryFormatVersion) {
    return InvalidArgument("unsupported kernel binary format version " +
                           std::to_string(image.header.flags) + " (this build reads version " +
                           std::to_string(kKernelBinaryFormatVersion) + ")");
  }
  std::array<std::span<const uint8_t>, kSections.size()> data;
  TILEJIT_RETURN_IF_ERROR(MapSections(image, &data));
  KernelBinary binary;
  const std::string_view meta(reinterpret_cast<const char*>(data[kMeta].data()),
                              data[kMeta].size());
  TILEJIT_ASSIGN_OR_RETURN(binary.metadata, ParseKernelMetadata(meta));
  size_t pos = 0;
  TILEJIT_ASSIGN_OR_RETURN(binary.aic, ReadCore(data[kAic], data[kLines], &pos, "AIC"));
  TILEJIT_ASSIGN_OR_RETURN(binary.aiv, ReadCore(data[kAiv], data[kLines], &pos, "AIV"));
  if (pos != data[kLines].size()) return Corruption("line table section has trailing bytes");
  TILEJIT_ASSIGN_OR_RETURN(binary.source, DecodeSource(data[kSource]));
  const Status valid = ValidateKernelBinary(binary);
  if (!valid.ok()) return Corruption(valid.message());
  return binary;
}

}  // namespace

Status ValidateKernelBinary(const KernelBinary& binary) {
  TILEJIT_RETURN_IF_ERROR(ValidateKernelMetadata(binary.metadata));
  if (binary.source.pass_configs.size() > kMaxSourceConfigBytes) {
    return InvalidArgument("the source's pass configs exceed " +
                           std::to_string(kMaxSourceConfigBytes) + " bytes");
  }
  const CoreMix mix = binary.metadata.core_mix;
  TILEJIT_RETURN_IF_ERROR(CheckCore(binary.aic, "AIC", mix != CoreMix::kVectorOnly));
  return CheckCore(binary.aiv, "AIV", mix != CoreMix::kCubeOnly);
}

Result<std::vector<uint8_t>> WriteKernelBinary(const KernelBinary& binary) {
  TILEJIT_RETURN_IF_ERROR(ValidateKernelBinary(binary));
  TILEJIT_ASSIGN_OR_RETURN(const std::string meta, SerializeKernelMetadata(binary.metadata));
  std::vector<uint8_t> lines;
  AppendLineTable(binary.aic.line_table, &lines);
  AppendLineTable(binary.aiv.line_table, &lines);
  const std::vector<uint8_t> source = EncodeSource(binary.source);
  const std::array<std::span<const uint8_t>, kSections.size()> data = {
      binary.aic.code, binary.aiv.code,
      std::span(reinterpret_cast<const uint8_t*>(meta.data()), meta.size()), lines, source};
  std::vector<elf::SectionSpec> specs;
  for (size_t i = 0; i < kSections.size(); ++i) {
    specs.push_back({std::string(kSections[i].name), kSections[i].type, kSections[i].flags,
                     kSections[i].align, data[i]});
  }
  return elf::WriteElfImage(elf::kTypeRel, elf::kMachineTilejitNpu, kKernelBinaryFormatVersion,
                            specs);
}

Result<KernelBinary> ReadKernelBinary(std::span<const uint8_t> bytes) {
  auto binary = Decode(bytes);
  if (!binary.ok()) return binary.status().WithContext("invalid kernel binary");
  auto canonical = WriteKernelBinary(*binary);
  if (!canonical.ok() ||
      !std::equal(canonical->begin(), canonical->end(), bytes.begin(), bytes.end())) {
    return Corruption("invalid kernel binary: bytes differ from the canonical encoding");
  }
  return binary;
}

}  // namespace tilejit::target
