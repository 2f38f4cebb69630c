// SPDX-License-Identifier: Apache-2.0
// The cache's notion of time: Unix milliseconds from an injectable function, so that TTL and
// LRU behaviour can be tested with a fake clock. A Clock must be safe to call from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace tilejit::cache {

using Clock = std::function<int64_t()>;

// The wall clock in Unix milliseconds.
inline int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace tilejit::cache
