// SPDX-License-Identifier: Apache-2.0
#include "server/handle.h"

namespace tilejit::server {
namespace {

constexpr std::string_view kPrefix = "tj1_";

}  // namespace

bool IsHexDigest(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string HandleFromKey(std::string_view key) { return std::string(kPrefix) + std::string(key); }

Result<std::string> KeyFromHandle(std::string_view handle) {
  if (handle.empty()) return InvalidArgument("handle is empty");
  if (!handle.starts_with(kPrefix) || !IsHexDigest(handle.substr(kPrefix.size()))) {
    // Echo at most a short prefix: the handle may be arbitrary bytes.
    std::string shown(handle.substr(0, 16));
    for (char& c : shown) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
    }
    return InvalidArgument("malformed handle '" + shown + (handle.size() > 16 ? "...'" : "'") +
                           ": expected \"tj1_\" followed by 64 lower-case hex digits");
  }
  return std::string(handle.substr(kPrefix.size()));
}

}  // namespace tilejit::server
