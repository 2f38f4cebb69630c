// SPDX-License-Identifier: Apache-2.0
// Daemon-backed compile, run, get, trace and disasm. Values are typed exactly as offline
// (service_request.h), so the daemon's key and binary equal `tilejit compile`'s. Findings of a
// run from source name the caller's lines because the launch passes the compile's digest.
#include "client/service_commands.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "client/asm_listing.h"
#include "client/launch_text.h"
#include "client/service_request.h"
#include "client/service_util.h"
#include "compiler/target/binary.h"

namespace tilejit::client {
namespace {

bool IsElfFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::string_view(magic, 4) == "\177ELF";
}

// Compiles options.kernel on the daemon; diagnostics to stderr. Exit status in *rc when the
// result is not usable (RPC failure: 2, kernel errors: 1).
std::optional<v1::CompileResponse> CompileOnDaemon(Client& client, const KernelSourceOptions& k,
                                                   bool binary, bool ir, int* rc) {
  Result<KernelSpec> spec = KernelSpecFromOptions(k);
  if (!spec.ok()) {
    *rc = ReportError(spec.status());
    return std::nullopt;
  }
  v1::CompileRequest req = BuildCompileRequest(*spec);
  req.set_include_binary(binary);
  req.set_include_ir(ir);
  Result<v1::CompileResponse> r = client.Compile(req);
  if (!r.ok()) {
    *rc = ReportError(r.status());
    return std::nullopt;
  }
  for (const v1::Diagnostic& d : r->diagnostics()) std::cerr << d.rendered();
  if (!r->ok()) {
    if (r->diagnostics().empty()) std::cerr << "tilejit: " << r->error() << "\n";
    *rc = kExitErrors;
    return std::nullopt;
  }
  return *std::move(r);
}

int PrintAsm(const std::string& bytes) {
  Result<target::KernelBinary> binary =
      target::ReadKernelBinary(std::vector<uint8_t>(bytes.begin(), bytes.end()));
  if (!binary.ok()) return ReportError(binary.status());
  Result<std::string> listing = AsmListing(*binary, SourceInfo{});
  if (!listing.ok()) return ReportError(listing.status());
  std::cout << *listing;
  return kExitOk;
}

void PrintTimings(const v1::CompileResponse& r) {
  std::cerr << "tier: " << r.tier() << "\n";
  for (const v1::PhaseTiming& t : r.timings()) {
    std::cerr << t.phase() << ": " << t.millis() << " ms\n";
  }
}

// The kernel of a run or trace: compiled from a source file (digest set, so findings name
// its lines) or a handle. nullopt with *rc set on failure.
std::optional<v1::LaunchRequest> ResolveKernel(Client& client, const KernelSourceOptions& k,
                                               int* rc) {
  v1::LaunchRequest req;
  if (std::filesystem::exists(k.file)) {
    if (IsElfFile(k.file)) {
      std::cerr << "tilejit: '" << k.file << "' is a binary; run it offline (without --server)\n";
      *rc = kExitUsage;
      return std::nullopt;
    }
    std::optional<v1::CompileResponse> c = CompileOnDaemon(client, k, false, false, rc);
    if (!c) return std::nullopt;
    req.set_handle(c->handle());
    req.set_request_digest(c->request_digest());
    return req;
  }
  if (!LooksLikeHandle(k.file)) {
    std::cerr << "tilejit: '" << k.file << "' is neither a readable file nor a kernel handle\n";
    *rc = kExitUsage;
    return std::nullopt;
  }
  req.set_handle(k.file);
  return req;
}

int WriteOutputs(const v1::LaunchResponse& r, const std::string& dir) {
  for (int i = 0; i < r.outputs_size(); ++i) {
    Result<runner::NpyArray> a = NpyFromTensor(r.outputs(i));
    if (!a.ok()) return ReportError(a.status());
    const std::string path = dir + "/out" + std::to_string(i) + ".npy";
    Status st = runner::WriteNpyFile(path, *a);
    if (!st.ok()) return ReportError(st);
    std::cout << "wrote " << path << "\n";
  }
  return kExitOk;
}

}  // namespace

bool ServiceBuilt() { return true; }

