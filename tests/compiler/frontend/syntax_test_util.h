// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the syntax tests: parse a text held by a private SourceManager.
#pragma once

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "common/source_loc.h"
#include "compiler/frontend/ast.h"
#include "compiler/frontend/ast_dump.h"
#include "compiler/frontend/lexer.h"
#include "compiler/frontend/parser.h"

namespace tilejit::frontend::testing {

struct Parsed {
  std::unique_ptr<SourceManager> sources = std::make_unique<SourceManager>();
  uint32_t file_id = 0;
  Module module;
};

inline Parsed ParseText(const std::string& text, const std::string& name = "test.py") {
  Parsed p;
  p.file_id = p.sources->AddFile(name, text);
  Result<Module> m = ParseModule(*p.sources, p.file_id);
  if (m.ok()) p.module = std::move(m).value();
  return p;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Number of kUnsupported top-level statements.
inline int CountUnsupported(const Module& m) {
  int n = 0;
  for (const StmtPtr& s : m.body) n += s->kind == StmtKind::kUnsupported;
  return n;
}

// The kernels directory: the shared set when present, else the repository's copy.
inline std::string KernelsDir() {
  std::ifstream probe(std::string(TILEJIT_SHARED_KERNELS_DIR) + "/gemm_developer.py");
  return probe ? TILEJIT_SHARED_KERNELS_DIR : std::string(TILEJIT_TESTDATA_DIR) + "/kernels";
}

}  // namespace tilejit::frontend::testing
