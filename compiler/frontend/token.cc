// SPDX-License-Identifier: Apache-2.0
#include "compiler/frontend/token.h"

namespace tilejit::frontend {

std::string_view TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEndOfFile:
      return "end of file";
    case TokenKind::kNewline:
      return "newline";
    case TokenKind::kIndent:
      return "indent";
    case TokenKind::kDedent:
      return "dedent";
    case TokenKind::kName:
      return "name";
    case TokenKind::kInt:
      return "integer";
    case TokenKind::kFloat:
      return "float";
    case TokenKind::kString:
      return "string";
    case TokenKind::kError:
      return "error";
#define TILEJIT_X(kind, spelling) \
  case TokenKind::kind:           \
    return spelling;
      TILEJIT_PY_OPERATORS(TILEJIT_X)
      TILEJIT_PY_KEYWORDS(TILEJIT_X)
#undef TILEJIT_X
  }
  return "?";
}

}  // namespace tilejit::frontend
