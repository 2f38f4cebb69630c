// SPDX-License-Identifier: Apache-2.0
#include "cache/export_format.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>
#include <vector>

#include "common/sha256.h"

namespace tilejit::cache {
namespace {

constexpr std::string_view kMagic = "tilejit-cache-export 1";
// Bounds applied while reading, so a damaged or hostile file cannot make us allocate without
// limit. SQLite's own default blob limit is 1e9 bytes.
constexpr uint64_t kMaxBlobBytes = 1'000'000'000;
constexpr size_t kMaxLineBytes = 512;

Status ErrnoStatus(std::string_view what, const std::string& path) {
  return Unavailable(std::string(what) + " '" + path + "': " + std::strerror(errno));
}

std::vector<std::string_view> SplitSpaces(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (start <= line.size()) {
    const size_t end = std::min(line.find(' ', start), line.size());
    fields.push_back(line.substr(start, end - start));
    start = end + 1;
  }
  return fields;
}

// Parses "<prefix><decimal>" strictly.
std::optional<uint64_t> ParseField(std::string_view field, std::string_view prefix) {
  if (field.substr(0, prefix.size()) != prefix) return std::nullopt;
  field.remove_prefix(prefix.size());
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || ptr != field.data() + field.size() || field.empty()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

Result<ExportWriter> ExportWriter::Create(const std::string& path) {
  std::string temp_path = path + ".tmp-" + std::to_string(::getpid());
  FILE* file = std::fopen(temp_path.c_str(), "wb");
  if (file == nullptr) return ErrnoStatus("cannot create export file", temp_path);
  ExportWriter writer(path, std::move(temp_path), file);
  TILEJIT_RETURN_IF_ERROR(writer.WriteBytes(std::string(kMagic) + "\n"));
  return writer;
}

ExportWriter::ExportWriter(ExportWriter&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      file_(other.file_),
      count_(other.count_),
      failed_(other.failed_) {
  other.file_ = nullptr;
}

ExportWriter::~ExportWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
    std::remove(temp_path_.c_str());
  }
}

Status ExportWriter::WriteBytes(std::string_view bytes) {
  if (failed_) return Unavailable("export write to '" + temp_path_ + "' already failed");
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    failed_ = true;
    return ErrnoStatus("cannot write export file", temp_path_);
  }
  return Status::Ok();
}

Status ExportWriter::WriteBlob(std::string_view name, std::string_view bytes) {
  std::string header = "blob " + std::string(name) + " " + std::to_string(bytes.size()) + " " +
                       Sha256Hex(bytes) + "\n";
  TILEJIT_RETURN_IF_ERROR(WriteBytes(header));
  TILEJIT_RETURN_IF_ERROR(WriteBytes(bytes));
  return WriteBytes("\n");
}

Status ExportWriter::Write(const Entry& entry) {
  TILEJIT_RETURN_IF_ERROR(ValidateEntry(entry));
  TILEJIT_RETURN_IF_ERROR(WriteBytes("entry " + entry.key +
                                     " pinned=" + (entry.pinned ? "1" : "0") +
                                     " blobs=" + std::to_string(entry.side.size() + 1) + "\n"));
  TILEJIT_RETURN_IF_ERROR(WriteBlob(kBinaryBlobName, entry.binary));
  for (const auto& [name, bytes] : entry.side) TILEJIT_RETURN_IF_ERROR(WriteBlob(name, bytes));
  ++count_;
  return Status::Ok();
}

Status ExportWriter::Finish() {
  TILEJIT_RETURN_IF_ERROR(WriteBytes("end entries=" + std::to_string(count_) + "\n"));
  // Flush and fsync before the rename, so a crash can never leave a truncated file under the
  // final name.
  const bool flushed = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) {
    std::remove(temp_path_.c_str());
    return ErrnoStatus("cannot flush export file", temp_path_);
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    Status status = ErrnoStatus("cannot rename export file to", path_);
    std::remove(temp_path_.c_str());
    return status;
  }
  return Status::Ok();
}

