// SPDX-License-Identifier: Apache-2.0
// Generating the field and opcode tables keeps docs/isa.md from drifting from isa.def: widths
// and ranges are stated once, in the .def, and rendered here.
#include "compiler/target/isa_doc.h"

#include <cstdint>
#include <string>

#include "compiler/target/isa.h"

namespace tilejit::target {
namespace {

std::string_view KindName(FieldKind k) {
  switch (k) {
    case FieldKind::kReg:
      return "Reg";
    case FieldKind::kOpnd:
      return "Opnd";
    case FieldKind::kImm:
      return "Imm";
    case FieldKind::kPipe:
      return "Pipe";
    case FieldKind::kDType:
      return "DType";
    case FieldKind::kCmp:
      return "Cmp";
    case FieldKind::kRound:
      return "Round";
    case FieldKind::kAtomic:
      return "Atomic";
  }
  return "?";
}

std::string_view UnitName(Unit u) {
  constexpr std::string_view kNames[] = {"s", "v", "m", "mte1", "mte2", "mte3", "fix", "operand"};
  return kNames[static_cast<int>(u)];
}

std::string_view CoresName(Cores c) {
  return c == Cores::kAic ? "AIC" : c == Cores::kAiv ? "AIV" : "both";
}

std::string Bound(int64_t v) {
  if (v == INT64_MAX) return "max";
  if (v == INT64_MIN) return "min";
  return std::to_string(v);
}

std::string Bits(const FieldInfo& fi) {
  return fi.kind == FieldKind::kOpnd ? "5+" + std::to_string(fi.imm_bits)
                                     : std::to_string(fi.imm_bits);
}

}  // namespace

std::string IsaReferenceMarkdown() {
  std::string out =
      "### Fields\n\n| field | kind | bits | range | meaning |\n|---|---|---|---|---|\n";
  for (int i = 0; i < kNumFields; ++i) {
    const FieldInfo& fi = GetFieldInfo(static_cast<FieldId>(i));
    out += "| " + std::string(fi.name) + " | " + std::string(KindName(fi.kind)) + " | " + Bits(fi) +
           " | [" + Bound(fi.lo) + ", " + Bound(fi.hi) + "] | " + std::string(fi.doc) + " |\n";
  }
  out += "\n### Opcodes\n\n| # | mnemonic | unit | cores | payload words | fields |\n";
  out += "|---|---|---|---|---|---|\n";
  for (int i = 0; i < kNumOpcodes; ++i) {
    const OpcodeInfo& info = GetOpcodeInfo(static_cast<Opcode>(i));
    std::string fields;
    for (FieldId f : info.fields) {
      fields += (fields.empty() ? "" : ", ") + std::string(GetFieldInfo(f).name);
    }
    out += "| " + std::to_string(i) + " | " + std::string(info.mnemonic) + " | " +
           std::string(UnitName(info.unit)) + " | " + std::string(CoresName(info.cores)) + " | " +
           std::to_string(PayloadWords(info.op)) + " | " + fields + " |\n";
  }
  return out;
}

}  // namespace tilejit::target
