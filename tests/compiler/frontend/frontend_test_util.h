// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the frontend tests: the kernel cases of cases.json, running the frontend
// on a source text, and reading files.
#pragma once

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/frontend/frontend.h"
#include "compiler/frontend/host_eval.h"
#include "compiler/frontend/parser.h"

namespace tilejit::frontend::fetest {

inline std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The shared kernels when present beside the repository, else the repository's copy.
inline std::filesystem::path KernelsDir() {
  std::filesystem::path shared = TILEJIT_SHARED_KERNELS_DIR;
  if (std::filesystem::exists(shared / "cases.json")) return shared;
  return std::filesystem::path(TILEJIT_TESTDATA_DIR) / "kernels";
}

struct KernelCase {
  std::string file;
  std::string entry;
  std::vector<Value> args;
  std::string name;  // "<file stem>_<args joined by _>", the golden file's stem
};

inline std::vector<KernelCase> LoadCases() {
  auto json = nlohmann::json::parse(ReadFile(KernelsDir() / "cases.json"));
  std::vector<KernelCase> out;
  for (const auto& c : json["cases"]) {
    KernelCase k;
    k.file = c["file"].get<std::string>();
    k.entry = c["entry"].get<std::string>();
    k.name = std::filesystem::path(k.file).stem().string();
    for (const auto& a : c["args"]) {
      k.args.push_back(a.is_number_integer() ? Value::Int(a.get<int64_t>())
                                             : Value::Float(a.get<double>()));
      k.name += "_" + a.dump();
    }
    out.push_back(std::move(k));
  }
  return out;
}

inline FrontendRequest CaseRequest(const KernelCase& k) {
  FrontendRequest r;
  r.source = ReadFile(KernelsDir() / k.file);
  r.file_name = k.file;
  r.entry = k.entry;
  r.args = k.args;
  return r;
}

// Runs the frontend; `*diags` receives the rendered diagnostics.
inline Result<FrontendResult> RunRequest(const FrontendRequest& req, std::string* diags = nullptr) {
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  auto r = RunFrontend(req, &sources, &diag);
  if (diags != nullptr) *diags = diag.RenderAll();
  return r;
}

// A request for an inline source with entry `entry` and int args.
inline FrontendRequest SourceRequest(std::string source, std::string entry = "kernel",
                                     std::vector<Value> args = {}) {
  FrontendRequest r;
  r.source = std::move(source);
  r.file_name = "test.py";
  r.entry = std::move(entry);
  r.args = std::move(args);
  return r;
}

// Evaluates module-level name `name` of `source` with the host evaluator; diagnostics into
// *diags.
inline std::optional<Value> EvalName(const std::string& source, const std::string& name,
                                     std::string* diags = nullptr) {
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  uint32_t file = sources.AddFile("m.py", source);
  auto module = ParseModule(sources, file);
  if (!module.ok()) return std::nullopt;
  ModuleEnv env(&*module, &sources);
  Evaluator ev(&env, &diag);
  auto v = ev.LookupName(name, SourceLoc{file, 1, 1}, nullptr);
  if (diags != nullptr) *diags = diag.RenderAll();
  return v;
}

// `expr` evaluated at module level after `import tilelang` and `import tilelang.language as T`.
inline std::optional<Value> EvalExpr(const std::string& expr, std::string* diags = nullptr) {
  return EvalName("import tilelang\nimport tilelang.language as T\nX = " + expr + "\n", "X", diags);
}

}  // namespace tilejit::frontend::fetest
