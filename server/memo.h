// SPDX-License-Identifier: Apache-2.0
// The request memo and the compile-error cache, both keyed by request digest.
//
// RequestMemo maps a digest to what the frontend said about that exact request: the cache
// key, the request's own source map and diagnostics, the ignored config keys and optionally
// the canonical IR. A repeated request therefore costs one hash and one lookup and never
// runs the frontend. Requests that differ only in comments share a key but keep separate memo
// entries, so each gets its own line numbers. Bounded: least recently used entries go first.
//
// ErrorCache remembers deterministic compile errors (errors in the user's kernel) for a
// short TTL, so a client retrying a broken kernel in a loop does not recompile it each time.
//
// Both are thread-safe. Entries are immutable and shared.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/backend.h"

namespace tilejit::server {

struct MemoEntry {
  std::string key;
  std::string file_name;  // the request's name for its source
  std::vector<SourcePos> source_map;
  std::vector<std::string> file_names;      // SourcePos::file -> file name (the request's files)
  std::vector<DiagnosticInfo> diagnostics;  // frontend warnings and notes
  std::vector<std::string> ignored_config_keys;
  std::string ir_text;  // may be empty (not kept)
};

class RequestMemo {
 public:
  explicit RequestMemo(size_t capacity);

  std::shared_ptr<const MemoEntry> Get(std::string_view digest);
  void Put(std::string digest, std::shared_ptr<const MemoEntry> entry);
  size_t size() const;

 private:
  using Order = std::list<std::string>;  // most recent first
  struct Slot {
    std::shared_ptr<const MemoEntry> entry;
    Order::iterator position;
  };

  const size_t capacity_;
  mutable std::mutex mu_;
  Order order_;
  std::unordered_map<std::string, Slot> slots_;
};

struct CachedError {
  std::string message;  // the first error's rendering
  std::vector<DiagnosticInfo> diagnostics;
};

class ErrorCache {
 public:
  using NowMs = std::function<int64_t()>;

  // `ttl_ms` <= 0 disables the cache. `now_ms` defaults to a steady clock.
  ErrorCache(int64_t ttl_ms, size_t capacity, NowMs now_ms = nullptr);

  // The unexpired error of `digest`, or null.
  std::shared_ptr<const CachedError> Get(std::string_view digest);
  void Put(std::string digest, std::shared_ptr<const CachedError> error);

 private:
  struct Slot {
    std::shared_ptr<const CachedError> error;
    int64_t expires_ms = 0;
  };
  void EvictExpiredLocked(int64_t now);

  const int64_t ttl_ms_;
  const size_t capacity_;
  NowMs now_ms_;
  std::mutex mu_;
  std::unordered_map<std::string, Slot> slots_;
};

}  // namespace tilejit::server
