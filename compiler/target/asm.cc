// SPDX-License-Identifier: Apache-2.0
// The assembler is a small hand-written line parser driven by the field tables of isa.def:
// named operands make the syntax independent of field order, so appending a field to an
// opcode never silently shifts the meaning of existing assembly.
#include "compiler/target/asm.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <string>

#include "compiler/target/line_table.h"

namespace tilejit::target {
namespace {

constexpr std::string_view kCmpNames[] = {"eq", "ne", "lt", "le", "gt", "ge"};
constexpr std::string_view kRoundNames[] = {"rint", "round", "floor", "ceil", "trunc", "odd"};
constexpr std::string_view kAtomicNames[] = {"none", "add", "max", "min"};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool IsIdent(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return false;
  }
  return true;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  uint64_t u = 0;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), u, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  if (base == 10 && u > (neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1)) return std::nullopt;
  const int64_t v = static_cast<int64_t>(u);
  return neg ? static_cast<int64_t>(0 - u) : v;
}

std::optional<uint8_t> ParseReg(std::string_view s) {
  if (s.size() < 2 || s[0] != 'r') return std::nullopt;
  std::optional<int64_t> n = ParseInt(s.substr(1));
  if (!n || *n < 0 || *n >= kNumRegs || !std::isdigit(static_cast<unsigned char>(s[1]))) {
    return std::nullopt;
  }
  return static_cast<uint8_t>(*n);
}

std::optional<FieldValue> ParseOpnd(std::string_view s) {
  if (std::optional<int64_t> v = ParseInt(s)) return FieldValue{0, *v};
  const size_t op = s.find_first_of("+-", 1);
  std::optional<uint8_t> reg = ParseReg(op == std::string_view::npos ? s : s.substr(0, op));
  if (!reg) return std::nullopt;
  if (op == std::string_view::npos) return FieldValue{*reg, 0};
  std::optional<int64_t> imm = ParseInt(s.substr(op));
  if (!imm) return std::nullopt;
  return FieldValue{*reg, *imm};
}

template <size_t N>
std::optional<int64_t> ParseName(std::string_view s, const std::string_view (&names)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == s) return static_cast<int64_t>(i);
  }
  return std::nullopt;
}

std::optional<FieldValue> ParseValue(const FieldInfo& fi, std::string_view s) {
  auto imm = [](std::optional<int64_t> v) -> std::optional<FieldValue> {
    if (!v) return std::nullopt;
    return FieldValue{0, *v};
  };
  switch (fi.kind) {
    case FieldKind::kReg: {
      std::optional<uint8_t> r = ParseReg(s);
      if (!r) return std::nullopt;
      return FieldValue{*r, 0};
    }
    case FieldKind::kOpnd:
      return ParseOpnd(s);
    case FieldKind::kImm:
      return imm(ParseInt(s));
    case FieldKind::kPipe: {
      std::optional<Pipe> p = ParsePipe(s);
      if (!p) return std::nullopt;
      return FieldValue{0, static_cast<int64_t>(*p)};
    }
    case FieldKind::kDType: {
      std::optional<DType> d = ParseDType(s);
      if (!d) return std::nullopt;
      return FieldValue{0, static_cast<int64_t>(*d)};
    }
    case FieldKind::kCmp:
      return imm(ParseName(s, kCmpNames));
    case FieldKind::kRound:
      return imm(ParseName(s, kRoundNames));
    case FieldKind::kAtomic:
      return imm(ParseName(s, kAtomicNames));
  }
  return std::nullopt;
}

