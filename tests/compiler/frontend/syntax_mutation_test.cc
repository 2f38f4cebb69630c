// SPDX-License-Identifier: Apache-2.0
// Seeded mutation test over the shared kernels: byte flips, token deletions and token
// duplications (about 3000 cases). Every case must come back as a Module (syntax errors are
// kUnsupported statements carrying a located message), never crash or hang; the dump of the
// result must also succeed. Run under ASan+UBSan for full value.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "tests/compiler/frontend/syntax_test_util.h"

namespace tilejit::frontend {
namespace {

constexpr int kCasesPerKernel = 300;

std::vector<std::string> Kernels() {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(testing::KernelsDir())) {
    if (e.path().extension() == ".py") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Token spans (byte offsets) of `text`, for token-level mutations.
std::vector<std::pair<size_t, size_t>> TokenSpans(const std::string& text) {
  SourceManager sources;
  uint32_t id = sources.AddFile("k.py", text);
  LexedFile lexed = Tokenize(sources, id);
  std::vector<std::pair<size_t, size_t>> spans;
  const char* base = sources.text(id).data();
  for (const Token& t : lexed.tokens) {
    if (!t.text.empty()) {
      spans.emplace_back(static_cast<size_t>(t.text.data() - base), t.text.size());
    }
  }
  return spans;
}

std::string Mutate(const std::string& text, const std::vector<std::pair<size_t, size_t>>& spans,
                   std::mt19937* rng) {
  std::string out = text;
  int rounds = 1 + static_cast<int>((*rng)() % 3);
  for (int r = 0; r < rounds && !out.empty(); ++r) {
    switch ((*rng)() % 3) {
      case 0: {  // byte flip: a random byte, biased towards Python's punctuation
        static const char kInteresting[] = "()[]{}:,\"'\\#\n\t .=*-+";
        size_t at = (*rng)() % out.size();
        out[at] = (*rng)() % 2 ? kInteresting[(*rng)() % (sizeof(kInteresting) - 1)]
                               : static_cast<char>((*rng)() % 256);
        break;
      }
      case 1: {  // token deletion
        auto [at, len] = spans[(*rng)() % spans.size()];
        if (at + len <= out.size()) out.erase(at, len);
        break;
      }
      default: {  // token duplication
        auto [at, len] = spans[(*rng)() % spans.size()];
        if (at + len <= out.size()) out.insert(at, out.substr(at, len));
        break;
      }
    }
  }
  return out;
}

TEST(SyntaxMutation, EveryMutantParsesToAModuleOrLocatedErrors) {
  std::vector<std::string> kernels = Kernels();
  ASSERT_FALSE(kernels.empty());
  std::mt19937 rng(20261129);
  int cases = 0, with_errors = 0;
  for (const std::string& path : kernels) {
    std::string text = testing::ReadFile(path);
    auto spans = TokenSpans(text);
    ASSERT_FALSE(spans.empty());
    for (int i = 0; i < kCasesPerKernel; ++i, ++cases) {
      std::string mutant = Mutate(text, spans, &rng);
      auto p = testing::ParseText(mutant, "mutant.py");
      ASSERT_NE(p.file_id, 0u);
      for (const StmtPtr& s : p.module.body) {
        if (s->kind != StmtKind::kUnsupported) continue;
        ++with_errors;
        ASSERT_FALSE(s->unsupported_reason.empty()) << mutant;
        ASSERT_TRUE(s->unsupported_loc.known()) << mutant;
        ASSERT_EQ(s->unsupported_loc.file_id, p.file_id);
        break;
      }
      std::string dump = DumpModule(p.module);
      EXPECT_FALSE(dump.empty() && !p.module.body.empty());
    }
  }
  EXPECT_EQ(cases, kCasesPerKernel * static_cast<int>(kernels.size()));
  EXPECT_GT(with_errors, 0);
}

}  // namespace
}  // namespace tilejit::frontend