int ServiceCompileCommand(const DaemonOptions& d, const CompileCommandOptions& o) {
  if (!o.print_after.empty() || !o.stop_after.empty()) {
    std::cerr << "tilejit: --print-after and --stop-after work offline only (drop --server)\n";
    return kExitUsage;
  }
  auto client = OpenClient(d);
  if (!client) return kExitUsage;
  int rc = kExitOk;
  const bool want_binary = !o.output.empty() || o.emit == "asm";
  std::optional<v1::CompileResponse> r =
      CompileOnDaemon(**client, o.kernel, want_binary, o.emit == "ir", &rc);
  if (!r) return rc;
  if (o.time_passes) PrintTimings(*r);
  if (!o.output.empty()) {
    if (!WriteFileBytes(o.output, r->binary())) return kExitUsage;
  }
  if (o.emit == "ir") {
    if (r->ir_text().empty()) {
      std::cerr << "tilejit: the daemon no longer holds this kernel's IR (a cache hit)\n";
      return kExitUsage;
    }
    std::cout << r->ir_text();
  }
  if (o.emit == "key") std::cout << r->key() << "\n";
  if (o.emit == "asm") return PrintAsm(r->binary());
  if (o.emit.empty()) std::cout << r->handle() << "\n";
  return kExitOk;
}

int ServiceRunCommand(const DaemonOptions& d, const RunCommandOptions& o) {
  if (!o.trace.empty() || o.profile) {
    std::cerr << "tilejit: --trace and --profile with --server: use `tilejit trace`\n";
    return kExitUsage;
  }
  auto client = OpenClient(d);
  if (!client) return kExitUsage;
  int rc = kExitOk;
  std::optional<v1::LaunchRequest> req = ResolveKernel(**client, o.kernel, &rc);
  if (!req) return rc;
  for (const std::string& path : o.inputs) {
    Result<runner::NpyArray> a = runner::ReadNpyFile(path);
    if (!a.ok()) return ReportError(a.status().WithContext(path));
    *req->add_inputs() = TensorFromNpy(*a);
  }
  req->set_check_mode(o.check ? "checked" : "fast");
  if (o.perturb_seed) {
    req->set_check_mode("perturbed");
    req->set_seed(*o.perturb_seed);
  }
  Result<v1::LaunchResponse> r = (*client)->Launch(*req);
  if (!r.ok()) return ReportError(r.status());
  std::cout << FormatLaunchResponse(*r);
  if (int w = WriteOutputs(*r, o.out_dir); w != kExitOk) return w;
  return r->ok() ? kExitOk : kExitErrors;
}

int GetCommand(const DaemonOptions& d, const std::string& handle, const std::string& output) {
  auto client = OpenClient(d);
  if (!client) return kExitUsage;
  Result<v1::GetKernelResponse> r = (*client)->GetKernel(handle, output.empty());
  if (!r.ok()) return ReportError(r.status());
  if (output.empty()) {
    std::cout << ToJson(*r);
    return kExitOk;
  }
  return WriteFileBytes(output, r->binary()) ? kExitOk : kExitUsage;
}

int TraceCommand(const DaemonOptions& d, const RunCommandOptions& o) {
  auto client = OpenClient(d);
  if (!client) return kExitUsage;
  int rc = kExitOk;
  std::optional<v1::LaunchRequest> req = ResolveKernel(**client, o.kernel, &rc);
  if (!req) return rc;
  Result<v1::GetKernelResponse> k = (*client)->GetKernel(req->handle());
  if (!k.ok()) return ReportError(k.status());
  std::string path = (std::filesystem::temp_directory_path() / "tilejit-trace-XXXXXX").string();
  int fd = mkstemp(path.data());
  if (fd < 0) {
    std::cerr << "tilejit: cannot create a temporary file\n";
    return kExitUsage;
  }
  close(fd);
  int result = kExitUsage;
  if (WriteFileBytes(path, k->binary())) {
    RunCommandOptions local = o;
    local.kernel = KernelSourceOptions{};
    local.kernel.file = path;
    result = RunCommand(local);
  }
  std::remove(path.c_str());
  return result;
}

int ServiceDisasmCommand(const DaemonOptions& d, const std::string& handle) {
  auto client = OpenClient(d);
  if (!client) return kExitUsage;
  Result<v1::GetKernelResponse> r = (*client)->GetKernel(handle);
  if (!r.ok()) return ReportError(r.status());
  return PrintAsm(r->binary());
}

}  // namespace tilejit::client
