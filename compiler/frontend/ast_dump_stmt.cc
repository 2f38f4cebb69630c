// SPDX-License-Identifier: Apache-2.0
// Statement half of ast_dump.h. Blocks use 4-space indentation; an elif chain prints as
// nested if/else, which parses back to the same tree.
#include <string>

#include "compiler/frontend/ast_dump.h"

namespace tilejit::frontend {
namespace {

void AppendBlock(const StmtList& body, int indent, std::string* out) {
  for (const StmtPtr& s : body) *out += DumpStmt(*s, indent);
}

std::string Loc(SourceLoc l) { return std::to_string(l.line) + ":" + std::to_string(l.column); }

std::string Params(const Stmt& s) {
  std::string out;
  bool star_written = false;
  for (size_t i = 0; i < s.params.size(); ++i) {
    const Param& p = s.params[i];
    if (i) out += ", ";
    if (p.kind == Param::Kind::kKeywordOnly && !star_written) out += "*, ";
    if (p.kind == Param::Kind::kVarArgs) out += "*", star_written = true;
    if (p.kind == Param::Kind::kKeywordOnly) star_written = true;
    if (p.kind == Param::Kind::kVarKeywords) out += "**";
    out += p.name;
    if (p.annotation) out += ": " + DumpExpr(*p.annotation);
    if (p.default_value) out += (p.annotation ? " = " : "=") + DumpExpr(*p.default_value);
  }
  return out;
}

std::string Import(const Stmt& s) {
  if (s.imports.empty()) return "import ?";
  if (s.imports[0].name.empty()) {
    std::string out = "import ";
    for (size_t i = 0; i < s.imports.size(); ++i) {
      const ImportAlias& a = s.imports[i];
      if (i) out += ", ";
      out += a.module;
      if (a.bound != a.module.substr(0, a.module.find('.'))) out += " as " + a.bound;
    }
    return out;
  }
  std::string out = "from " + s.imports[0].module + " import ";
  for (size_t i = 0; i < s.imports.size(); ++i) {
    const ImportAlias& a = s.imports[i];
    if (i) out += ", ";
    out += a.name;
    if (a.name != "*" && a.bound != a.name) out += " as " + a.bound;
  }
  return out;
}

std::string Header(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::kFor:
      return "for " + DumpExpr(*s.targets[0]) + " in " + DumpExpr(*s.value) + ":";
    case StmtKind::kWhile:
      return "while " + DumpExpr(*s.value) + ":";
    case StmtKind::kIf:
      return "if " + DumpExpr(*s.value) + ":";
    case StmtKind::kWith: {
      std::string out = "with ";
      for (size_t i = 0; i < s.items.size(); ++i) {
        if (i) out += ", ";
        out += DumpExpr(*s.items[i].context);
        if (s.items[i].target) out += " as " + DumpExpr(*s.items[i].target);
      }
      return out + ":";
    }
    case StmtKind::kFunctionDef: {
      std::string out = "def " + s.name + "(" + Params(s) + ")";
      if (s.returns) out += " -> " + DumpExpr(*s.returns);
      return out + ":";
    }
    default:
      return "";
  }
}

std::string Simple(const Stmt& s) {
  switch (s.kind) {
    case StmtKind::kExpr:
      return DumpExpr(*s.value);
    case StmtKind::kAssign: {
      std::string out;
      for (const ExprPtr& t : s.targets) out += DumpExpr(*t) + " = ";
      return out + DumpExpr(*s.value);
    }
    case StmtKind::kAugAssign: {
      static const char* kOps[] = {"+",  "-",  "*", "/", "//", "%", "**",
                                   "<<", ">>", "&", "|", "^",  "@"};
      return DumpExpr(*s.targets[0]) + " " + kOps[static_cast<int>(s.aug_op)] + "= " +
             DumpExpr(*s.value);
    }
    case StmtKind::kAnnAssign: {
      std::string out = DumpExpr(*s.targets[0]) + ": " + DumpExpr(*s.annotation);
      return s.value ? out + " = " + DumpExpr(*s.value) : out;
    }
    case StmtKind::kReturn:
      return s.value ? "return " + DumpExpr(*s.value) : "return";
    case StmtKind::kPass:
      return "pass";
    case StmtKind::kBreak:
      return "break";
    case StmtKind::kContinue:
      return "continue";
    case StmtKind::kImport:
      return Import(s);
    case StmtKind::kGlobal: {
      std::string out = s.name + " ";
      for (size_t i = 0; i < s.bound_names.size(); ++i) out += (i ? ", " : "") + s.bound_names[i];
      return out;
    }
    case StmtKind::kAssert:
      return "assert " + DumpExpr(*s.value) + (s.msg ? ", " + DumpExpr(*s.msg) : "");
    case StmtKind::kUnsupported: {
      std::string out = "# unsupported " + Loc(s.loc) + "-" + Loc(s.end_loc) + ": " +
                        s.unsupported_reason + " at " + Loc(s.unsupported_loc);
      if (!s.bound_names.empty()) {
        out += " [binds:";
        for (const std::string& n : s.bound_names) out += " " + n;
        out += "]";
      }
      return out;
    }
    default:
      return "?";
  }
}

}  // namespace

std::string DumpStmt(const Stmt& s, int indent) {
  std::string pad(static_cast<size_t>(indent), ' ');
  std::string out;
  for (const ExprPtr& d : s.decorators) out += pad + "@" + DumpExpr(*d) + "\n";
  std::string header = Header(s);
  if (header.empty()) return out + pad + Simple(s) + "\n";
  out += pad + header + "\n";
  AppendBlock(s.body, indent + 4, &out);
  if (!s.orelse.empty()) {
    out += pad + "else:\n";
    AppendBlock(s.orelse, indent + 4, &out);
  }
  return out;
}

std::string DumpModule(const Module& m) {
  std::string out;
  for (const StmtPtr& s : m.body) out += DumpStmt(*s, 0);
  return out;
}

}  // namespace tilejit::frontend
