// SPDX-License-Identifier: Apache-2.0
// The daemon's DecisionStore (tune.h) over cache::DecisionDb: decisions in a SQLite file next
// to the kernel cache (`<cache path>.tune.sqlite`), so a restarted daemon still answers a
// repeated Tune call with a lookup. Thread-safe.
#pragma once

#include <memory>
#include <string>

#include "cache/decision_db.h"
#include "server/tune.h"

namespace tilejit::server {

class SqliteDecisionStore final : public DecisionStore {
 public:
  static Result<std::unique_ptr<SqliteDecisionStore>> Open(const std::string& path);
  Result<std::optional<std::string>> Get(std::string_view key) override;
  Status Put(std::string_view key, std::string_view decision) override;

 private:
  explicit SqliteDecisionStore(std::unique_ptr<cache::DecisionDb> db) : db_(std::move(db)) {}
  std::unique_ptr<cache::DecisionDb> db_;
};

// Where the decisions of a kernel cache at `cache_path` live.
inline std::string DecisionPathFor(const std::string& cache_path) {
  return cache_path + ".tune.sqlite";
}

}  // namespace tilejit::server
