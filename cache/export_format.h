// SPDX-License-Identifier: Apache-2.0
// The cache export file: a single self-describing file carrying whole entries, for moving a
// warm cache between machines or baking one into an image.
//
// Format (version 1). Text header lines end in '\n'; blob bytes are raw and length-prefixed:
//   tilejit-cache-export 1
//   entry <key> pinned=<0|1> blobs=<n>
//   blob <name> <size> <sha256 hex>
//   <size raw bytes>\n
//   ... (n blob records; the first is the binary, named "binary")
//   ... (more entries)
//   end entries=<count>
// The trailing `end` line makes truncation detectable. Digests are recomputed on read, so a
// damaged blob is reported per entry while the rest of the file still imports.
//
// Threading: a writer or reader object is used by one thread at a time.
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include "cache/entry.h"
#include "common/result.h"
#include "common/status.h"

namespace tilejit::cache {

// Writes an export file atomically: bytes go to a temporary file beside `path`, which is
// flushed to disk and renamed over `path` by Finish(). Destroying an unfinished writer removes
// the temporary file.
class ExportWriter {
 public:
  static Result<ExportWriter> Create(const std::string& path);
  ~ExportWriter();
  ExportWriter(ExportWriter&& other) noexcept;
  ExportWriter& operator=(ExportWriter&&) = delete;
  ExportWriter(const ExportWriter&) = delete;

  // Appends one entry (binary, side blobs and pin flag; timestamps are not exported).
  Status Write(const Entry& entry);
  Status Finish();

 private:
  ExportWriter(std::string path, std::string temp_path, FILE* file)
      : path_(std::move(path)), temp_path_(std::move(temp_path)), file_(file) {}
  Status WriteBytes(std::string_view bytes);
  Status WriteBlob(std::string_view name, std::string_view bytes);

  std::string path_;
  std::string temp_path_;
  FILE* file_;  // owned; null after Finish
  uint64_t count_ = 0;
  bool failed_ = false;
};

// One entry read back from an export file.
struct ImportRecord {
  Entry entry;
  // False when some blob's bytes do not match the digest recorded beside them.
  bool verified = true;
};

// Reads an export file entry by entry.
class ExportReader {
 public:
  static Result<ExportReader> Open(const std::string& path);

  // The next entry, or nullopt after the `end` line. A structural problem (bad header,
  // truncation, a count that disagrees) is Corruption naming the byte offset.
  Result<std::optional<ImportRecord>> Next();

 private:
  ExportReader(std::ifstream in, uint64_t file_size) : in_(std::move(in)), file_size_(file_size) {}
  Result<std::string> ReadLine();
  Status Malformed(std::string_view what);

  std::ifstream in_;
  uint64_t file_size_;
  uint64_t count_ = 0;
  bool done_ = false;
};

}  // namespace tilejit::cache
