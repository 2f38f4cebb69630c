// SPDX-License-Identifier: Apache-2.0
// The disassembly of a kernel binary as `tilejit compile --emit asm` and `tilejit disasm`
// print it: per core program, one instruction per line, with a comment line whenever the
// instruction's statement changes (the request's file:line and source text when a source map
// is given, otherwise the canonical statement id).
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "common/source_loc.h"
#include "compiler/target/binary.h"

namespace tilejit::client {

struct SourceInfo {
  const SourceManager* sources = nullptr;  // not owned; may be null
  const std::vector<SourceLoc>* source_map = nullptr;
};

Result<std::string> AsmListing(const target::KernelBinary& binary, const SourceInfo& source);

// file:line:col of canonical statement `stmt`, or nullopt without a source map entry.
std::optional<std::string> DescribeStmt(const SourceInfo& source, uint32_t stmt);

}  // namespace tilejit::client
