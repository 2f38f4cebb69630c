// SPDX-License-Identifier: Apache-2.0
// Internal to the printer (printer.cc, printer_expr.cc): canonical naming and expression
// printing. Not part of the IR's public API.
#pragma once

#include <string>
#include <unordered_map>

#include "compiler/ir/ir.h"

namespace tilejit::ir {

// Assigns canonical names at first request; see printer.h for the scheme.
class IrNamer {
 public:
  const std::string& VarName(const Var& v);
  const std::string& BufferName(const Buffer& b);
  // Names the launch vars of the next KernelNode %cid/%vid (%cid1/%vid1 for a second one).
  void NameKernelVars(const Var& cid, const Var& vid);
  void NameParam(const Buffer& b);
  // Names a kernel symbol %s<n> at its first appearance (in a param's shape).
  void NameSymbol(const Var& v);

 private:
  std::unordered_map<const VarNode*, std::string> vars_;
  std::unordered_map<const BufferNode*, std::string> buffers_;
  std::unordered_map<std::string, int> per_scope_;
  int next_var_ = 0;
  int next_param_ = 0;
  int next_symbol_ = 0;
  int kernels_ = 0;
};

// Appends expression text to a string.
class ExprPrinter {
 public:
  ExprPrinter(IrNamer* names, std::string* out) : names_(names), out_(*out) {}

  // Prints `e`, in parentheses when it binds looser than `min_prec` (0: never).
  void Print(const Expr& e, int min_prec = 0);

 private:
  void PrintBare(const Expr& e);
  void PrintLiteral(const Expr& e);
  void PrintBinary(const BinaryNode& b);
  void PrintArgs(const std::vector<Expr>& args);

  IrNamer* names_;
  std::string& out_;
};

}  // namespace tilejit::ir
