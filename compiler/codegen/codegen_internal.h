// SPDX-License-Identifier: Apache-2.0
// Internals of Codegen shared by codegen.cc (binary and metadata) and codegen_stmt.cc (the
// statement walker that builds one core program). Not part of the codegen contract.
// Thread safety: pure functions over immutable IR.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "common/diagnostic.h"
#include "common/result.h"
#include "compiler/codegen/emitter.h"
#include "compiler/ir/ir.h"
#include "compiler/target/isa.h"
#include "compiler/target/npu_target.h"

namespace tilejit::codegen {

// SourceLoc (file, line, column) -> the first canonical statement id with that loc.
using LineMap = std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t>;
LineMap BuildLineMap(const ir::Kernel& frontend_kernel);
// The line-table id of a statement at `loc` (target::kNoStmt if none).
uint32_t LineOf(const LineMap& lines, SourceLoc loc);

// True if `s` contains a `scope` of this kind.
bool ContainsScope(const ir::Stmt& s, ir::CoreKind kind);
// True if `s` does anything on a core of this kind (see codegen.h: projection and elision).
bool HasWork(const ir::Stmt& s, ir::CoreKind kind);

// The instruction stream of one core type (ends with `end`), validated per instruction and
// for the core; problems are diagnostics at the statement they came from.
Result<std::vector<target::Instr>> LowerProgram(const ir::Kernel& kernel, target::CoreType core,
                                                const target::NpuTarget& npu, const LineMap& lines,
                                                const std::vector<ir::Stmt>& stmt_ids,
                                                std::vector<target::PrintRecord>* prints,
                                                DiagnosticEngine* diag);

// rd = v (li, mov or add).
void EmitMove(Emitter& e, uint8_t rd, target::Opnd v);

}  // namespace tilejit::codegen
