// SPDX-License-Identifier: Apache-2.0
// The `tilejit` command-line tool. Offline mode: `tilejit compile FILE --entry NAME ...
// --emit ir|key` runs the frontend in-process and prints the canonical IR or the cache key.
// Diagnostics (errors and warnings) go to stderr; any error gives exit status 1.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "client/cli_values.h"
#include "compiler/frontend/frontend.h"

namespace {

using tilejit::frontend::FrontendRequest;

struct CompileOptions {
  std::string file;
  std::string entry;
  std::vector<std::string> args, kwargs, configs, globals;
  std::string format = "tilelang";
  std::string emit = "ir";
  std::string target;
  std::vector<int> out_idx, workspace_idx;
};

bool AddNamed(const std::vector<std::string>& in, const char* flag,
              tilejit::frontend::NamedValues* out) {
  for (const std::string& s : in) {
    auto nv = tilejit::client::ParseNamedValue(s);
    if (!nv) {
      std::cerr << "tilejit: " << flag << " expects NAME=VALUE, got '" << s << "'\n";
      return false;
    }
    out->push_back(std::move(*nv));
  }
  return true;
}

int RunCompile(const CompileOptions& o, const CLI::App& cmd) {
  std::ifstream in(o.file, std::ios::binary);
  if (!in) {
    std::cerr << "tilejit: cannot read '" << o.file << "'\n";
    return 2;
  }
  std::ostringstream text;
  text << in.rdbuf();
  FrontendRequest req;
  req.source = text.str();
  req.file_name = o.file;
  req.format = o.format == "tile_ir" ? tilejit::frontend::SourceFormat::kTileIr
                                     : tilejit::frontend::SourceFormat::kTileLang;
  req.entry = o.entry;
  for (const std::string& a : o.args) req.args.push_back(tilejit::client::ParseCliValue(a));
  if (!AddNamed(o.kwargs, "--kwarg", &req.kwargs) ||
      !AddNamed(o.configs, "--config", &req.pass_configs) ||
      !AddNamed(o.globals, "--global", &req.globals)) {
    return 2;
  }
  if (cmd.count("--out-idx") > 0) req.out_idx = o.out_idx;
  if (cmd.count("--workspace-idx") > 0) req.workspace_idx = o.workspace_idx;
  if (!o.target.empty()) req.target = o.target;
  tilejit::SourceManager sources;
  tilejit::DiagnosticEngine diag(&sources);
  auto result = tilejit::frontend::RunFrontend(req, &sources, &diag);
  std::cerr << diag.RenderAll();
  if (!result.ok()) return 1;
  if (o.emit == "key") {
    std::cout << tilejit::frontend::FrontendCacheKey(*result) << "\n";
  } else {
    std::cout << result->ir_text;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tilejit: compile TileLang kernels for Ascend-class NPUs"};
  app.require_subcommand(1);
  CompileOptions o;
  CLI::App* compile = app.add_subcommand("compile", "compile a kernel file offline");
  compile->add_option("file", o.file, "kernel source (.py) or Tile IR (.ir)")->required();
  compile->add_option("--entry", o.entry, "the @tilelang.jit factory to specialise");
  compile->add_option("--arg", o.args, "a positional factory argument (repeatable)");
  compile->add_option("--kwarg", o.kwargs, "a keyword factory argument NAME=VALUE");
  compile->add_option("--config", o.configs, "a pass config KEY=VALUE (overrides the file's)");
  compile->add_option("--global", o.globals, "a module-level constant NAME=VALUE");
  compile->add_option("--format", o.format, "input format")
      ->check(CLI::IsMember({"tilelang", "tile_ir"}));
  compile->add_option("--emit", o.emit, "what to print")->check(CLI::IsMember({"ir", "key"}));
  compile->add_option("--target", o.target, "target device (ascend910b2, ascend910b4)");
  compile->add_option("--out-idx", o.out_idx, "override out_idx")->delimiter(',');
  compile->add_option("--workspace-idx", o.workspace_idx, "override workspace_idx")->delimiter(',');
  CLI11_PARSE(app, argc, argv);
  if (o.format == "tilelang" && o.entry.empty()) {
    std::cerr << "tilejit: compile needs --entry for TileLang sources\n";
    return 2;
  }
  return RunCompile(o, *compile);
}
