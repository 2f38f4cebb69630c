// SPDX-License-Identifier: Apache-2.0
#include "tests/compiler/target/isa_test_util.h"

#include <gtest/gtest.h>

namespace tilejit::target::testing {
namespace {

bool IsChoiceField(const FieldInfo& fi) {
  return fi.kind == FieldKind::kPipe || fi.kind == FieldKind::kDType ||
         fi.kind == FieldKind::kCmp || fi.kind == FieldKind::kRound ||
         fi.kind == FieldKind::kAtomic;
}

// Depth-first search over the enum-like fields for a combination Validate accepts.
bool Search(Instr& in, const std::vector<FieldId>& choices, size_t i) {
  if (i == choices.size()) return Validate(in).ok();
  const FieldInfo& fi = GetFieldInfo(choices[i]);
  for (int64_t v = fi.lo; v <= fi.hi; ++v) {
    SetField(in, fi.id, FieldValue{0, v});
    if (Search(in, choices, i + 1)) return true;
  }
  return false;
}

int64_t MaxImm(int bits) { return bits >= 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1; }
int64_t MinImm(int bits) { return bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1)); }

}  // namespace

Instr ValidBase(Opcode op) {
  Instr in;
  in.op = op;
  std::vector<FieldId> choices;
  for (FieldId f : GetOpcodeInfo(op).fields) {
    const FieldInfo& fi = GetFieldInfo(f);
    if (IsChoiceField(fi)) {
      choices.push_back(f);
    } else if (fi.kind == FieldKind::kReg) {
      SetField(in, f, FieldValue{1, 0});
    } else {
      SetField(in, f, FieldValue{0, fi.lo < 0 ? 0 : fi.lo});
    }
  }
  EXPECT_TRUE(Search(in, choices, 0)) << "no valid instance of " << OpcodeName(op);
  return in;
}

std::vector<Instr> BoundaryVariants(Opcode op) {
  const Instr base = ValidBase(op);
  std::vector<Instr> out = {base};
  auto add = [&](FieldId f, FieldValue v) {
    Instr in = base;
    SetField(in, f, v);
    in.line = 0xffffffffu;
    if (Validate(in).ok()) out.push_back(in);
  };
  for (FieldId f : GetOpcodeInfo(op).fields) {
    const FieldInfo& fi = GetFieldInfo(f);
    switch (fi.kind) {
      case FieldKind::kReg:
        add(f, {0, 0});
        add(f, {kNumRegs - 1, 0});
        break;
      case FieldKind::kOpnd:
        add(f, {0, fi.lo});
        add(f, {0, std::min(fi.hi, MaxImm(fi.imm_bits))});
        add(f, {kNumRegs - 1, MinImm(fi.imm_bits)});
        add(f, {kNumRegs - 1, MaxImm(fi.imm_bits)});
        break;
      default:
        add(f, {0, fi.lo});
        add(f, {0, fi.hi});
        break;
    }
  }
  return out;
}

}  // namespace tilejit::target::testing
