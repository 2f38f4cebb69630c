// SPDX-License-Identifier: Apache-2.0
// Source locations and the manager that owns source texts.
//
// A SourceLoc names a position (1-based line and column, columns counted in bytes) in a file
// registered with a SourceManager. file_id 0 is reserved for "no location" (e.g. IR built by
// a pass with no user origin). SourceLoc is a small value type.
//
// SourceManager owns the text of every file it registers; ids are stable for its lifetime.
// It is not thread-safe for concurrent AddFile; const accessors may run concurrently once
// registration is done (one SourceManager per compile is the normal use).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace tilejit {

struct SourceLoc {
  uint32_t file_id = 0;  // 0: unknown
  uint32_t line = 0;     // 1-based; 0: unknown
  uint32_t column = 0;   // 1-based byte column; 0: unknown

  bool known() const { return file_id != 0 && line != 0; }
  bool operator==(const SourceLoc&) const = default;
};

class SourceManager {
 public:
  SourceManager() = default;
  SourceManager(const SourceManager&) = delete;
  SourceManager& operator=(const SourceManager&) = delete;

  // Registers `text` under `name` and returns its id (>= 1).
  uint32_t AddFile(std::string name, std::string text);

  // REQUIRES: id was returned by AddFile.
  const std::string& name(uint32_t id) const;
  const std::string& text(uint32_t id) const;

  // The text of line `line` (1-based) without its newline; empty if out of range.
  std::string_view LineText(uint32_t id, uint32_t line) const;

  // Renders "name:line:col" (or "<unknown>").
  std::string Describe(SourceLoc loc) const;

  size_t file_count() const { return files_.size(); }

 private:
  struct File {
    std::string name;
    std::string text;
    std::vector<uint32_t> line_starts;  // byte offset of each line's first byte
  };
  std::deque<File> files_;  // deque: references stay valid as files are added
};

}  // namespace tilejit
