// SPDX-License-Identifier: Apache-2.0
// The builtin registry: its rows are well formed, module members and aliases resolve through
// it, signatures carry their defaults, every unsupported row is reported as such, and every
// supported row is reached by some test of the repository.
#include "compiler/frontend/builtin_registry.h"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <set>

#include "tests/compiler/frontend/frontend_test_util.h"

namespace tilejit::frontend {
namespace {

bool IsHostHandler(BuiltinHandler h) {
  return h >= BuiltinHandler::kCeilDiv && h <= BuiltinHandler::kLayout;
}

TEST(BuiltinRegistry, RowsAreWellFormed) {
  std::set<std::string_view> names;
  for (const BuiltinRow& row : BuiltinRows()) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_TRUE(names.insert(row.name).second) << "duplicate row";
    const Signature& sig = SignatureOf(row);
    EXPECT_LE(sig.required, sig.params.size());
    EXPECT_TRUE(sig.variadic || sig.defaults.size() == sig.params.size());
    if (!row.alias_of.empty()) {
      const BuiltinRow* target = FindBuiltin(row.alias_of);
      ASSERT_NE(target, nullptr) << "alias of an unknown row";
      EXPECT_TRUE(target->alias_of.empty()) << "alias of an alias";
      continue;
    }
    const bool tile_op =
        row.handler == BuiltinHandler::kTileOp || row.handler == BuiltinHandler::kRowExpand ||
        row.handler == BuiltinHandler::kBrcb || row.handler == BuiltinHandler::kClamp ||
        row.handler == BuiltinHandler::kClampBound ||
        row.handler == BuiltinHandler::kArithProgression ||
        row.handler == BuiltinHandler::kAtomicAdd;
    EXPECT_EQ(row.op.has_value(), tile_op);
    EXPECT_EQ(row.scope.has_value(), row.handler == BuiltinHandler::kAlloc);
    switch (row.cls) {
      case BuiltinClass::kUnsupported:
      case BuiltinClass::kOutOfScope:
        EXPECT_EQ(row.handler, BuiltinHandler::kNone);
        break;
      case BuiltinClass::kHost:
        EXPECT_TRUE(IsHostHandler(row.handler) || row.handler == BuiltinHandler::kNone);
        break;
      case BuiltinClass::kStatement:
        EXPECT_FALSE(IsHostHandler(row.handler));
        EXPECT_NE(row.handler, BuiltinHandler::kNone);
        break;
      case BuiltinClass::kDecorator:
        EXPECT_TRUE(row.handler == BuiltinHandler::kPrimFunc ||
                    row.handler == BuiltinHandler::kMacro || row.handler == BuiltinHandler::kJit);
        break;
    }
    // T.tile.* rows are vector operations; data movement, cube and reductions live in T.*
    // (but for atomic_add, upstream's spelling of an accumulating store).
    if (row.op && row.name.rfind("T.tile.", 0) == 0 && row.handler != BuiltinHandler::kAtomicAdd) {
      auto family = ir::TileOpFamilyOf(*row.op);
      EXPECT_TRUE(family != ir::TileOpFamily::kCopy && family != ir::TileOpFamily::kCube &&
                  family != ir::TileOpFamily::kReduce);
    }
  }
}

TEST(BuiltinRegistry, ModuleMembersAndAliasesResolve) {
  auto name_of = [](std::string_view module, std::string_view attr) -> std::string {
    const BuiltinRow* row = ResolveModuleMember(module, attr);
    return row ? std::string(row->name) : "";
  };
  EXPECT_EQ(name_of("tilelang.language", "copy"), "T.copy");
  EXPECT_EQ(name_of("tilelang.language.tile", "add"), "T.tile.add");
  EXPECT_EQ(name_of("tilelang.language.tile", "copy"), "");  // not a member of T.tile
  EXPECT_EQ(name_of("tilelang", "cdiv"), "T.ceildiv");
  EXPECT_EQ(name_of("tilelang", "jit"), "tilelang.jit");
  EXPECT_EQ(name_of("tvm.tir", "DataType"), "DataType");
  EXPECT_EQ(name_of("tilelang.tvm", "DataType"), "DataType");
  EXPECT_EQ(name_of("tilelang.language", "no_such_name"), "");
  EXPECT_EQ(name_of("numpy", "add"), "");
  EXPECT_EQ(PythonBuiltin("getattr"), "getattr");
  EXPECT_EQ(PythonBuiltin("T.copy"), std::nullopt);
  EXPECT_EQ(ClassifyBuiltin("tilelang.cdiv"), BuiltinClass::kHost);
}

TEST(BuiltinRegistry, SignaturesCarryTheirDefaults) {
  const Signature& reduce = SignatureOf(*FindBuiltin("T.reduce_sum"));
  ASSERT_EQ(reduce.params.size(), 5u);
  EXPECT_EQ(reduce.required, 2u);
  EXPECT_EQ(Repr(*reduce.defaults[2]), "-1");
  EXPECT_EQ(Repr(*reduce.defaults[3]), "True");
  EXPECT_FALSE(reduce.defaults[4].has_value());  // real_shape=None: unset
  const Signature& wait = SignatureOf(*FindBuiltin("T.wait_cross_flag"));
  EXPECT_EQ(Repr(*wait.defaults[1]), "''");
  EXPECT_TRUE(SignatureOf(*FindBuiltin("max")).variadic);
  EXPECT_TRUE(SignatureOf(*FindBuiltin("T.barrier_all")).params.empty());
}

TEST(BuiltinRegistry, EveryUnsupportedRowIsReportedAsSuch) {
  for (const BuiltinRow& row : BuiltinRows()) {
    if (row.cls != BuiltinClass::kUnsupported && row.cls != BuiltinClass::kOutOfScope) continue;
    std::string d;
    EXPECT_FALSE(fetest::EvalExpr(std::string(row.name) + "(1)", &d)) << row.name;
    EXPECT_NE(d.find(NotSupportedText(row)), std::string::npos) << d;
  }
}

// True when `text` holds `needle` not preceded or followed by an identifier character.
bool HasWord(const std::string& text, std::string_view needle) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    bool left = at == 0 || (!ident(text[at - 1]) && text[at - 1] != '.');
    size_t end = at + needle.size();
    bool right = end == text.size() || !ident(text[end]);
    if (left && right) return true;
  }
  return false;
}

