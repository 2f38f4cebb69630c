// SPDX-License-Identifier: Apache-2.0
// The line table of a kernel binary: for each instruction of a code section, the id of the
// canonical IR statement it was generated from (never a source location: DESIGN.md section
// 3). Stored run-length encoded with LEB128 varints; see docs/binary_format.md.
// Pure functions on caller-owned buffers: thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/result.h"

namespace tilejit::target {

// The statement id of an instruction that belongs to no IR statement (e.g. a prologue).
inline constexpr uint32_t kNoStmt = 0xFFFFFFFF;

// Appends the encoding of one table (one entry per instruction) to `out`.
void AppendLineTable(std::span<const uint32_t> stmt_ids, std::vector<uint8_t>* out);

// Decodes one table starting at `*pos` in `in` and advances `*pos` past it. Returns
// kCorruption if the encoding is truncated, non-canonical (overlong varints, empty or
// mergeable runs), or lists more than `max_instructions` instructions.
Result<std::vector<uint32_t>> DecodeLineTable(std::span<const uint8_t> in, size_t* pos,
                                              uint64_t max_instructions);

}  // namespace tilejit::target
