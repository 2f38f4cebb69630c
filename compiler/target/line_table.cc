// SPDX-License-Identifier: Apache-2.0
// Encoding: varint instruction_count, varint run_count, then run_count pairs of
// (varint run_length >= 1, varint stmt_id + 1 modulo 2^32). Consecutive instructions usually
// come from one statement, so runs make the table a few bytes per statement instead of four
// bytes per instruction; storing id + 1 makes kNoStmt a one-byte zero. The decoder accepts
// only the canonical encoding (minimal varints, no empty runs, no two adjacent runs with the
// same id), so equal tables always have equal bytes.
#include "compiler/target/line_table.h"

#include <string>

namespace tilejit::target {

namespace {

void AppendVarint(uint64_t v, std::vector<uint8_t>* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

// Reads a minimal LEB128 varint no larger than `max`.
Status ReadVarint(std::span<const uint8_t> in, size_t* pos, uint64_t max, const char* what,
                  uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= in.size()) return Corruption(std::string("line table truncated in ") + what);
    const uint8_t byte = in[(*pos)++];
    const uint64_t bits = byte & 0x7f;
    if (shift == 63 && bits > 1) break;  // would overflow 64 bits
    v |= bits << shift;
    if ((byte & 0x80) == 0) {
      if (byte == 0 && shift > 0) break;  // overlong: a trailing zero group
      if (v > max) {
        return Corruption(std::string("line table ") + what + " " + std::to_string(v) +
                          " is too large");
      }
      *out = v;
      return Status::Ok();
    }
  }
  return Corruption(std::string("line table has a malformed varint in ") + what);
}

}  // namespace

void AppendLineTable(std::span<const uint32_t> stmt_ids, std::vector<uint8_t>* out) {
  std::vector<std::pair<uint64_t, uint32_t>> runs;
  for (uint32_t id : stmt_ids) {
    if (!runs.empty() && runs.back().second == id) {
      ++runs.back().first;
    } else {
      runs.emplace_back(1, id);
    }
  }
  AppendVarint(stmt_ids.size(), out);
  AppendVarint(runs.size(), out);
  for (const auto& [length, id] : runs) {
    AppendVarint(length, out);
    AppendVarint(static_cast<uint32_t>(id + 1u), out);
  }
}

Result<std::vector<uint32_t>> DecodeLineTable(std::span<const uint8_t> in, size_t* pos,
                                              uint64_t max_instructions) {
  uint64_t count = 0;
  TILEJIT_RETURN_IF_ERROR(ReadVarint(in, pos, UINT64_MAX, "instruction count", &count));
  if (count > max_instructions) {
    return Corruption("line table lists " + std::to_string(count) +
                      " instructions but the code section holds at most " +
                      std::to_string(max_instructions));
  }
  uint64_t run_count = 0;
  TILEJIT_RETURN_IF_ERROR(ReadVarint(in, pos, count, "run count", &run_count));
  std::vector<uint32_t> ids;
  ids.reserve(count);
  for (uint64_t r = 0; r < run_count; ++r) {
    uint64_t length = 0;
    uint64_t encoded = 0;
    TILEJIT_RETURN_IF_ERROR(ReadVarint(in, pos, count - ids.size(), "run length", &length));
    TILEJIT_RETURN_IF_ERROR(ReadVarint(in, pos, UINT32_MAX, "statement id", &encoded));
    if (length == 0) return Corruption("line table has an empty run");
    const uint32_t id = static_cast<uint32_t>(encoded - 1);
    if (!ids.empty() && ids.back() == id) {
      return Corruption("line table has two adjacent runs of statement " + std::to_string(id));
    }
    ids.insert(ids.end(), length, id);
  }
  if (ids.size() != count) {
    return Corruption("line table runs cover " + std::to_string(ids.size()) + " of " +
                      std::to_string(count) + " instructions");
  }
  return ids;
}

}  // namespace tilejit::target
