// SPDX-License-Identifier: Apache-2.0
// Text assembler and disassembler for the tilejit ISA, generated from isa.def (field names,
// kinds and ranges). Syntax, one instruction per line:
//
//   [label:] mnemonic field=value, field=value, ... [@line]   ; comment (or # comment)
//
// Every field of the opcode must be given exactly once, in any order. Values: registers `r7`;
// Opnd operands `r7`, `r7+64`, `r7-32`, `4096` (decimal or 0x hex); pipes by name (`mte2`,
// `all`); dtypes (`f16`, `f32`, `s8`, ...); cmp modes (`eq ne lt le gt ge`); rounding modes
// (`rint round floor ceil trunc odd`); atomic modes (`none add max min`). A branch `off` may
// name a label instead of a number. `@N` sets the line-table index (default 0).
// Example: `vadd dst=0, src=r3+256, src1=512, repeat=4, mask=64, dst_blk=1, src_blk=1,
//           src1_blk=1, dst_rep=8, src_rep=8, src1_rep=8, dtype=f32 @12`
//
// The assembler validates every instruction (Validate in isa.h) and rejects values past
// hardware limits with InvalidArgument naming the line. Disassemble prints the same syntax, so
// Assemble(Disassemble(x)) == x. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "compiler/target/isa.h"

namespace tilejit::target {

// Assembles a whole program (labels allowed). Errors carry "line N: ...".
Result<std::vector<Instr>> Assemble(std::string_view text);

// Assembles one instruction (no label; a label name as branch offset is an error).
Result<Instr> AssembleInstr(std::string_view line);

// One instruction in assembler syntax (no trailing newline).
std::string Disassemble(const Instr& in);

// A program, one instruction per line, branch offsets as numbers.
std::string DisassembleProgram(std::span<const Instr> program);

// The comment ListProgram prints before the instructions of line-table statement `stmt`
// (kNoStmt for instructions that have none), without the leading "; ".
using StmtCommentFn = std::function<std::string(uint32_t stmt)>;

// One core's program as the disassembly listings print it (`tilejit disasm`, the runtime's
// tj_module_disassemble): a "<core>:" line, then "  <index>:\t<instruction>" per instruction,
// preceded by "  ; <comment(stmt)>" whenever the instruction's statement changes. lines[i] is
// instruction i's statement (kNoStmt past the end of `lines`). "" for an empty program.
std::string ListProgram(std::string_view core, std::span<const Instr> program,
                        std::span<const uint32_t> lines, const StmtCommentFn& comment);

}  // namespace tilejit::target
