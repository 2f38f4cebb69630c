// SPDX-License-Identifier: Apache-2.0
#include "server/tune_store.h"

#include <utility>

namespace tilejit::server {

Result<std::unique_ptr<SqliteDecisionStore>> SqliteDecisionStore::Open(const std::string& path) {
  TILEJIT_ASSIGN_OR_RETURN(std::unique_ptr<cache::DecisionDb> db, cache::DecisionDb::Open(path));
  return std::unique_ptr<SqliteDecisionStore>(new SqliteDecisionStore(std::move(db)));
}

Result<std::optional<std::string>> SqliteDecisionStore::Get(std::string_view key) {
  return db_->Get(key);
}

Status SqliteDecisionStore::Put(std::string_view key, std::string_view decision) {
  return db_->Put(key, decision);
}

}  // namespace tilejit::server