Result<ExportReader> ExportReader::Open(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoStatus("cannot open import file", path);
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<uint64_t>(std::max<std::streamoff>(in.tellg(), 0));
  in.seekg(0, std::ios::beg);
  ExportReader reader(std::move(in), file_size);
  TILEJIT_ASSIGN_OR_RETURN(const std::string magic, reader.ReadLine());
  if (magic != kMagic) {
    return InvalidArgument("'" + path + "' is not a tilejit cache export (expected first line '" +
                           std::string(kMagic) + "')");
  }
  return reader;
}

Status ExportReader::Malformed(std::string_view what) {
  const auto offset = static_cast<long long>(in_.tellg());
  return Corruption("cache export malformed near byte " + std::to_string(offset < 0 ? 0 : offset) +
                    ": " + std::string(what));
}

Result<std::string> ExportReader::ReadLine() {
  std::string line;
  char c = 0;
  while (in_.get(c)) {
    if (c == '\n') return line;
    if (line.size() >= kMaxLineBytes) return Malformed("header line too long");
    line.push_back(c);
  }
  return Malformed("file truncated (no end line)");
}

Result<std::optional<ImportRecord>> ExportReader::Next() {
  if (done_) return std::optional<ImportRecord>();
  TILEJIT_ASSIGN_OR_RETURN(const std::string line, ReadLine());
  const std::vector<std::string_view> head = SplitSpaces(line);
  if (head.size() == 2 && head[0] == "end") {
    const std::optional<uint64_t> count = ParseField(head[1], "entries=");
    if (!count || *count != count_) return Malformed("end line count disagrees: " + line);
    done_ = true;
    return std::optional<ImportRecord>();
  }
  std::optional<uint64_t> blobs;
  std::optional<uint64_t> pinned;
  if (head.size() == 4 && head[0] == "entry") {
    pinned = ParseField(head[2], "pinned=");
    blobs = ParseField(head[3], "blobs=");
  }
  if (!blobs || !pinned || *pinned > 1 || *blobs < 1 || *blobs > kMaxSideBlobs + 1) {
    return Malformed("expected an entry line, got '" + line.substr(0, 80) + "'");
  }
  ImportRecord record;
  record.entry.key = std::string(head[1]);
  record.entry.pinned = *pinned == 1;
  for (uint64_t i = 0; i < *blobs; ++i) {
    TILEJIT_ASSIGN_OR_RETURN(const std::string blob_line, ReadLine());
    const std::vector<std::string_view> f = SplitSpaces(blob_line);
    const std::optional<uint64_t> size = f.size() == 4 ? ParseField(f[2], "") : std::nullopt;
    if (f.size() != 4 || f[0] != "blob" || !size || *size > kMaxBlobBytes) {
      return Malformed("expected a blob line, got '" + blob_line.substr(0, 80) + "'");
    }
    // Checked before allocating, so a bogus size in a short file costs nothing.
    const auto offset = static_cast<uint64_t>(std::max<std::streamoff>(in_.tellg(), 0));
    if (*size > file_size_ - std::min(offset, file_size_)) {
      return Malformed("file truncated inside blob '" + std::string(f[1]) + "'");
    }
    const bool is_binary = i == 0;
    if (is_binary != (f[1] == kBinaryBlobName)) return Malformed("binary blob must come first");
    std::string bytes(*size, '\0');
    char newline = 0;
    if (!in_.read(bytes.data(), static_cast<std::streamsize>(*size)) || !in_.get(newline) ||
        newline != '\n') {
      return Malformed("file truncated inside blob '" + std::string(f[1]) + "'");
    }
    if (Sha256Hex(bytes) != f[3]) record.verified = false;
    if (is_binary) {
      record.entry.binary = std::move(bytes);
    } else {
      // A repeated name cannot have come from a store; treat the entry as damaged.
      if (!record.entry.side.emplace(std::string(f[1]), std::move(bytes)).second) {
        record.verified = false;
      }
    }
  }
  ++count_;
  return std::optional<ImportRecord>(std::move(record));
}

}  // namespace tilejit::cache
