// SPDX-License-Identifier: Apache-2.0
// Bearer tokens without gRPC: the token file's grammar and its errors, the role order, the
// verdict on one call, and reloading the file.
#include "server/auth.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace tilejit::server {
namespace {

std::string Hex(std::string_view token) { return Sha256Hex(token); }

std::string Line(std::string_view role, std::string_view token, std::string_view name = "") {
  std::string line = std::string(role) + " " + Hex(token);
  if (!name.empty()) line += " " + std::string(name);
  return line + "\n";
}

Status ParseError(const std::string& text) {
  Result<TokenTable> t = TokenTable::Parse(text, "tokens.txt");
  EXPECT_FALSE(t.ok());
  return t.ok() ? Status::Ok() : t.status();
}

TEST(TokenTable, ParsesRolesNamesCommentsBlankLinesAndCrlf) {
  const std::string text = "# who may do what\n\n" + Line("read", "r-token", "dashboards") +
                           "  \t\n" + Line("compile", "c-token") + "admin\t" + Hex("a-token") +
                           "  ops # on call\r\n";
  Result<TokenTable> t = TokenTable::Parse(text, "tokens.txt");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 3u);
  EXPECT_EQ(t->entries()[0].role, Role::kRead);
  EXPECT_EQ(t->entries()[0].name, "dashboards");
  EXPECT_EQ(t->entries()[1].role, Role::kCompile);
  EXPECT_EQ(t->entries()[1].name, "sha256:" + Hex("c-token").substr(0, 8));
  EXPECT_EQ(t->entries()[2].role, Role::kAdmin);
  EXPECT_EQ(t->entries()[2].name, "ops");
}

TEST(TokenTable, AcceptsUpperCaseHexAndAnEmptyFile) {
  std::string upper = Hex("t");
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  Result<TokenTable> t = TokenTable::Parse("compile " + upper + "\n", "f");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_NE(t->Find("t"), nullptr);
  Result<TokenTable> empty = TokenTable::Parse("# nobody yet\n", "f");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 0u);
}

TEST(TokenTable, RejectsAnUnknownRoleNamingFileAndLine) {
  const Status s = ParseError(Line("read", "a") + "\nwrite " + Hex("b") + "\n");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("tokens.txt:3: unknown role 'write'"), std::string::npos)
      << s.message();
  // Roles are lower case, as written in the docs.
  EXPECT_NE(ParseError("Admin " + Hex("x")).message().find("tokens.txt:1: unknown role"),
            std::string::npos);
}

TEST(TokenTable, RejectsADigestThatIsNot64HexDigits) {
  const std::string good = Hex("a");
  for (const std::string& bad :
       {good.substr(0, 63), good + "0", "g" + good.substr(1), std::string("plain-text-token")}) {
    const Status s = ParseError("compile " + bad + "\n");
    EXPECT_NE(s.message().find("tokens.txt:1: expected the token's SHA-256 as 64 hex digits"),
              std::string::npos)
        << bad << ": " << s.message();
  }
}

TEST(TokenTable, RejectsADuplicateDigestNamingBothLines) {
  const Status s =
      ParseError(Line("read", "same", "first") + "# comment\n" + Line("admin", "same", "second"));
  EXPECT_NE(s.message().find("tokens.txt:3: the same token digest is already on line 1"),
            std::string::npos)
      << s.message();
}

TEST(TokenTable, RejectsMissingOrExtraFieldsAndBadNames) {
  EXPECT_NE(ParseError("admin\n").message().find("tokens.txt:1: expected 'ROLE SHA256HEX [NAME]'"),
            std::string::npos);
  EXPECT_NE(ParseError("admin " + Hex("a") + " two words\n").message().find("got 4 fields"),
            std::string::npos);
  EXPECT_NE(ParseError("admin " + Hex("a") + " " + std::string(65, 'n') + "\n")
                .message()
                .find("NAME must be"),
            std::string::npos);
}

TEST(TokenTable, FindsOnlyTokensWhoseDigestIsListed) {
  Result<TokenTable> t = TokenTable::Parse(Line("read", "alpha") + Line("admin", "beta"), "f");
  ASSERT_TRUE(t.ok());
  ASSERT_NE(t->Find("beta"), nullptr);
  EXPECT_EQ(t->Find("beta")->role, Role::kAdmin);
  EXPECT_EQ(t->Find("alpha")->role, Role::kRead);
  EXPECT_EQ(t->Find("gamma"), nullptr);
  EXPECT_EQ(t->Find(Hex("alpha")), nullptr);  // the digest itself is not a token
  EXPECT_EQ(t->Find(""), nullptr);
}

TEST(TokenTable, LoadNamesAMissingFile) {
  Result<TokenTable> t = TokenTable::Load("/nonexistent/tokens.txt");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("/nonexistent/tokens.txt"), std::string::npos);
}

TEST(Roles, RpcRowsFollowTheIssue) {
  EXPECT_EQ(RequiredRole("GetKernel"), Role::kRead);
  EXPECT_EQ(RequiredRole("Launch"), Role::kRead);
  EXPECT_EQ(RequiredRole("Stats"), Role::kRead);
  EXPECT_EQ(RequiredRole("List"), Role::kRead);
  EXPECT_EQ(RequiredRole("Compile"), Role::kCompile);
  EXPECT_EQ(RequiredRole("BatchCompile"), Role::kCompile);
  EXPECT_EQ(RequiredRole("CompileStream"), Role::kCompile);
  for (const char* admin : {"Evict", "Pin", "Unpin", "Export", "Import"}) {
    EXPECT_EQ(RequiredRole(admin), Role::kAdmin) << admin;
  }
  EXPECT_EQ(RequiredRole("NoSuchMethod"), std::nullopt);
  EXPECT_EQ(RequiredRole("compile"), std::nullopt);  // names are exact
}

