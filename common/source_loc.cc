// SPDX-License-Identifier: Apache-2.0
#include "common/source_loc.h"

#include "common/check.h"

namespace tilejit {

uint32_t SourceManager::AddFile(std::string name, std::string text) {
  File file{std::move(name), std::move(text), {0}};
  for (uint32_t i = 0; i < file.text.size(); ++i) {
    if (file.text[i] == '\n') file.line_starts.push_back(i + 1);
  }
  files_.push_back(std::move(file));
  return static_cast<uint32_t>(files_.size());
}

const std::string& SourceManager::name(uint32_t id) const {
  TILEJIT_CHECK(id >= 1 && id <= files_.size()) << "bad file id " << id;
  return files_[id - 1].name;
}

const std::string& SourceManager::text(uint32_t id) const {
  TILEJIT_CHECK(id >= 1 && id <= files_.size()) << "bad file id " << id;
  return files_[id - 1].text;
}

std::string_view SourceManager::LineText(uint32_t id, uint32_t line) const {
  if (id < 1 || id > files_.size()) return {};
  const File& f = files_[id - 1];
  if (line < 1 || line > f.line_starts.size()) return {};
  size_t begin = f.line_starts[line - 1];
  size_t end = line < f.line_starts.size() ? f.line_starts[line] - 1 : f.text.size();
  std::string_view view(f.text);
  view = view.substr(begin, end - begin);
  if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
  return view;
}

std::string SourceManager::Describe(SourceLoc loc) const {
  if (!loc.known() || loc.file_id > files_.size()) return "<unknown>";
  return name(loc.file_id) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

}  // namespace tilejit
