// SPDX-License-Identifier: Apache-2.0
// Robustness: seeded mutations of the shared kernels (byte flips, token deletions and token
// duplications) run through the whole frontend (parse, evaluate, trace, print). Every case
// must give IR or a diagnostic; never a crash, an exception or a hang. The case count is
// fixed (about 3000), so the run time is bounded by input size, not by a clock.
#include <gtest/gtest.h>

#include <random>

#include "tests/compiler/frontend/frontend_test_util.h"

namespace tilejit::frontend {
namespace {

// Token boundaries: starts of runs of identifier characters, digits or single punctuation.
std::vector<std::pair<size_t, size_t>> Tokens(const std::string& s) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (std::isspace(c)) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (std::isalnum(c) || c == '_') {
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    }
    out.emplace_back(i, j - i);
    i = j;
  }
  return out;
}

std::string Mutate(const std::string& src, std::mt19937_64& rng, int kind) {
  std::string s = src;
  auto toks = Tokens(s);
  if (toks.empty()) return s;
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    toks = Tokens(s);
    if (toks.empty()) break;
    auto [at, len] = toks[pick(toks.size())];
    switch (kind) {
      case 0: {  // byte flip
        size_t p = pick(s.size());
        s[p] = static_cast<char>(s[p] ^ (1 << pick(8)));
        break;
      }
      case 1:  // token deletion
        s.erase(at, len);
        break;
      default:  // token duplication
        s.insert(at, s.substr(at, len) + " ");
        break;
    }
  }
  return s;
}

TEST(FrontendMutation, MutatedKernelsGiveIrOrDiagnostics) {
  auto cases = fetest::LoadCases();
  ASSERT_FALSE(cases.empty());
  constexpr int kPerKind = 100;
  std::mt19937_64 rng(20261129);
  int total = 0, ok = 0;
  for (const auto& c : cases) {
    FrontendRequest base = fetest::CaseRequest(c);
    for (int kind = 0; kind < 3; ++kind) {
      for (int n = 0; n < kPerKind; ++n) {
        FrontendRequest req = base;
        req.source = Mutate(base.source, rng, kind);
        SourceManager sources;
        DiagnosticEngine diag(&sources);
        auto r = RunFrontend(req, &sources, &diag);
        ++total;
        if (r.ok()) {
          ++ok;
          EXPECT_FALSE(r->ir_text.empty());
        } else {
          ASSERT_TRUE(diag.has_errors()) << "failure without a diagnostic:\n" << req.source;
          for (const Diagnostic& d : diag.diagnostics()) {
            ASSERT_EQ(d.message.find("internal error"), std::string::npos)
                << d.message << "\n--- source ---\n"
                << req.source;
          }
          diag.RenderAll();  // rendering must not crash either
        }
      }
    }
  }
  EXPECT_EQ(total, static_cast<int>(cases.size()) * 3 * kPerKind);
  EXPECT_GT(ok, 0);  // some mutations (comments, names) still compile
}

}  // namespace
}  // namespace tilejit::frontend
