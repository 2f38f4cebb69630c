// SPDX-License-Identifier: Apache-2.0
// Offline commands. Running from source compiles first and keeps the request's source map, so
// findings name the user's file:line; a bare binary carries canonical statement ids only.
#include "client/offline.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "client/asm_listing.h"
#include "client/cli_values.h"
#include "compiler/compiler.h"
#include "compiler/target/binary.h"
#include "runner/npy.h"
#include "runner/report_text.h"
#include "runner/runner.h"
#include "runner/sim/sim_device.h"

namespace tilejit::client {
namespace {

constexpr int kExitErrors = 1;
constexpr int kExitUsage = 2;

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool AddNamed(const std::vector<std::string>& in, const char* flag, frontend::NamedValues* out) {
  for (const std::string& s : in) {
    auto nv = ParseNamedValue(s);
    if (!nv) {
      std::cerr << "tilejit: " << flag << " expects NAME=VALUE, got '" << s << "'\n";
      return false;
    }
    out->push_back(std::move(*nv));
  }
  return true;
}

std::optional<frontend::FrontendRequest> BuildRequest(const KernelSourceOptions& o,
                                                      std::string source) {
  frontend::FrontendRequest req;
  req.source = std::move(source);
  req.file_name = o.file;
  req.format =
      o.format == "tile_ir" ? frontend::SourceFormat::kTileIr : frontend::SourceFormat::kTileLang;
  req.entry = o.entry;
  if (req.format == frontend::SourceFormat::kTileLang && o.entry.empty()) {
    std::cerr << "tilejit: --entry is required for TileLang sources\n";
    return std::nullopt;
  }
  for (const std::string& a : o.args) req.args.push_back(ParseCliValue(a));
  if (!AddNamed(o.kwargs, "--kwarg", &req.kwargs) ||
      !AddNamed(o.configs, "--config", &req.pass_configs) ||
      !AddNamed(o.globals, "--global", &req.globals)) {
    return std::nullopt;
  }
  req.out_idx = o.out_idx;
  req.workspace_idx = o.workspace_idx;
  if (!o.target.empty()) req.target = o.target;
  return req;
}

// A compile from source: the result plus what resolves its statement ids to source lines.
struct SourceCompile {
  SourceManager sources;
  DiagnosticEngine diag{&sources};
  Result<compiler::CompiledKernel> kernel = Internal("not compiled");
  SourceInfo info() const { return {&sources, kernel.ok() ? &kernel->source_map : nullptr}; }
};

// Compiles; prints diagnostics to stderr. Returns an exit status, 0 on success.
int CompileFrom(const KernelSourceOptions& o, const compiler::PipelineOptions& pipeline,
                SourceCompile* out) {
  std::optional<std::string> text = ReadFile(o.file);
  if (!text) {
    std::cerr << "tilejit: cannot read '" << o.file << "'\n";
    return kExitUsage;
  }
  std::optional<frontend::FrontendRequest> req = BuildRequest(o, std::move(*text));
  if (!req) return kExitUsage;
  out->kernel = compiler::Compile({*std::move(req), pipeline}, &out->sources, &out->diag);
  std::cerr << out->diag.RenderAll();
  if (!out->kernel.ok()) {
    if (out->kernel.status().code() != StatusCode::kCompileError) {
      std::cerr << "tilejit: " << out->kernel.status() << "\n";
    }
    return kExitErrors;
  }
  return 0;
}

void PrintPassTimes(const compiler::CompiledKernel& k) {
  std::cerr << "frontend: " << k.frontend_millis << " ms\n";
  for (const compiler::PassRecord& p : k.passes) {
    std::cerr << p.pass << ": " << p.millis << " ms";
    for (const auto& [name, value] : p.stats) std::cerr << "; " << name << " " << value;
    std::cerr << "\n";
  }
  std::cerr << "back end total: " << k.backend_millis << " ms\n";
}

int PrintListing(const std::vector<uint8_t>& bytes, const SourceInfo& info) {
  Result<target::KernelBinary> binary = target::ReadKernelBinary(bytes);
  Result<std::string> listing =
      binary.ok() ? AsmListing(*binary, info) : Result<std::string>(binary.status());
  if (!listing.ok()) {
    std::cerr << "tilejit: " << listing.status() << "\n";
    return kExitUsage;
  }
  std::cout << *listing;
  return 0;
}

bool IsElf(const std::string& bytes) {
  return bytes.rfind(
             "\x7f"
             "ELF",
             0) == 0;
}

runner::LaunchOptions LaunchOptionsOf(const RunCommandOptions& o) {
  runner::LaunchOptions opt;
  opt.mode = o.check ? runner::CheckMode::kChecked : runner::CheckMode::kFast;
  if (o.perturb_seed) {
    opt.mode = runner::CheckMode::kPerturbed;
    opt.seed = *o.perturb_seed;
  }
  opt.trace = !o.trace.empty() || o.profile;
  return opt;
}

int Launch(const std::vector<uint8_t>& bytes, const RunCommandOptions& o, const SourceInfo& info) {
  runner::sim::SimDevice device;
  Result<runner::KernelId> id = device.LoadBinary(bytes);
  if (!id.ok()) {
    std::cerr << "tilejit: " << id.status() << "\n";
    return kExitUsage;
  }
  std::vector<runner::NpyArray> inputs;
  for (const std::string& path : o.inputs) {
    Result<runner::NpyArray> a = runner::ReadNpyFile(path);
    if (!a.ok()) {
      std::cerr << "tilejit: " << path << ": " << a.status() << "\n";
      return kExitUsage;
    }
    inputs.push_back(*std::move(a));
  }
  Result<runner::RunResult> run = runner::RunKernel(device, *id, inputs, LaunchOptionsOf(o));
  if (!run.ok()) {
    std::cerr << "tilejit: " << run.status() << "\n";
    return kExitUsage;
  }
  runner::StmtNamer namer = [&](uint32_t stmt) { return DescribeStmt(info, stmt); };
  std::cout << runner::FormatLaunchReport(run->report, namer);
  if (o.profile) std::cout << runner::FormatLineProfile(run->report, namer);
  if (!o.trace.empty()) std::ofstream(o.trace) << run->report.trace_json;
  for (size_t i = 0; i < run->outputs.size(); ++i) {
    const std::string path = o.out_dir + "/out" + std::to_string(i) + ".npy";
    Status st = runner::WriteNpyFile(path, run->outputs[i]);
    if (!st.ok()) {
      std::cerr << "tilejit: " << st << "\n";
      return kExitUsage;
    }
    std::cout << "wrote " << path << "\n";
  }
  return run->report.status.ok() ? 0 : kExitErrors;
}

// `--emit ir|key` alone needs only the frontend (and works for every kernel the frontend
// accepts, whatever the back end supports).
bool FrontendOnly(const CompileCommandOptions& o) {
  return o.output.empty() && o.emit != "asm" && o.print_after.empty() && o.stop_after.empty() &&
         !o.time_passes;
}

int SpecializeCommand(const CompileCommandOptions& o) {
  std::optional<std::string> text = ReadFile(o.kernel.file);
  if (!text) {
    std::cerr << "tilejit: cannot read '" << o.kernel.file << "'\n";
    return kExitUsage;
  }
  std::optional<frontend::FrontendRequest> req = BuildRequest(o.kernel, std::move(*text));
  if (!req) return kExitUsage;
  SourceManager sources;
  DiagnosticEngine diag(&sources);
  Result<compiler::Specialized> sp = compiler::Specialize({*std::move(req), {}}, &sources, &diag);
  std::cerr << diag.RenderAll();
  if (!sp.ok()) return kExitErrors;
  std::cout << (o.emit == "key" ? sp->key + "\n" : sp->frontend.ir_text);
  return 0;
}

}  // namespace

int CompileCommand(const CompileCommandOptions& o) {
  if (FrontendOnly(o)) return SpecializeCommand(o);
  SourceCompile c;
  compiler::PipelineOptions pipeline;
  pipeline.print_after = o.print_after;
  pipeline.stop_after = o.stop_after;
  pipeline.time_passes = o.time_passes;
  if (int rc = CompileFrom(o.kernel, pipeline, &c); rc != 0) return rc;
  const compiler::CompiledKernel& k = *c.kernel;
  for (const auto& [pass, ir] : k.ir_dumps) std::cerr << "// IR after " << pass << "\n" << ir;
  if (o.time_passes) PrintPassTimes(k);
  if (!o.output.empty()) {
    if (k.binary.empty()) {
      std::cerr << "tilejit: no binary (stopped after " << o.stop_after << ")\n";
      return kExitUsage;
    }
    std::ofstream out(o.output, std::ios::binary);
    out.write(reinterpret_cast<const char*>(k.binary.data()),
              static_cast<std::streamsize>(k.binary.size()));
    if (!out) {
      std::cerr << "tilejit: cannot write '" << o.output << "'\n";
      return kExitUsage;
    }
  }
  if (o.emit == "ir") std::cout << k.ir_text;
  if (o.emit == "key") std::cout << k.key << "\n";
  if (o.emit == "asm") return PrintListing(k.binary, c.info());
  return 0;
}

int RunCommand(const RunCommandOptions& o) {
  std::optional<std::string> bytes = ReadFile(o.kernel.file);
  if (!bytes) {
    std::cerr << "tilejit: cannot read '" << o.kernel.file << "'\n";
    return kExitUsage;
  }
  if (IsElf(*bytes)) return Launch({bytes->begin(), bytes->end()}, o, SourceInfo{});
  SourceCompile c;
  if (int rc = CompileFrom(o.kernel, {}, &c); rc != 0) return rc;
  return Launch(c.kernel->binary, o, c.info());
}

int DisasmCommand(const std::string& path) {
  std::optional<std::string> bytes = ReadFile(path);
  if (!bytes) {
    std::cerr << "tilejit: cannot read '" << path << "'\n";
    return kExitUsage;
  }
  return PrintListing({bytes->begin(), bytes->end()}, SourceInfo{});
}

}  // namespace tilejit::client