// The repository's tests, full-line comments dropped (so a mention in a comment does not
// count), this file excluded (it names rows without using them).
std::string AllTestSources() {
  std::string all;
  const std::filesystem::path root = std::filesystem::path(TILEJIT_SOURCE_DIR) / "tests";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const auto& p = entry.path();
    if (!entry.is_regular_file() || p.filename() == "builtin_registry_test.cc") continue;
    const std::string ext = p.extension().string();
    if (ext != ".cc" && ext != ".py" && ext != ".h") continue;
    std::istringstream in(fetest::ReadFile(p));
    for (std::string line; std::getline(in, line);) {
      size_t first = line.find_first_not_of(" \t");
      if (first != std::string::npos && (line.compare(first, 2, "//") == 0 || line[first] == '#'))
        continue;
      all += line + "\n";
    }
  }
  return all;
}

TEST(BuiltinRegistry, EverySupportedRowIsReachedByATest) {
  const std::string tests = AllTestSources();
  ASSERT_FALSE(tests.empty());
  for (const BuiltinRow& row : BuiltinRows()) {
    if (row.cls == BuiltinClass::kUnsupported || row.cls == BuiltinClass::kOutOfScope) {
      continue;  // the test above reaches them
    }
    // Python builtins are called by bare name; module members by their dotted spelling.
    bool bare = row.name.find('.') == std::string_view::npos;
    std::string needle = bare ? std::string(row.name) + "(" : std::string(row.name);
    if (bare ? tests.find(needle) != std::string::npos && HasWord(tests, row.name)
             : HasWord(tests, needle)) {
      continue;
    }
    ADD_FAILURE() << "no test uses " << row.name << " (searched for '" << needle << "')";
  }
}

}  // namespace
}  // namespace tilejit::frontend
