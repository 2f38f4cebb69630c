// SPDX-License-Identifier: Apache-2.0
// The error-case driver: every errors/*.py file is a kernel with one expected diagnostic,
// written as a comment `# expected-error@+N:COL: message substring` (also @-N, or no @ for
// the comment's own line). The first error the frontend reports must be in that file, on that
// line and column, and contain the substring. Optional header comments choose the request:
// `# entry: NAME` (default kernel), `# args: 1, 2.0, x`, `# kwargs: name=value, ...`.
#include <gtest/gtest.h>

#include <regex>

#include "client/cli_values.h"
#include "tests/compiler/frontend/frontend_test_util.h"

namespace tilejit::frontend {
namespace {

struct Expectation {
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
};

std::vector<std::string> ErrorFiles() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(TILEJIT_FRONTEND_ERRORS_DIR)) {
    if (e.path().extension() == ".py") out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',') {
      size_t b = cur.find_first_not_of(' '), e = cur.find_last_not_of(' ');
      if (b != std::string::npos) out.push_back(cur.substr(b, e - b + 1));
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

// Reads the header and the (single) expectation of an error file.
bool ParseErrorFile(const std::string& text, FrontendRequest* req, Expectation* exp) {
  static const std::regex kExpect(R"(# expected-error(@([+-]\d+))?:(\d+): ?(.*)$)");
  std::istringstream in(text);
  std::string line;
  uint32_t n = 0;
  bool found = false;
  req->entry = "kernel";
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (line.rfind("# entry: ", 0) == 0) req->entry = line.substr(9);
    if (line.rfind("# args: ", 0) == 0) {
      for (const auto& a : SplitList(line.substr(8))) req->args.push_back(client::ParseCliValue(a));
    }
    if (line.rfind("# kwargs: ", 0) == 0) {
      for (const auto& a : SplitList(line.substr(10)))
        req->kwargs.push_back(*client::ParseNamedValue(a));
    }
    if (std::regex_search(line, m, kExpect)) {
      int rel = m[2].matched ? std::stoi(m[2].str()) : 0;
      exp->line = static_cast<uint32_t>(static_cast<int>(n) + rel);
      exp->column = static_cast<uint32_t>(std::stoul(m[3].str()));
      exp->message = m[4].str();
      found = true;
    }
  }
  return found;
}

class ErrorCase : public ::testing::TestWithParam<std::string> {};

TEST_P(ErrorCase, ReportsTheExpectedDiagnostic) {
  const std::string name = GetParam();
  std::string text = fetest::ReadFile(std::filesystem::path(TILEJIT_FRONTEND_ERRORS_DIR) / name);
  FrontendRequest req;
  req.source = text;
  req.file_name = name;
  Expectation exp;
  ASSERT_TRUE(ParseErrorFile(text, &req, &exp)) << name << " has no expected-error comment";
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  auto r = RunFrontend(req, &sources, &diag);
  ASSERT_FALSE(r.ok()) << name << " compiled without errors";
  const Diagnostic* first = nullptr;
  for (const Diagnostic& d : diag.diagnostics()) {
    if (d.severity == Severity::kError && first == nullptr) first = &d;
  }
  ASSERT_NE(first, nullptr);
  std::string rendered = diag.Render(*first);
  ASSERT_TRUE(first->loc.known()) << rendered;
  EXPECT_EQ(sources.name(first->loc.file_id), name) << rendered;
  EXPECT_EQ(first->loc.line, exp.line) << rendered;
  EXPECT_EQ(first->loc.column, exp.column) << rendered;
  EXPECT_NE(first->message.find(exp.message), std::string::npos)
      << "expected '" << exp.message << "' in:\n"
      << rendered;
}

INSTANTIATE_TEST_SUITE_P(Frontend, ErrorCase, ::testing::ValuesIn(ErrorFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string s = info.param.substr(0, info.param.size() - 3);
                           for (char& c : s) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return s;
                         });

TEST(ErrorCases, AtLeastFortyCases) { EXPECT_GE(ErrorFiles().size(), 40u); }

}  // namespace
}  // namespace tilejit::frontend
