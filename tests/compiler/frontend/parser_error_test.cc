// SPDX-License-Identifier: Apache-2.0
// Syntax errors. The files in syntax_errors/ carry their expectations MLIR-style: a comment
// `# expected-error@+N:COL: substring` says that the top-level statement N lines below fails
// with an error at that line and column whose message contains the substring. The driver
// checks every expectation and that no other statement failed. Further tests cover the
// nesting limits that protect the stack.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/compiler/frontend/syntax_test_util.h"

namespace tilejit::frontend {
namespace {

using testing::CountUnsupported;
using testing::ParseText;

struct Expectation {
  uint32_t line = 0, column = 0;
  std::string substring;
};

std::vector<Expectation> ReadExpectations(const std::string& text) {
  std::vector<Expectation> out;
  const std::string tag = "# expected-error@+";
  uint32_t line = 1;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string l = text.substr(begin, end - begin);
    if (l.rfind(tag, 0) == 0) {
      Expectation e;
      size_t p = tag.size();
      size_t colon1 = l.find(':', p), colon2 = l.find(':', colon1 + 1);
      e.line = line + static_cast<uint32_t>(std::stoul(l.substr(p, colon1 - p)));
      e.column = static_cast<uint32_t>(std::stoul(l.substr(colon1 + 1, colon2 - colon1 - 1)));
      e.substring = l.substr(colon2 + 2);
      out.push_back(e);
    }
    ++line;
    begin = end + 1;
  }
  return out;
}

std::vector<std::string> ErrorFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(TILEJIT_SYNTAX_ERRORS_DIR)) {
    if (entry.path().extension() == ".py") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class SyntaxErrorFileTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SyntaxErrorFileTest, ReportsEveryExpectedErrorAtItsLocation) {
  std::string path = std::string(TILEJIT_SYNTAX_ERRORS_DIR) + "/" + GetParam();
  std::string text = testing::ReadFile(path);
  std::vector<Expectation> want = ReadExpectations(text);
  ASSERT_FALSE(want.empty()) << path;
  auto p = ParseText(text, GetParam());
  std::vector<const Stmt*> got;
  for (const StmtPtr& s : p.module.body) {
    if (s->kind == StmtKind::kUnsupported) got.push_back(s.get());
  }
  for (const Expectation& e : want) {
    auto match = std::find_if(got.begin(), got.end(), [&](const Stmt* s) {
      return s->unsupported_loc.line == e.line && s->unsupported_loc.column == e.column &&
             s->unsupported_reason.find(e.substring) != std::string::npos;
    });
    if (match == got.end()) {
      ADD_FAILURE() << GetParam() << ":" << e.line << ":" << e.column << ": missing error '"
                    << e.substring << "'\n"
                    << DumpModule(p.module);
      continue;
    }
    EXPECT_EQ((*match)->unsupported_loc.file_id, p.file_id);
    EXPECT_EQ(p.sources->Describe((*match)->unsupported_loc),
              GetParam() + ":" + std::to_string(e.line) + ":" + std::to_string(e.column));
    got.erase(match);
  }
  for (const Stmt* s : got) {
    ADD_FAILURE() << GetParam() << ": unexpected error at "
                  << p.sources->Describe(s->unsupported_loc) << ": " << s->unsupported_reason;
  }
}

