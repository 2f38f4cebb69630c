// SPDX-License-Identifier: Apache-2.0
#include "compiler/frontend/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/frontend/string_literal.h"

namespace tilejit::frontend {
namespace {

using K = TokenKind;

struct Lexed {
  SourceManager sources;
  LexedFile file;
};

std::unique_ptr<Lexed> Lex(const std::string& text) {
  auto l = std::make_unique<Lexed>();
  uint32_t id = l->sources.AddFile("lex.py", text);
  l->file = Tokenize(l->sources, id);
  return l;
}

std::vector<K> Kinds(const std::string& text) {
  std::vector<K> out;
  auto lexed = Lex(text);
  for (const Token& t : lexed->file.tokens) out.push_back(t.kind);
  return out;
}

TEST(Lexer, EmitsIndentAndDedentFromAStack) {
  EXPECT_EQ(
      Kinds("if a:\n    b\n    if c:\n        d\ne\n"),
      (std::vector<K>{K::kKwIf, K::kName, K::kColon, K::kNewline, K::kIndent, K::kName, K::kNewline,
                      K::kKwIf, K::kName, K::kColon, K::kNewline, K::kIndent, K::kName, K::kNewline,
                      K::kDedent, K::kDedent, K::kName, K::kNewline, K::kEndOfFile}));
}

TEST(Lexer, ClosesOpenBlocksAtEndOfFileWithoutTrailingNewline) {
  EXPECT_EQ(Kinds("if a:\n  b"),
            (std::vector<K>{K::kKwIf, K::kName, K::kColon, K::kNewline, K::kIndent, K::kName,
                            K::kNewline, K::kDedent, K::kEndOfFile}));
}

TEST(Lexer, SkipsCommentsAndBlankLines) {
  EXPECT_EQ(Kinds("# c\n\n   \nx  # tail\n      # deep comment\n\ny\n"),
            (std::vector<K>{K::kName, K::kNewline, K::kName, K::kNewline, K::kEndOfFile}));
}

TEST(Lexer, JoinsLinesInsideBracketsAndAfterBackslash) {
  EXPECT_EQ(Kinds("f(a,\n  b,\n\n    [c,\n d])\nx = 1 + \\\n    2\n"),
            (std::vector<K>{K::kName,  K::kLPar, K::kName,    K::kComma,   K::kName,
                            K::kComma, K::kLSqb, K::kName,    K::kComma,   K::kName,
                            K::kRSqb,  K::kRPar, K::kNewline, K::kName,    K::kEqual,
                            K::kInt,   K::kPlus, K::kInt,     K::kNewline, K::kEndOfFile}));
}

TEST(Lexer, AcceptsCrLfLineEnds) {
  EXPECT_EQ(Kinds("if a:\r\n    b\r\n"),
            (std::vector<K>{K::kKwIf, K::kName, K::kColon, K::kNewline, K::kIndent, K::kName,
                            K::kNewline, K::kDedent, K::kEndOfFile}));
}

TEST(Lexer, RecognisesEveryOperatorGreedily) {
  std::string text =
      "( ) [ ] { } : , ; + - * / | & < > = . % == != <= >= ~ ^ << >> ** += -= *= /= %= &= |= "
      "^= <<= >>= **= // //= @ @= -> ... :=\n";
  std::vector<K> want = {K::kLPar,
                         K::kRPar,
                         K::kLSqb,
                         K::kRSqb,
                         K::kLBrace,
                         K::kRBrace,
                         K::kColon,
                         K::kComma,
                         K::kSemi,
                         K::kPlus,
                         K::kMinus,
                         K::kStar,
                         K::kSlash,
                         K::kVBar,
                         K::kAmper,
                         K::kLess,
                         K::kGreater,
                         K::kEqual,
                         K::kDot,
                         K::kPercent,
                         K::kEqEqual,
                         K::kNotEqual,
                         K::kLessEqual,
                         K::kGreaterEqual,
                         K::kTilde,
                         K::kCircumflex,
                         K::kLeftShift,
                         K::kRightShift,
                         K::kDoubleStar,
                         K::kPlusEqual,
                         K::kMinEqual,
                         K::kStarEqual,
                         K::kSlashEqual,
                         K::kPercentEqual,
                         K::kAmperEqual,
                         K::kVBarEqual,
                         K::kCircumflexEqual,
                         K::kLeftShiftEqual,
                         K::kRightShiftEqual,
                         K::kDoubleStarEqual,
                         K::kDoubleSlash,
                         K::kDoubleSlashEqual,
                         K::kAt,
                         K::kAtEqual,
                         K::kRArrow,
                         K::kEllipsis,
                         K::kColonEqual,
                         K::kNewline,
                         K::kEndOfFile};
  EXPECT_EQ(Kinds(text), want);
  EXPECT_EQ(Kinds("a**=b//c->d\n"),
            (std::vector<K>{K::kName, K::kDoubleStarEqual, K::kName, K::kDoubleSlash, K::kName,
                            K::kRArrow, K::kName, K::kNewline, K::kEndOfFile}));
}

TEST(Lexer, DistinguishesKeywordsFromNames) {
  EXPECT_EQ(Kinds("def define None Nonee not_ in is match\n"),
            (std::vector<K>{K::kKwDef, K::kName, K::kKwNone, K::kName, K::kName, K::kKwIn, K::kKwIs,
                            K::kName, K::kNewline, K::kEndOfFile}));
}

TEST(Lexer, ConvertsIntegerLiterals) {
  auto l = Lex("0 7 1_000 0x_fF 0o17 0B1_01 9223372036854775807\n");
  std::vector<int64_t> values;
  for (const Token& t : l->file.tokens) {
    if (t.kind == K::kInt) values.push_back(t.int_value);
  }
  EXPECT_EQ(values, (std::vector<int64_t>{0, 7, 1000, 255, 15, 5, INT64_MAX}));
  EXPECT_TRUE(l->file.errors.empty());
}

TEST(Lexer, ConvertsFloatLiteralsIncludingEdgeForms) {
  auto l = Lex("1. .5 1e-5 1_0.2_5 3E+2 2.0**30 1.e2\n");
  std::vector<double> floats;
  for (const Token& t : l->file.tokens) {
    if (t.kind == K::kFloat) floats.push_back(t.float_value);
  }
  EXPECT_EQ(floats, (std::vector<double>{1.0, 0.5, 1e-5, 10.25, 300.0, 2.0, 100.0}));
  // 2.0**30 is float, power, int.
  const auto& toks = l->file.tokens;
  ASSERT_GE(toks.size(), 8u);
  EXPECT_EQ(toks[5].kind, K::kFloat);
  EXPECT_EQ(toks[6].kind, K::kDoubleStar);
  EXPECT_EQ(toks[7].kind, K::kInt);
  EXPECT_EQ(toks[7].int_value, 30);
}

TEST(Lexer, LexesEveryStringForm) {
  auto l = Lex("'a' \"b\" '''c\n''' \"\"\"d\"\"\" r'\\d' b'x' F\"y\" Rb'z' bR\"w\" u'v' rf'q'\n");
  int strings = 0;
  for (const Token& t : l->file.tokens) strings += t.kind == K::kString;
  EXPECT_EQ(strings, 11);
  EXPECT_TRUE(l->file.errors.empty());
}

TEST(Lexer, TokensCarryLineAndByteColumn) {
  auto l = Lex("x = 1\nif x:\n\tyy = 'ab' + \\\n  3\n");
  const auto& t = l->file.tokens;
  // x = 1 NEWLINE if x : NEWLINE INDENT yy = 'ab' + 3
  EXPECT_EQ(t[0].loc, (SourceLoc{1, 1, 1}));
  EXPECT_EQ(t[2].loc, (SourceLoc{1, 1, 5}));
  EXPECT_EQ(t[2].end, (SourceLoc{1, 1, 6}));
  EXPECT_EQ(t[4].loc, (SourceLoc{1, 2, 1}));
  EXPECT_EQ(t[6].loc, (SourceLoc{1, 2, 5}));
  EXPECT_EQ(t[8].kind, K::kIndent);
  EXPECT_EQ(t[9].loc, (SourceLoc{1, 3, 2}));  // byte column: the tab is one byte
  EXPECT_EQ(t[11].loc, (SourceLoc{1, 3, 7}));
  EXPECT_EQ(t[13].loc, (SourceLoc{1, 4, 3}));
  EXPECT_TRUE(t[0].line_start);
  EXPECT_FALSE(t[13].line_start);
}

TEST(Lexer, MultiLineStringEndsOnItsLastLine) {
  auto l = Lex("s = '''a\nbc''' + x\n");
  const auto& t = l->file.tokens;
  EXPECT_EQ(t[2].loc, (SourceLoc{1, 1, 5}));
  EXPECT_EQ(t[2].end, (SourceLoc{1, 2, 6}));
  EXPECT_EQ(t[4].loc, (SourceLoc{1, 2, 9}));
}

TEST(Lexer, DecodesEscapes) {
  StringLiteral lit;
  std::string err;
  size_t off = 0;
  ASSERT_TRUE(DecodeStringLiteral(R"('a\tb\n\x41\101\u00e9\'\\\q')", &lit, &err, &off));
  EXPECT_EQ(lit.value, "a\tb\nAA\xc3\xa9'\\\\q");
  StringLiteral raw;
  ASSERT_TRUE(DecodeStringLiteral(R"(r'\n\x')", &raw, &err, &off));
  EXPECT_EQ(raw.value, "\\n\\x");
  EXPECT_TRUE(raw.raw);
  StringLiteral bad;
  EXPECT_FALSE(DecodeStringLiteral(R"("ab\x4")", &bad, &err, &off));
  EXPECT_EQ(off, 3u);
  EXPECT_NE(err.find("\\x"), std::string::npos);
}

struct ErrorCase {
  const char* text;
  uint32_t line, column;
  const char* message;
};

class LexerErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(LexerErrorTest, ReportsAtExactLocation) {
  const ErrorCase& c = GetParam();
  auto l = Lex(c.text);
  ASSERT_FALSE(l->file.errors.empty()) << c.text;
  const LexError& e = l->file.errors[0];
  EXPECT_EQ(e.loc.line, c.line) << c.text;
  EXPECT_EQ(e.loc.column, c.column) << c.text;
  EXPECT_NE(e.message.find(c.message), std::string::npos) << e.message;
  EXPECT_EQ(l->file.tokens.back().kind, K::kEndOfFile);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LexerErrorTest,
    ::testing::Values(ErrorCase{"x = 'abc\ny = 1\n", 1, 5, "unterminated string literal"},
                      ErrorCase{"x = f'abc\n", 1, 6, "unterminated string literal"},
                      ErrorCase{"x = 1\ns = \"\"\"abc\nmore\n", 2, 5, "unterminated triple-quoted"},
                      ErrorCase{"if a:\n    b\n  c\n", 3, 3, "unindent does not match"},
                      ErrorCase{"if a:\n        b\n\tc\n", 3, 2,
                                "inconsistent use of tabs and spaces"},
                      ErrorCase{"x = a ? b\n", 1, 7, "unexpected character '?'"},
                      ErrorCase{"x = 9223372036854775808\n", 1, 5, "too large"},
                      ErrorCase{"x = 0xFFFFFFFFFFFFFFFF\n", 1, 5, "too large"},
                      ErrorCase{"x = (1,\n  2\n", 1, 5, "'(' was never closed"},
                      ErrorCase{"x = 1)\n", 1, 6, "unmatched ')'"},
                      ErrorCase{"x = [1)\n", 1, 7, "does not match opening '['"},
                      ErrorCase{"x = 1 \\ 2\n", 1, 7, "after line continuation"},
                      ErrorCase{"x = 1_\n", 1, 5, "invalid decimal literal"},
                      ErrorCase{"x = 08\n", 1, 5, "leading zeros"},
                      ErrorCase{"x = 0b2\n", 1, 5, "invalid binary literal"},
                      ErrorCase{"x = 1e\n", 1, 5, "invalid decimal literal"}));

TEST(Lexer, LimitsBracketNesting) {
  auto l = Lex(std::string(300, '(') + std::string(300, ')') + "\n");
  ASSERT_FALSE(l->file.errors.empty());
  EXPECT_NE(l->file.errors[0].message.find("too many nested parentheses"), std::string::npos);
  EXPECT_EQ(l->file.errors[0].loc.column, 201u);
}

TEST(Lexer, LimitsIndentationLevels) {
  std::string text;
  for (int i = 0; i < 120; ++i) text += std::string(static_cast<size_t>(i), ' ') + "if a:\n";
  text += std::string(120, ' ') + "pass\n";
  auto l = Lex(text);
  ASSERT_FALSE(l->file.errors.empty());
  EXPECT_NE(l->file.errors[0].message.find("too many levels of indentation"), std::string::npos);
}

TEST(Lexer, NeverLoopsOnGarbage) {
  std::string text;
  for (int c = 0; c < 256; ++c) text.push_back(static_cast<char>(c));
  auto l = Lex(text + "\\");
  EXPECT_EQ(l->file.tokens.back().kind, K::kEndOfFile);
  EXPECT_FALSE(l->file.errors.empty());
}

}  // namespace
}  // namespace tilejit::frontend
