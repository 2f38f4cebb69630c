// SPDX-License-Identifier: Apache-2.0
// DecisionDb: small text values by key in a SQLite file of their own, next to the kernel
// cache: the daemon's autotuning decisions (server/tune.h). A decision is tiny and cheap to
// recompute compared with nothing, so the file is simple: one table, the newest `max_entries`
// rows kept (the oldest written go first), a Put is one statement, a file that is not a
// database is an error at Open (the daemon then keeps decisions in memory).
//
// Threading: every method is safe to call concurrently (one connection under a mutex).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "common/status.h"

namespace tilejit::cache {

namespace sqlite {
class Connection;
}

class DecisionDb {
 public:
  // Opens or creates `path` (its directory must exist). A newer schema is kInvalidArgument.
  static Result<std::unique_ptr<DecisionDb>> Open(const std::string& path,
                                                  int64_t max_entries = 65536);
  ~DecisionDb();

  Result<std::optional<std::string>> Get(std::string_view key);
  Status Put(std::string_view key, std::string_view value);
  Result<int64_t> Count();

 private:
  DecisionDb(std::unique_ptr<sqlite::Connection> conn, int64_t max_entries);

  std::mutex mu_;
  std::unique_ptr<sqlite::Connection> conn_;
  int64_t max_entries_;
  int64_t next_seq_ = 0;
};

}  // namespace tilejit::cache
