// SPDX-License-Identifier: Apache-2.0
// Line-based delta debugging: the generator's text has one statement per line and braces
// at line ends, so a statement is a line and a loop or if is the span to its closing brace.
// Failures are matched by stage only; a reduction may therefore drift to a different bug of
// the same stage, which still is a bug worth the smaller reproducer.
#include "reduce.h"

#include <sstream>
#include <string>
#include <vector>

namespace tilejit::devgen {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l + "\n";
  return s;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Whether line i (inside the launch) may be deleted on its own or with its block.
bool Deletable(const std::string& line) {
  const size_t start = line.find_first_not_of(' ');
  if (start == std::string::npos || start < 2) return false;  // params, launch, final brace
  const std::string body = line.substr(start);
  return body != "}" && body != "} else {" && body.rfind("let ", 0) != 0;
}

// One past the end of the statement starting at line i (its closing brace for a block).
size_t StatementEnd(const std::vector<std::string>& lines, size_t i) {
  if (!EndsWith(lines[i], "{")) return i + 1;
  int depth = 0;
  for (size_t j = i; j < lines.size(); ++j) {
    if (EndsWith(lines[j], "{")) ++depth;
    const size_t start = lines[j].find_first_not_of(' ');
    const std::string body = start == std::string::npos ? "" : lines[j].substr(start);
    if (body == "}" || body == "} else {") --depth;
    if (depth == 0) return j + 1;
  }
  return lines.size();
}

}  // namespace

Reduced ReduceKernel(const GeneratedKernel& failing, uint64_t perturb_seed, Stage stage) {
  Reduced r;
  r.kernel = failing;
  r.outcome = CheckGeneratedKernel(failing, perturb_seed);
  std::vector<std::string> lines = Lines(failing.ir_text);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = lines.size(); i-- > 0;) {
      if (i >= lines.size() || !Deletable(lines[i])) continue;
      std::vector<std::string> trial(lines.begin(), lines.begin() + static_cast<long>(i));
      trial.insert(trial.end(), lines.begin() + static_cast<long>(StatementEnd(lines, i)),
                   lines.end());
      GeneratedKernel k = failing;
      k.ir_text = Join(trial);
      ++r.attempts;
      CheckOutcome out = CheckGeneratedKernel(k, perturb_seed);
      if (out.stage != stage) continue;
      lines = std::move(trial);
      r.kernel = k;
      r.outcome = std::move(out);
      changed = true;
    }
  }
  return r;
}

}  // namespace tilejit::devgen