INSTANTIATE_TEST_SUITE_P(Files, SyntaxErrorFileTest, ::testing::ValuesIn(ErrorFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

TEST(SyntaxErrorFiles, HoldAtLeastTwentyFiveExpectations) {
  size_t total = 0;
  for (const std::string& f : ErrorFiles()) {
    total += ReadExpectations(testing::ReadFile(std::string(TILEJIT_SYNTAX_ERRORS_DIR) + "/" + f))
                 .size();
  }
  EXPECT_GE(total, 25u);
}

TEST(SyntaxErrorFiles, ValidCodeAroundErrorsStillParses) {
  auto p =
      ParseText(testing::ReadFile(std::string(TILEJIT_SYNTAX_ERRORS_DIR) + "/unclosed_bracket.py"));
  ASSERT_GE(p.module.body.size(), 2u);
  EXPECT_EQ(p.module.body[1]->kind, StmtKind::kFunctionDef);
  auto t = ParseText(
      testing::ReadFile(std::string(TILEJIT_SYNTAX_ERRORS_DIR) + "/unterminated_triple.py"));
  ASSERT_GE(t.module.body.size(), 2u);
  EXPECT_EQ(t.module.body[0]->kind, StmtKind::kFunctionDef);
}

const Stmt& OnlyUnsupported(const testing::Parsed& p) {
  for (const StmtPtr& s : p.module.body) {
    if (s->kind == StmtKind::kUnsupported) return *s;
  }
  static const Stmt kNone(StmtKind::kPass, {});
  ADD_FAILURE() << "no unsupported statement";
  return kNone;
}

TEST(ParserLimits, DeepParenthesesAreADiagnosticNotACrash) {
  auto p = ParseText("x = " + std::string(50000, '(') + "1" + std::string(50000, ')') + "\n");
  const Stmt& s = OnlyUnsupported(p);
  EXPECT_NE(s.unsupported_reason.find("nested too deeply"), std::string::npos)
      << s.unsupported_reason;
  EXPECT_EQ(s.bound_names, (std::vector<std::string>{"x"}));
}

TEST(ParserLimits, DeepUnaryAndNotChainsAreDiagnostics) {
  for (std::string op : {"-", "not ", "~", "+"}) {
    std::string text = "x = ";
    for (int i = 0; i < 20000; ++i) text += op;
    auto p = ParseText(text + "1\n");
    EXPECT_NE(OnlyUnsupported(p).unsupported_reason.find("nested too deeply"), std::string::npos);
  }
}

TEST(ParserLimits, DeepSubscriptsAndCallsAreDiagnostics) {
  std::string sub = "x = ", call = "y = ";
  for (int i = 0; i < 5000; ++i) sub += "a[", call += "f(";
  auto p = ParseText(sub + "\n" + call + "\nz = 1\n");
  EXPECT_EQ(CountUnsupported(p.module), 1);  // the unclosed bracket swallows the rest
}

TEST(ParserLimits, LongOperatorChainsAreBoundedInHeight) {
  std::string text = "x = 1";
  for (int i = 0; i < 100000; ++i) text += " + 1";
  auto p = ParseText(text + "\ny = a.b.c\n");
  ASSERT_EQ(p.module.body.size(), 2u);
  EXPECT_NE(p.module.body[0]->unsupported_reason.find("too large"), std::string::npos);
  EXPECT_EQ(p.module.body[1]->kind, StmtKind::kAssign);
  std::string attrs = "x = a";
  for (int i = 0; i < 100000; ++i) attrs += ".b";
  EXPECT_EQ(CountUnsupported(ParseText(attrs + "\n").module), 1);
}

TEST(ParserLimits, LongElifChainsAndDeepBlocksAreDiagnostics) {
  std::string chain = "if a:\n    pass\n";
  for (int i = 0; i < 5000; ++i) chain += "elif a:\n    pass\n";
  auto p = ParseText(chain + "y = 1\n");
  ASSERT_EQ(p.module.body.size(), 2u);
  EXPECT_NE(p.module.body[0]->unsupported_reason.find("nested too deeply"), std::string::npos);
  std::string deep;
  for (int i = 0; i < 150; ++i) deep += std::string(static_cast<size_t>(i), ' ') + "if a:\n";
  deep += std::string(150, ' ') + "pass\n";
  auto q = ParseText(deep + "z = 2\n");
  ASSERT_EQ(q.module.body.size(), 2u);
  EXPECT_EQ(q.module.body[0]->kind, StmtKind::kUnsupported);
  EXPECT_EQ(q.module.body[1]->kind, StmtKind::kAssign);
}

TEST(ParserLimits, ModestNestingIsAccepted) {
  std::string text = "x = " + std::string(60, '(') + "1" + std::string(60, ')') + "\n";
  EXPECT_EQ(CountUnsupported(ParseText(text).module), 0);
  std::string blocks;
  for (int i = 0; i < 60; ++i) blocks += std::string(static_cast<size_t>(i), ' ') + "if a:\n";
  blocks += std::string(60, ' ') + "pass\n";
  EXPECT_EQ(CountUnsupported(ParseText(blocks).module), 0);
}

TEST(ParseExpression, ReportsFileLineAndColumn) {
  SourceManager sources;
  uint32_t id = sources.AddFile("arg.py", "a +\n");
  DiagnosticEngine diag(&sources);
  Result<ExprPtr> r = ParseExpression(sources, id, &diag);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCompileError);
  ASSERT_EQ(diag.diagnostics().size(), 1u);
  EXPECT_EQ(diag.diagnostics()[0].loc, (SourceLoc{id, 1, 4}));
  EXPECT_NE(diag.RenderAll().find("arg.py:1:4: error: expected an expression"), std::string::npos)
      << diag.RenderAll();
}

TEST(ParseExpression, RejectsTrailingText) {
  SourceManager sources;
  uint32_t id = sources.AddFile("arg.py", "a b");
  DiagnosticEngine diag(&sources);
  EXPECT_FALSE(ParseExpression(sources, id, &diag).ok());
  EXPECT_EQ(diag.diagnostics()[0].loc, (SourceLoc{id, 1, 3}));
}

}  // namespace
}  // namespace tilejit::frontend
