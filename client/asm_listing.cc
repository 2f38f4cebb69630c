// SPDX-License-Identifier: Apache-2.0
// Source-interleaved disassembly. The binary holds canonical statement ids only; the source
// text comes from the caller's request, so the same binary lists against any source that
// compiles to it.
#include "client/asm_listing.h"

#include <cstring>
#include <sstream>

#include "compiler/target/asm.h"
#include "compiler/target/isa.h"

namespace tilejit::client {
namespace {

std::string StmtComment(const SourceInfo& source, uint32_t stmt) {
  if (stmt == target::kNoStmt) return "(no statement)";
  std::optional<std::string> where = DescribeStmt(source, stmt);
  if (!where) return "stmt " + std::to_string(stmt);
  const SourceLoc loc = (*source.source_map)[stmt];
  std::string text(source.sources->LineText(loc.file_id, loc.line));
  const size_t first = text.find_first_not_of(' ');
  return *where + ": " + (first == std::string::npos ? "" : text.substr(first));
}

Status ListCore(std::string_view name, const target::CoreCode& core, const SourceInfo& source,
                std::ostringstream& os) {
  if (core.code.empty()) return Status::Ok();
  std::vector<uint64_t> words(core.code.size() / sizeof(uint64_t));
  std::memcpy(words.data(), core.code.data(), words.size() * sizeof(uint64_t));
  TILEJIT_ASSIGN_OR_RETURN(std::vector<target::Instr> program, target::DecodeProgram(words));
  os << target::ListProgram(name, program, core.line_table,
                            [&](uint32_t stmt) { return StmtComment(source, stmt); });
  return Status::Ok();
}

}  // namespace

std::optional<std::string> DescribeStmt(const SourceInfo& source, uint32_t stmt) {
  if (source.sources == nullptr || source.source_map == nullptr ||
      stmt >= source.source_map->size() || !(*source.source_map)[stmt].known()) {
    return std::nullopt;
  }
  return source.sources->Describe((*source.source_map)[stmt]);
}

Result<std::string> AsmListing(const target::KernelBinary& binary, const SourceInfo& source) {
  std::ostringstream os;
  TILEJIT_RETURN_IF_ERROR(ListCore("aic", binary.aic, source, os));
  TILEJIT_RETURN_IF_ERROR(ListCore("aiv", binary.aiv, source, os));
  return os.str();
}

}  // namespace tilejit::client