std::string FormatValue(const FieldInfo& fi, const FieldValue& v) {
  auto name = [](auto& names, int64_t i) {
    return i >= 0 && static_cast<size_t>(i) < std::size(names) ? std::string(names[i])
                                                               : std::to_string(i);
  };
  switch (fi.kind) {
    case FieldKind::kReg:
      return "r" + std::to_string(v.reg);
    case FieldKind::kOpnd:
      if (v.reg == 0) return std::to_string(v.imm);
      if (v.imm == 0) return "r" + std::to_string(v.reg);
      return "r" + std::to_string(v.reg) + (v.imm > 0 ? "+" : "") + std::to_string(v.imm);
    case FieldKind::kImm:
      return std::to_string(v.imm);
    case FieldKind::kPipe:
      return std::string(PipeName(static_cast<Pipe>(v.imm)));
    case FieldKind::kDType:
      return std::string(DTypeName(static_cast<DType>(v.imm)));
    case FieldKind::kCmp:
      return name(kCmpNames, v.imm);
    case FieldKind::kRound:
      return name(kRoundNames, v.imm);
    case FieldKind::kAtomic:
      return name(kAtomicNames, v.imm);
  }
  return "?";
}

std::optional<FieldId> FindField(std::string_view name) {
  for (int i = 0; i < kNumFields; ++i) {
    if (GetFieldInfo(static_cast<FieldId>(i)).name == name) return static_cast<FieldId>(i);
  }
  return std::nullopt;
}

// A parsed line: the instruction plus an unresolved branch label, if any.
struct ParsedLine {
  Instr instr;
  std::string label_ref;
};

Status ParseOperand(std::string_view item, ParsedLine& out, std::vector<FieldId>& seen) {
  const size_t eq = item.find('=');
  if (eq == std::string_view::npos) {
    return InvalidArgument("operand '" + std::string(item) + "' is not of the form field=value");
  }
  const std::string_view key = Trim(item.substr(0, eq));
  const std::string_view val = Trim(item.substr(eq + 1));
  const std::optional<FieldId> f = FindField(key);
  const std::string_view mn = OpcodeName(out.instr.op);
  if (!f || !UsesField(out.instr.op, *f)) {
    return InvalidArgument(std::string(mn) + " has no operand '" + std::string(key) + "'");
  }
  if (std::find(seen.begin(), seen.end(), *f) != seen.end()) {
    return InvalidArgument("operand '" + std::string(key) + "' given twice");
  }
  seen.push_back(*f);
  const FieldInfo& fi = GetFieldInfo(*f);
  if (*f == FieldId::off && !val.empty() && IsIdent(val)) {
    out.label_ref = std::string(val);
    return Status::Ok();
  }
  std::optional<FieldValue> v = ParseValue(fi, val);
  if (!v) {
    return InvalidArgument("bad value '" + std::string(val) + "' for operand '" + std::string(key) +
                           "'");
  }
  SetField(out.instr, *f, *v);
  return Status::Ok();
}

Result<ParsedLine> ParseLine(std::string_view text) {
  ParsedLine out;
  if (const size_t at = text.rfind('@'); at != std::string_view::npos) {
    std::optional<int64_t> line = ParseInt(Trim(text.substr(at + 1)));
    if (!line || *line < 0 || *line > int64_t{UINT32_MAX}) {
      return InvalidArgument("bad line-table index '" + std::string(text.substr(at + 1)) + "'");
    }
    out.instr.line = static_cast<uint32_t>(*line);
    text = Trim(text.substr(0, at));
  }
  const size_t sp = text.find_first_of(" \t");
  const std::string_view mn = text.substr(0, sp);
  std::optional<Opcode> op = ParseOpcode(mn);
  if (!op) return InvalidArgument("unknown mnemonic '" + std::string(mn) + "'");
  out.instr.op = *op;
  std::vector<FieldId> seen;
  std::string_view rest = sp == std::string_view::npos ? "" : Trim(text.substr(sp));
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    TILEJIT_RETURN_IF_ERROR(ParseOperand(Trim(rest.substr(0, comma)), out, seen));
    rest = comma == std::string_view::npos ? "" : Trim(rest.substr(comma + 1));
  }
  for (FieldId f : GetOpcodeInfo(*op).fields) {
    if (std::find(seen.begin(), seen.end(), f) == seen.end()) {
      return InvalidArgument(std::string(mn) + ": missing operand '" +
                             std::string(GetFieldInfo(f).name) + "'");
    }
  }
  return out;
}

