// SPDX-License-Identifier: Apache-2.0
// Bearer-token authorisation of tilejitd's calls (DESIGN.md section 6, issue 16): the token
// file, the role each tilejit.v1 RPC needs, and the verdict on one call. Transport-free: the
// gRPC side (grpc_auth.h) reads the `authorization` header, asks Authorize, and maps the
// verdict to UNAUTHENTICATED or PERMISSION_DENIED.
//
// The token file (tilejitd --auth-tokens FILE) holds one token per line:
//
//     # ROLE    SHA-256 of the token (64 hex digits)                          NAME
//     compile   5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 ci-runner
//
// ROLE is read, compile or admin; each role may call what the roles before it may, and more
// (kMethodRoles). The daemon never sees a token in clear text: it keeps the digest, hashes the
// token a call presents and compares the two digests in constant time. NAME (optional, one
// word of at most kMaxTokenNameBytes printable characters) names the token in the daemon's
// log; without one the token is named "sha256:" and the digest's first 8 hex digits. '#'
// starts a comment (to the end of the line); blank lines are ignored. Any other line is an
// error naming FILE:LINE, and so is a digest listed twice. A client sends
// `authorization: Bearer TOKEN`.
//
// Ownership and threading: a TokenTable is an immutable value, safe to read from any number
// of threads. TokenStore owns the daemon's current table; Reload swaps it in one step, and
// table() may be called concurrently with Reload from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/sha256.h"

namespace tilejit::server {

// Ordered: a token of one role may call every RPC that needs that role or a lower one.
enum class Role : uint8_t { kRead, kCompile, kAdmin };

// "read", "compile", "admin".
std::string_view RoleName(Role role);

// The role every tilejit.v1.TileJit RPC needs, by method name: the one table of who may call
// what. A new RPC is one row here; tests fail while an RPC of the service has no row.
struct MethodRole {
  std::string_view method;
  Role role;
};
inline constexpr MethodRole kMethodRoles[] = {
    // read: look at what is there and run it (Launch takes an existing handle or digest).
    {"GetKernel", Role::kRead},
    {"Launch", Role::kRead},
    {"Stats", Role::kRead},
    {"List", Role::kRead},
    // compile: make new kernels (and spend the daemon's compile workers).
    {"Compile", Role::kCompile},
    {"BatchCompile", Role::kCompile},
    {"CompileStream", Role::kCompile},
    {"Tune", Role::kCompile},
    // admin: change what the cache holds and serves to everyone.
    {"Evict", Role::kAdmin},
    {"Pin", Role::kAdmin},
    {"Unpin", Role::kAdmin},
    {"Export", Role::kAdmin},
    {"Import", Role::kAdmin},
    {"ExportStream", Role::kAdmin},
    {"ImportStream", Role::kAdmin},
};

// The role `method` (a tilejit.v1.TileJit method name, e.g. "Compile") needs; nullopt for a
// method with no row.
std::optional<Role> RequiredRole(std::string_view method);

inline constexpr size_t kMaxTokenFileBytes = size_t{1} << 20;
inline constexpr size_t kMaxTokenNameBytes = 64;
inline constexpr size_t kMaxTokenBytes = 4096;  // a longer bearer token is refused unread

struct TokenEntry {
  Digest digest{};
  Role role = Role::kRead;
  std::string name;
};

class TokenTable {
 public:
  // Parses a token file's text; `file` names it in errors ("FILE:LINE: ..."). kInvalidArgument
  // on the first bad line.
  static Result<TokenTable> Parse(std::string_view text, std::string_view file);
  // Reads and parses `path` (at most kMaxTokenFileBytes).
  static Result<TokenTable> Load(const std::string& path);

  // The entry whose digest is SHA-256(token), or nullptr. Every entry is compared, each in
  // constant time, whether or not an earlier one matched.
  const TokenEntry* Find(std::string_view token) const;

  size_t size() const { return entries_.size(); }
  const std::vector<TokenEntry>& entries() const { return entries_; }

 private:
  std::vector<TokenEntry> entries_;
};

// The outcome of one call's check.
struct AuthVerdict {
  enum class Kind { kAllowed, kUnauthenticated, kPermissionDenied };
  Kind kind = Kind::kAllowed;
  std::string message;     // why it was refused (empty when allowed)
  std::string token_name;  // the token's NAME when it was recognised
  bool allowed() const { return kind == Kind::kAllowed; }
};

// OK, or kUnauthenticated / kPermissionDenied with the verdict's message.
Status ToStatus(const AuthVerdict& verdict);

// Whether a call that needs `required` may run with `authorization`, the value of its
// authorization header (nullopt when the call has none). `what` names the call in messages
// ("Evict"). Missing, malformed ("Bearer TOKEN" expected) or unknown tokens are
// kUnauthenticated; a known token with a lower role is kPermissionDenied.
AuthVerdict Authorize(const TokenTable& table, std::optional<std::string_view> authorization,
                      Role required, std::string_view what);

// The daemon's token table, loaded from a file and reloaded from it on demand (SIGHUP).
class TokenStore {
 public:
  // Loads `path`; the error of TokenTable::Load if it is bad.
  static Result<std::unique_ptr<TokenStore>> Open(std::string path);

  // Reads the file again. On success the new table serves every later call; on error the
  // current table stays and the error (naming FILE:LINE) is returned.
  Status Reload();

  // The current table; callers keep it for the duration of one check.
  std::shared_ptr<const TokenTable> table() const;
  const std::string& path() const { return path_; }

 private:
  TokenStore(std::string path, TokenTable table);

  const std::string path_;
  mutable std::mutex mu_;
  std::shared_ptr<const TokenTable> table_;  // guarded by mu_
};

}  // namespace tilejit::server
