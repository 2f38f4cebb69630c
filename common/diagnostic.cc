// SPDX-License-Identifier: Apache-2.0
#include "common/diagnostic.h"

namespace tilejit {

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kNote:
      return "note";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "error";
}

DiagnosticEngine::Builder::Builder(DiagnosticEngine* engine, Severity severity, SourceLoc loc)
    : engine_(engine) {
  diag_.severity = severity;
  diag_.loc = loc;
}

DiagnosticEngine::Builder& DiagnosticEngine::Builder::Note(SourceLoc loc, std::string message) {
  diag_.notes.push_back(Diagnostic{Severity::kNote, loc, std::move(message), {}});
  return *this;
}

DiagnosticEngine::Builder::~Builder() {
  diag_.message = stream_.str();
  engine_->Add(std::move(diag_));
}

void DiagnosticEngine::Add(Diagnostic diag) {
  if (diag.message.size() > kMaxMessageBytes) {
    const size_t cut = diag.message.size() - kMaxMessageBytes;
    diag.message.resize(kMaxMessageBytes);
    diag.message += "... (" + std::to_string(cut) + " more bytes)";
  }
  if (diag.severity == Severity::kError) {
    ++error_count_;
    if (error_count_ > kMaxErrors) return;
  }
  diagnostics_.push_back(std::move(diag));
}

namespace {

void RenderOne(const SourceManager* sources, const Diagnostic& d, std::string& out) {
  if (sources != nullptr && d.loc.known() && d.loc.file_id <= sources->file_count()) {
    out += sources->Describe(d.loc);
    out += ": ";
  }
  out += SeverityName(d.severity);
  out += ": ";
  out += d.message;
  out += '\n';
  if (sources == nullptr || !d.loc.known() || d.loc.file_id > sources->file_count()) return;
  std::string_view line = sources->LineText(d.loc.file_id, d.loc.line);
  if (line.empty()) return;
  out += "    ";
  out += line;
  out += '\n';
  out += "    ";
  // Keep tabs in the caret line so the caret lines up under tab-indented text.
  for (uint32_t i = 1; i < d.loc.column && i - 1 < line.size(); ++i) {
    out += line[i - 1] == '\t' ? '\t' : ' ';
  }
  out += "^\n";
}

}  // namespace

std::string DiagnosticEngine::Render(const Diagnostic& diag) const {
  std::string out;
  RenderOne(sources_, diag, out);
  for (const Diagnostic& note : diag.notes) RenderOne(sources_, note, out);
  return out;
}

std::string DiagnosticEngine::RenderAll() const {
  std::string out;
  for (const Diagnostic& d : diagnostics_) out += Render(d);
  if (error_count_ > kMaxErrors) {
    out += "error: too many errors (" + std::to_string(error_count_) + "), stopping\n";
  }
  return out;
}

Status DiagnosticEngine::ToStatus() const {
  if (!has_errors()) return Status::Ok();
  for (const Diagnostic& d : diagnostics_) {
    if (d.severity != Severity::kError) continue;
    std::string first = Render(d);
    size_t nl = first.find('\n');
    if (nl != std::string::npos) first.resize(nl);
    if (error_count_ > 1) first += " (and " + std::to_string(error_count_ - 1) + " more)";
    return CompileError(first);
  }
  return CompileError("compile failed");
}

}  // namespace tilejit