std::string_view StripComment(std::string_view line) {
  const size_t c = line.find_first_of(";#");
  return Trim(c == std::string_view::npos ? line : line.substr(0, c));
}

Status AtLine(size_t line_no, const Status& s) {
  return InvalidArgument("line " + std::to_string(line_no) + ": " + s.message());
}

}  // namespace

Result<std::vector<Instr>> Assemble(std::string_view text) {
  std::vector<ParsedLine> parsed;
  std::vector<size_t> line_of;
  std::map<std::string, int64_t, std::less<>> labels;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = StripComment(text.substr(0, nl));
    text = nl == std::string_view::npos ? "" : text.substr(nl + 1);
    ++line_no;
    if (const size_t colon = line.find(':');
        colon != std::string_view::npos && IsIdent(Trim(line.substr(0, colon)))) {
      const std::string name(Trim(line.substr(0, colon)));
      if (!labels.emplace(name, static_cast<int64_t>(parsed.size())).second) {
        return AtLine(line_no, InvalidArgument("label '" + name + "' defined twice"));
      }
      line = Trim(line.substr(colon + 1));
    }
    if (line.empty()) continue;
    Result<ParsedLine> p = ParseLine(line);
    if (!p.ok()) return AtLine(line_no, p.status());
    parsed.push_back(p.value());
    line_of.push_back(line_no);
  }
  std::vector<Instr> program;
  for (size_t i = 0; i < parsed.size(); ++i) {
    Instr in = parsed[i].instr;
    if (!parsed[i].label_ref.empty()) {
      auto it = labels.find(parsed[i].label_ref);
      if (it == labels.end()) {
        return AtLine(line_of[i], InvalidArgument("unknown label '" + parsed[i].label_ref + "'"));
      }
      in.off = it->second - static_cast<int64_t>(i);
    }
    if (Status s = Validate(in); !s.ok()) return AtLine(line_of[i], s);
    program.push_back(in);
  }
  return program;
}

Result<Instr> AssembleInstr(std::string_view line) {
  Result<ParsedLine> p = ParseLine(StripComment(line));
  if (!p.ok()) return p.status();
  if (!p.value().label_ref.empty()) {
    return InvalidArgument("label '" + p.value().label_ref + "' needs a whole program");
  }
  TILEJIT_RETURN_IF_ERROR(Validate(p.value().instr));
  return p.value().instr;
}

std::string Disassemble(const Instr& in) {
  std::string out(OpcodeName(in.op));
  bool first = true;
  for (FieldId f : GetOpcodeInfo(in.op).fields) {
    const FieldInfo& fi = GetFieldInfo(f);
    out += first ? " " : ", ";
    first = false;
    out += std::string(fi.name) + "=" + FormatValue(fi, GetField(in, f));
  }
  if (in.line != 0) out += " @" + std::to_string(in.line);
  return out;
}

std::string DisassembleProgram(std::span<const Instr> program) {
  std::string out;
  for (const Instr& in : program) out += Disassemble(in) + "\n";
  return out;
}

std::string ListProgram(std::string_view core, std::span<const Instr> program,
                        std::span<const uint32_t> lines, const StmtCommentFn& comment) {
  if (program.empty()) return "";
  std::string out = std::string(core) + ":\n";
  bool first = true;
  uint32_t last = kNoStmt;
  for (size_t i = 0; i < program.size(); ++i) {
    const uint32_t stmt = i < lines.size() ? lines[i] : kNoStmt;
    if (first || stmt != last) out += "  ; " + comment(stmt) + "\n";
    first = false;
    last = stmt;
    out += "  " + std::to_string(i) + ":\t" + Disassemble(program[i]) + "\n";
  }
  return out;
}

}  // namespace tilejit::target
