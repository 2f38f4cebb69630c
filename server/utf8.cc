// SPDX-License-Identifier: Apache-2.0
#include "server/utf8.h"

#include <cstdint>

namespace tilejit::server {
namespace {

// Length of the well-formed sequence starting at s[i], or 0 (Unicode table 3-7).
size_t SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) return 1;
  size_t len = 0;
  uint8_t lo = 0x80, hi = 0xbf;  // range of the second byte
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    len = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    len = 3;
    if (b0 == 0xe0) lo = 0xa0;  // no overlong forms
    if (b0 == 0xed) hi = 0x9f;  // no surrogates
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    len = 4;
    if (b0 == 0xf0) lo = 0x90;  // no overlong forms
    if (b0 == 0xf4) hi = 0x8f;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  }
  return len;
}

}  // namespace

std::optional<size_t> FindInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const size_t n = SequenceLength(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

}  // namespace tilejit::server
