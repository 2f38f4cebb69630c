// SPDX-License-Identifier: Apache-2.0
#include "common/diagnostic.h"

#include <gtest/gtest.h>

namespace tilejit {
namespace {

TEST(DiagnosticEngine, RendersLocationMessageAndCaret) {
  SourceManager sm;
  uint32_t id = sm.AddFile("kernel.py", "a = 1\n  T.copy(A, B)\n");
  DiagnosticEngine diag(&sm);
  diag.Error(SourceLoc{id, 2, 5}) << "shape " << 3 << " mismatch";
  ASSERT_TRUE(diag.has_errors());
  EXPECT_EQ(diag.RenderAll(),
            "kernel.py:2:5: error: shape 3 mismatch\n"
            "      T.copy(A, B)\n"
            "        ^\n");
}

TEST(DiagnosticEngine, WarningsAreNotErrors) {
  SourceManager sm;
  DiagnosticEngine diag(&sm);
  diag.Warning(SourceLoc{}) << "careful";
  EXPECT_FALSE(diag.has_errors());
  EXPECT_TRUE(diag.ToStatus().ok());
  EXPECT_EQ(diag.RenderAll(), "warning: careful\n");
}

TEST(DiagnosticEngine, ToStatusSummarisesFirstError) {
  SourceManager sm;
  uint32_t id = sm.AddFile("k.py", "x\n");
  DiagnosticEngine diag(&sm);
  diag.Error(SourceLoc{id, 1, 1}) << "first";
  diag.Error(SourceLoc{id, 1, 1}) << "second";
  Status s = diag.ToStatus();
  EXPECT_EQ(s.code(), StatusCode::kCompileError);
  EXPECT_EQ(s.message(), "k.py:1:1: error: first (and 1 more)");
}

TEST(DiagnosticEngine, NotesRenderAfterTheirDiagnostic) {
  SourceManager sm;
  uint32_t id = sm.AddFile("k.py", "x = 1\ny = 2\n");
  DiagnosticEngine diag(&sm);
  diag.Error(SourceLoc{id, 2, 1}).Note(SourceLoc{id, 1, 1}, "first bound here") << "rebound";
  std::string text = diag.RenderAll();
  EXPECT_NE(text.find("k.py:2:1: error: rebound"), std::string::npos) << text;
  EXPECT_NE(text.find("k.py:1:1: note: first bound here"), std::string::npos) << text;
}

TEST(DiagnosticEngine, StopsRecordingPastTheErrorLimit) {
  SourceManager sm;
  DiagnosticEngine diag(&sm);
  for (size_t i = 0; i < DiagnosticEngine::kMaxErrors + 5; ++i) diag.Error(SourceLoc{}) << i;
  EXPECT_EQ(diag.error_count(), DiagnosticEngine::kMaxErrors + 5);
  EXPECT_EQ(diag.diagnostics().size(), DiagnosticEngine::kMaxErrors);
}

}  // namespace
}  // namespace tilejit
