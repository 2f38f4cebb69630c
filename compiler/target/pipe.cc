// SPDX-License-Identifier: Apache-2.0
#include "compiler/target/pipe.h"

#include <cctype>
#include <string>

namespace tilejit::target {

std::optional<Pipe> ParsePipe(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int i = 0; i <= static_cast<int>(Pipe::kAll); ++i) {
    Pipe p = static_cast<Pipe>(i);
    if (PipeName(p) == lower) return p;
  }
  return std::nullopt;
}

}  // namespace tilejit::target