TEST(Roles, EachRoleMayDoWhatTheLowerOnesMay) {
  Result<TokenTable> t = TokenTable::Parse(
      Line("read", "r", "reader") + Line("compile", "c", "builder") + Line("admin", "a", "ops"),
      "f");
  ASSERT_TRUE(t.ok());
  const std::pair<const char*, Role> tokens[] = {
      {"r", Role::kRead}, {"c", Role::kCompile}, {"a", Role::kAdmin}};
  for (const auto& [token, role] : tokens) {
    for (Role required : {Role::kRead, Role::kCompile, Role::kAdmin}) {
      const AuthVerdict v = Authorize(*t, "Bearer " + std::string(token), required, "X");
      EXPECT_EQ(v.allowed(), role >= required) << token << " for " << RoleName(required);
      if (!v.allowed()) {
        EXPECT_EQ(v.kind, AuthVerdict::Kind::kPermissionDenied);
      }
    }
  }
}

TEST(Authorize, RefusesMissingMalformedAndUnknownTokensAsUnauthenticated) {
  Result<TokenTable> t = TokenTable::Parse(Line("admin", "secret", "ops"), "f");
  ASSERT_TRUE(t.ok());
  using Kind = AuthVerdict::Kind;
  EXPECT_EQ(Authorize(*t, std::nullopt, Role::kRead, "Stats").kind, Kind::kUnauthenticated);
  EXPECT_NE(Authorize(*t, std::nullopt, Role::kRead, "Stats").message.find("Bearer TOKEN"),
            std::string::npos);
  EXPECT_EQ(Authorize(*t, "secret", Role::kRead, "Stats").kind, Kind::kUnauthenticated);
  EXPECT_EQ(Authorize(*t, "Basic secret", Role::kRead, "Stats").kind, Kind::kUnauthenticated);
  EXPECT_EQ(Authorize(*t, "Bearer ", Role::kRead, "Stats").kind, Kind::kUnauthenticated);
  EXPECT_EQ(Authorize(*t, "Bearer other", Role::kRead, "Stats").message, "unknown token");
  EXPECT_EQ(
      Authorize(*t, "Bearer " + std::string(kMaxTokenBytes + 1, 's'), Role::kRead, "Stats").kind,
      Kind::kUnauthenticated);
  // The scheme is case-insensitive (RFC 6750); the token is not.
  EXPECT_TRUE(Authorize(*t, "bearer secret", Role::kAdmin, "Evict").allowed());
  EXPECT_EQ(Authorize(*t, "Bearer SECRET", Role::kRead, "Stats").kind, Kind::kUnauthenticated);
  const AuthVerdict ok = Authorize(*t, "Bearer secret", Role::kAdmin, "Evict");
  EXPECT_TRUE(ok.allowed());
  EXPECT_EQ(ok.token_name, "ops");
}

TEST(Authorize, PermissionDeniedNamesTheCallTheRolesAndTheToken) {
  Result<TokenTable> t = TokenTable::Parse(Line("compile", "ci", "ci-runner"), "f");
  ASSERT_TRUE(t.ok());
  const AuthVerdict v = Authorize(*t, "Bearer ci", Role::kAdmin, "Evict");
  EXPECT_EQ(v.kind, AuthVerdict::Kind::kPermissionDenied);
  EXPECT_EQ(v.message, "Evict needs the admin role; token 'ci-runner' has the compile role");
  EXPECT_EQ(v.token_name, "ci-runner");
}

class TokenStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("tilejit_tokens_" + std::to_string(getpid()) + ".txt"))
                .string();
  }
  void TearDown() override { std::filesystem::remove(path_); }
  void Write(const std::string& text) { std::ofstream(path_, std::ios::trunc) << text; }
  std::string path_;
};

TEST_F(TokenStoreTest, ReloadTakesARevokedTokenAway) {
  Write(Line("admin", "kept") + Line("admin", "revoked"));
  Result<std::unique_ptr<TokenStore>> store = TokenStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status();
  std::shared_ptr<const TokenTable> before = (*store)->table();
  EXPECT_NE(before->Find("revoked"), nullptr);
  Write(Line("admin", "kept"));
  ASSERT_TRUE((*store)->Reload().ok());
  EXPECT_EQ((*store)->table()->Find("revoked"), nullptr);
  EXPECT_NE((*store)->table()->Find("kept"), nullptr);
  EXPECT_NE(before->Find("revoked"), nullptr);  // a table in use stays whole
}

TEST_F(TokenStoreTest, ABadFileOnReloadKeepsTheTokensInForce) {
  Write(Line("read", "reader"));
  Result<std::unique_ptr<TokenStore>> store = TokenStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status();
  Write(Line("read", "reader") + "superuser " + Hex("x") + "\n");
  const Status s = (*store)->Reload();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find(path_ + ":2: unknown role 'superuser'"), std::string::npos)
      << s.message();
  EXPECT_NE((*store)->table()->Find("reader"), nullptr);
}

TEST_F(TokenStoreTest, OpenRefusesABadFile) {
  Write("admin nothex\n");
  Result<std::unique_ptr<TokenStore>> store = TokenStore::Open(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find(path_ + ":1:"), std::string::npos);
}

}  // namespace
}  // namespace tilejit::server
