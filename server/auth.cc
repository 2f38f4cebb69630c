// SPDX-License-Identifier: Apache-2.0
// Only digests are kept, so a leaked token file does not leak tokens; the digest of a
// presented token is compared with every entry by CRYPTO_memcmp, so the time a check takes
// says nothing about how much of a digest matched, nor which entry.
#include "server/auth.h"

#include <openssl/crypto.h>

#include <fstream>
#include <map>

namespace tilejit::server {
namespace {

constexpr std::string_view kBearer = "bearer ";

Status LineError(std::string_view file, int line, const std::string& what) {
  return InvalidArgument(std::string(file) + ":" + std::to_string(line) + ": " + what);
}

// Spaces and tabs separate fields; a '\r' is a CRLF file's line end.
bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsBlank(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !IsBlank(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::optional<Role> ParseRole(std::string_view text) {
  for (Role r : {Role::kRead, Role::kCompile, Role::kAdmin}) {
    if (text == RoleName(r)) return r;
  }
  return std::nullopt;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<Digest> ParseDigest(std::string_view hex) {
  Digest d{};
  if (hex.size() != d.size() * 2) return std::nullopt;
  for (size_t i = 0; i < d.size(); ++i) {
    const int hi = HexValue(hex[2 * i]), lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    d[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  return d;
}

bool ValidName(std::string_view name) {
  if (name.empty() || name.size() > kMaxTokenNameBytes) return false;
  for (char c : name) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

// One non-blank line's fields -> an entry, or the error for `line` of `file`.
Result<TokenEntry> ParseEntry(const std::vector<std::string_view>& fields, std::string_view file,
                              int line) {
  if (fields.size() < 2 || fields.size() > 3) {
    return LineError(
        file, line,
        "expected 'ROLE SHA256HEX [NAME]', got " + std::to_string(fields.size()) + " fields");
  }
  TokenEntry e;
  std::optional<Role> role = ParseRole(fields[0]);
  if (!role) {
    return LineError(file, line,
                     "unknown role '" + std::string(fields[0]) + "' (read, compile or admin)");
  }
  e.role = *role;
  std::optional<Digest> digest = ParseDigest(fields[1]);
  if (!digest) {
    return LineError(file, line, "expected the token's SHA-256 as 64 hex digits");
  }
  e.digest = *digest;
  if (fields.size() == 3 && !ValidName(fields[2])) {
    return LineError(file, line,
                     "NAME must be 1.." + std::to_string(kMaxTokenNameBytes) +
                         " printable characters without spaces");
  }
  e.name = fields.size() == 3 ? std::string(fields[2]) : "sha256:" + ToHex(e.digest).substr(0, 8);
  return e;
}

bool StartsWithBearer(std::string_view value) {
  if (value.size() < kBearer.size()) return false;
  for (size_t i = 0; i < kBearer.size(); ++i) {
    const char c = value[i];
    const char lower = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    if (lower != kBearer[i]) return false;
  }
  return true;
}

AuthVerdict Refuse(AuthVerdict::Kind kind, std::string message, std::string name = "") {
  return AuthVerdict{kind, std::move(message), std::move(name)};
}

}  // namespace

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kRead:
      return "read";
    case Role::kCompile:
      return "compile";
    case Role::kAdmin:
      return "admin";
  }
  return "?";
}

std::optional<Role> RequiredRole(std::string_view method) {
  for (const MethodRole& row : kMethodRoles) {
    if (row.method == method) return row.role;
  }
  return std::nullopt;
}

Result<TokenTable> TokenTable::Parse(std::string_view text, std::string_view file) {
  TokenTable table;
  std::map<Digest, int> first_line;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const std::vector<std::string_view> fields = Fields(line.substr(0, line.find('#')));
    if (fields.empty()) continue;
    TILEJIT_ASSIGN_OR_RETURN(TokenEntry entry, ParseEntry(fields, file, line_no));
    auto [it, inserted] = first_line.emplace(entry.digest, line_no);
    if (!inserted) {
      return LineError(file, line_no,
                       "the same token digest is already on line " + std::to_string(it->second));
    }
    table.entries_.push_back(std::move(entry));
  }
  return table;
}

Result<TokenTable> TokenTable::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("cannot read the token file " + path);
  std::string text(kMaxTokenFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return InvalidArgument("cannot read the token file " + path);
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxTokenFileBytes) {
    return InvalidArgument("the token file " + path + " is larger than " +
                           std::to_string(kMaxTokenFileBytes) + " bytes");
  }
  return Parse(text, path);
}

const TokenEntry* TokenTable::Find(std::string_view token) const {
  const Digest digest = Sha256Digest(token);
  const TokenEntry* found = nullptr;
  for (const TokenEntry& e : entries_) {
    if (CRYPTO_memcmp(e.digest.data(), digest.data(), digest.size()) == 0) found = &e;
  }
  return found;
}

Status ToStatus(const AuthVerdict& verdict) {
  switch (verdict.kind) {
    case AuthVerdict::Kind::kAllowed:
      return Status::Ok();
    case AuthVerdict::Kind::kUnauthenticated:
      return Status(StatusCode::kUnauthenticated, verdict.message);
    case AuthVerdict::Kind::kPermissionDenied:
      return Status(StatusCode::kPermissionDenied, verdict.message);
  }
  return Internal("unknown authorisation verdict");
}

AuthVerdict Authorize(const TokenTable& table, std::optional<std::string_view> authorization,
                      Role required, std::string_view what) {
  using Kind = AuthVerdict::Kind;
  if (!authorization) {
    return Refuse(Kind::kUnauthenticated,
                  "this daemon requires a token: send 'authorization: Bearer TOKEN' (tilejit "
                  "--token or $TILEJIT_TOKEN)");
  }
  if (!StartsWithBearer(*authorization)) {
    return Refuse(Kind::kUnauthenticated, "the authorization header must be 'Bearer TOKEN'");
  }
  std::string_view token = authorization->substr(kBearer.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  if (token.empty() || token.size() > kMaxTokenBytes) {
    return Refuse(Kind::kUnauthenticated, "the bearer token is empty or too long");
  }
  const TokenEntry* entry = table.Find(token);
  if (entry == nullptr) return Refuse(Kind::kUnauthenticated, "unknown token");
  if (entry->role < required) {
    return Refuse(Kind::kPermissionDenied,
                  std::string(what) + " needs the " + std::string(RoleName(required)) +
                      " role; token '" + entry->name + "' has the " +
                      std::string(RoleName(entry->role)) + " role",
                  entry->name);
  }
  return AuthVerdict{Kind::kAllowed, "", entry->name};
}

TokenStore::TokenStore(std::string path, TokenTable table)
    : path_(std::move(path)), table_(std::make_shared<const TokenTable>(std::move(table))) {}

Result<std::unique_ptr<TokenStore>> TokenStore::Open(std::string path) {
  TILEJIT_ASSIGN_OR_RETURN(TokenTable table, TokenTable::Load(path));
  return std::unique_ptr<TokenStore>(new TokenStore(std::move(path), std::move(table)));
}

Status TokenStore::Reload() {
  TILEJIT_ASSIGN_OR_RETURN(TokenTable table, TokenTable::Load(path_));
  auto fresh = std::make_shared<const TokenTable>(std::move(table));
  std::lock_guard<std::mutex> lock(mu_);
  table_ = std::move(fresh);
  return Status::Ok();
}

std::shared_ptr<const TokenTable> TokenStore::table() const {
  std::lock_guard<std::mutex> lock(mu_);
  return table_;
}

}  // namespace tilejit::server
