// SPDX-License-Identifier: Apache-2.0
// Diagnostics: user-facing errors, warnings and notes with a source location.
//
// Usage:
//   DiagnosticEngine diag(&sources);
//   diag.Error(loc) << "tile width " << w << " does not divide " << n;
//   if (diag.has_errors()) return diag.ToStatus();
//
// Render() produces the clang/rustc-style text
//   kernel.py:12:7: error: tile width 48 does not divide 128
//       T.copy(A[bx, 0], a_ub)
//         ^
// A DiagnosticEngine is used by one compile at a time (not thread-safe). It does not own the
// SourceManager, which must outlive it.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "common/source_loc.h"
#include "common/status.h"

namespace tilejit {

enum class Severity { kNote, kWarning, kError };

std::string_view SeverityName(Severity s);

struct Diagnostic {
  Severity severity = Severity::kError;
  SourceLoc loc;
  std::string message;
  std::vector<Diagnostic> notes;  // attached notes (severity kNote)
};

class DiagnosticEngine {
 public:
  // Streams a message into a diagnostic that is committed when the builder is destroyed.
  class Builder {
   public:
    Builder(DiagnosticEngine* engine, Severity severity, SourceLoc loc);
    Builder(const Builder&) = delete;
    Builder& operator=(const Builder&) = delete;
    ~Builder();

    template <typename T>
    Builder& operator<<(const T& value) {
      stream_ << value;
      return *this;
    }
    // Attaches a note at `loc` to this diagnostic.
    Builder& Note(SourceLoc loc, std::string message);

   private:
    DiagnosticEngine* engine_;
    Diagnostic diag_;
    std::ostringstream stream_;
  };

  // Stop recording errors past this many (further ones are counted but dropped).
  static constexpr size_t kMaxErrors = 50;
  // A longer message (one quoting a huge value) keeps its start and says how much was cut.
  static constexpr size_t kMaxMessageBytes = 4096;

  explicit DiagnosticEngine(const SourceManager* sources) : sources_(sources) {}

  Builder Error(SourceLoc loc) { return Builder(this, Severity::kError, loc); }
  Builder Warning(SourceLoc loc) { return Builder(this, Severity::kWarning, loc); }
  Builder Note(SourceLoc loc) { return Builder(this, Severity::kNote, loc); }
  void Add(Diagnostic diag);

  bool has_errors() const { return error_count_ > 0; }
  size_t error_count() const { return error_count_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  const SourceManager* sources() const { return sources_; }

  // Renders one diagnostic (with its notes) as text with a caret line.
  std::string Render(const Diagnostic& diag) const;
  // Renders all diagnostics, in order of emission.
  std::string RenderAll() const;

  // A kCompileError status whose message is the first error's rendering (first line), or OK
  // if there are no errors.
  Status ToStatus() const;

 private:
  const SourceManager* sources_;
  std::vector<Diagnostic> diagnostics_;
  size_t error_count_ = 0;
};

}  // namespace tilejit
