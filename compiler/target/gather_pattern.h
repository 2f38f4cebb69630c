// SPDX-License-Identifier: Apache-2.0
// The built-in patterns of vgathermask (AscendC GatherMask's fixed src1Pattern modes 1..7):
// element k of the source is kept when k % period == phase (every element for P1111). The
// names are TileLang's (`T.tile.gather_mask(dst, src, "P0101")`); the digits read right to
// left, so "P0101" keeps elements 0, 2, 4, ... One table for the tracer, codegen and the
// simulator. Constant data; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tilejit::target {

struct GatherPattern {
  std::string_view name;
  int code;    // the instruction's pattern operand
  int period;  // 1, 2 or 4
  int phase;   // the kept position within each period
};

inline constexpr GatherPattern kGatherPatterns[] = {
    {"P0101", 1, 2, 0}, {"P1010", 2, 2, 1}, {"P0001", 3, 4, 0}, {"P0010", 4, 4, 1},
    {"P0100", 5, 4, 2}, {"P1000", 6, 4, 3}, {"P1111", 7, 1, 0},
};

inline std::optional<GatherPattern> GatherPatternNamed(std::string_view name) {
  for (const GatherPattern& p : kGatherPatterns)
    if (p.name == name) return p;
  return std::nullopt;
}

inline std::optional<GatherPattern> GatherPatternCoded(int64_t code) {
  for (const GatherPattern& p : kGatherPatterns)
    if (p.code == code) return p;
  return std::nullopt;
}

// How many of the first n elements `p` keeps.
inline int64_t GatherKept(const GatherPattern& p, int64_t n) {
  return n > p.phase ? (n - p.phase + p.period - 1) / p.period : 0;
}

}  // namespace tilejit::target
