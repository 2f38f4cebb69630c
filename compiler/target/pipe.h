// SPDX-License-Identifier: Apache-2.0
// Hardware pipes of a 910B-class AI core, shared by the IR (sync statements), the target
// description, codegen and the simulator. Plain enum + name conversions; no state.
#pragma once

#include <optional>
#include <string_view>

namespace tilejit::target {

// The order is part of encodings (ISA fields, event tables): append only.
enum class Pipe : uint8_t {
  kS = 0,     // scalar unit
  kV = 1,     // vector unit (AIV)
  kM = 2,     // cube (AIC)
  kMte1 = 3,  // L1 -> L0A/L0B (AIC)
  kMte2 = 4,  // GM -> L1/L0/UB
  kMte3 = 5,  // UB -> GM (AIV), L1 -> GM (AIC)
  kFix = 6,   // L0C -> GM/L1 (AIC)
  kAll = 7,   // pseudo-pipe: only for barriers
};

inline constexpr int kNumPipes = 7;  // real pipes, excluding kAll

// Lower-case canonical name: "s", "v", "m", "mte1", "mte2", "mte3", "fix", "all".
constexpr std::string_view PipeName(Pipe p) {
  switch (p) {
    case Pipe::kS:
      return "s";
    case Pipe::kV:
      return "v";
    case Pipe::kM:
      return "m";
    case Pipe::kMte1:
      return "mte1";
    case Pipe::kMte2:
      return "mte2";
    case Pipe::kMte3:
      return "mte3";
    case Pipe::kFix:
      return "fix";
    case Pipe::kAll:
      return "all";
  }
  return "?";
}

// Parses a pipe name in any case ("MTE2", "mte2", "ALL"). nullopt if unknown.
std::optional<Pipe> ParsePipe(std::string_view name);

}  // namespace tilejit::target
