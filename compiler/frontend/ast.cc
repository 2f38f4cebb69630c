// SPDX-License-Identifier: Apache-2.0
#include "compiler/frontend/ast.h"

namespace tilejit::frontend {

std::string_view BinOpSymbol(BinOpKind op) {
  switch (op) {
    case BinOpKind::kAdd:
      return "+";
    case BinOpKind::kSub:
      return "-";
    case BinOpKind::kMult:
      return "*";
    case BinOpKind::kDiv:
      return "/";
    case BinOpKind::kFloorDiv:
      return "//";
    case BinOpKind::kMod:
      return "%";
    case BinOpKind::kPow:
      return "**";
    case BinOpKind::kLShift:
      return "<<";
    case BinOpKind::kRShift:
      return ">>";
    case BinOpKind::kBitAnd:
      return "&";
    case BinOpKind::kBitOr:
      return "|";
    case BinOpKind::kBitXor:
      return "^";
    case BinOpKind::kMatMult:
      return "@";
  }
  return "?";
}

std::string_view CmpOpSymbol(CmpOpKind op) {
  switch (op) {
    case CmpOpKind::kEq:
      return "==";
    case CmpOpKind::kNotEq:
      return "!=";
    case CmpOpKind::kLt:
      return "<";
    case CmpOpKind::kLtE:
      return "<=";
    case CmpOpKind::kGt:
      return ">";
    case CmpOpKind::kGtE:
      return ">=";
    case CmpOpKind::kIs:
      return "is";
    case CmpOpKind::kIsNot:
      return "is not";
    case CmpOpKind::kIn:
      return "in";
    case CmpOpKind::kNotIn:
      return "not in";
  }
  return "?";
}

}  // namespace tilejit::frontend
