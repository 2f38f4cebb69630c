// SPDX-License-Identifier: Apache-2.0
// The `tilejit` command-line tool: argument parsing only; the commands live in offline.cc
// (in-process) and service_commands.cc / admin_commands.cc (through tilejitd).
// Diagnostics go to stderr; exit status 0 success, 1 kernel errors or findings, 2 usage/I/O.
//
// compile and run are offline unless a daemon is named (--server ADDR or $TILEJIT_SERVER);
// get, health, stats, cache, trace and tune always talk to a daemon (default localhost:50051);
// disasm reads a binary file offline, or a handle from the daemon. --token and --tls-* (or
// their TILEJIT_* variables) reach a daemon that needs them.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "client/offline.h"
#include "client/service_commands.h"

namespace {

using tilejit::client::KernelSourceOptions;

// Options naming a kernel (shared by compile, run and trace).
void AddKernelOptions(CLI::App* cmd, KernelSourceOptions* k, std::vector<int>* out_idx,
                      std::vector<int>* ws_idx) {
  cmd->add_option("--entry", k->entry, "the @tilelang.jit factory to specialise");
  cmd->add_option("--arg", k->args, "a positional factory argument (repeatable)");
  cmd->add_option("--kwarg", k->kwargs, "a keyword factory argument NAME=VALUE");
  cmd->add_option("--config", k->configs, "a pass config KEY=VALUE (overrides the file's)");
  cmd->add_option("--global", k->globals, "a module-level constant NAME=VALUE");
  cmd->add_option("--format", k->format, "input format")
      ->check(CLI::IsMember({"tilelang", "tile_ir"}));
  cmd->add_option("--target", k->target, "target device (ascend910b2, ascend910b4)");
  cmd->add_option("--out-idx", *out_idx, "override out_idx")->delimiter(',');
  cmd->add_option("--workspace-idx", *ws_idx, "override workspace_idx")->delimiter(',');
}

void ResolveIndices(const CLI::App* cmd, KernelSourceOptions* k, const std::vector<int>& out_idx,
                    const std::vector<int>& ws_idx) {
  if (cmd->count("--out-idx") > 0) k->out_idx = out_idx;
  if (cmd->count("--workspace-idx") > 0) k->workspace_idx = ws_idx;
}

// Inputs and launch modes (shared by run and trace).
void AddLaunchOptions(CLI::App* cmd, tilejit::client::RunCommandOptions* r) {
  cmd->add_option("--in", r->inputs, "an input tensor (.npy), in parameter order (repeatable)");
  cmd->add_option("--out", r->out_dir, "directory for out0.npy, out1.npy, ... (out_idx order)");
  cmd->add_flag("--check", r->check, "checked mode: race, flag, bounds and init checks");
  cmd->add_option("--perturb", r->perturb_seed, "perturbed mode with this seed");
}

CLI::App* AddCacheCommand(CLI::App& app, tilejit::client::CacheCommandOptions* o) {
  CLI::App* cache = app.add_subcommand("cache", "administer the daemon's kernel cache");
  cache->require_subcommand(1);
  auto handles = [o](CLI::App* sub, bool required) {
    auto* opt = sub->add_option("handles", o->handles, "kernel handles");
    if (required) opt->required();
  };
  cache->add_subcommand("ls", "list cached kernels")
      ->add_option("--limit", o->limit, "at most this many (0: the daemon's default)");
  handles(cache->add_subcommand("evict", "remove kernels from the cache"), true);
  handles(cache->add_subcommand("pin", "keep kernels from eviction"), true);
  handles(cache->add_subcommand("unpin", "allow kernels to be evicted again"), true);
  CLI::App* exp = cache->add_subcommand("export", "write kernels to a bundle file");
  handles(exp, false);
  exp->add_option("-o,--output", o->file, "the bundle file")->required();
  cache->add_subcommand("import", "load a bundle file into the cache")
      ->add_option("bundle", o->file, "the bundle file")
      ->required();
  return cache;
}

// Every option of every command, and the subcommands to tell which one ran.
struct Cli {
  tilejit::client::DaemonOptions daemon;
  std::vector<int> out_idx, ws_idx;
  tilejit::client::CompileCommandOptions compile_options;
  tilejit::client::RunCommandOptions run_options, trace_options;
  tilejit::client::CacheCommandOptions cache_options;
  tilejit::client::TuneCommandOptions tune_options;
  std::string disasm_kernel, get_handle, get_output, health_service;
  CLI::App *compile, *run, *disasm, *get, *health, *stats, *cache, *trace, *tune;
};

void DefineGlobalOptions(CLI::App& app, Cli* cli) {
  app.require_subcommand(1);
  app.fallthrough();  // --server, --timeout, --token and --tls-* may follow the subcommand
  app.add_option("--server", cli->daemon.server,
                 "tilejitd address host:port; compile and run go through it (default: offline; "
                 "daemon-only commands use localhost:50051)")
      ->envname("TILEJIT_SERVER");
  app.add_option("--timeout", cli->daemon.timeout_seconds, "deadline of each daemon call, seconds");
  app.add_option("--token", cli->daemon.token,
                 "bearer token for a daemon started with --auth-tokens")
      ->envname("TILEJIT_TOKEN");
  app.add_option("--tls-ca", cli->daemon.tls.ca,
                 "talk TLS; PEM CA certificates that signed the daemon's certificate")
      ->envname("TILEJIT_TLS_CA");
  app.add_option("--tls-cert", cli->daemon.tls.cert,
                 "PEM client certificate (with --tls-key) for a daemon that requires one")
      ->envname("TILEJIT_TLS_CERT");
  app.add_option("--tls-key", cli->daemon.tls.key, "PEM private key of --tls-cert")
      ->envname("TILEJIT_TLS_KEY");
}

void DefineKernelCommands(CLI::App& app, Cli* cli) {
  auto& c = cli->compile_options;
  cli->compile = app.add_subcommand("compile", "compile a kernel file");
  cli->compile->add_option("file", c.kernel.file, "kernel source (.py) or Tile IR (.ir)")
      ->required();
  AddKernelOptions(cli->compile, &c.kernel, &cli->out_idx, &cli->ws_idx);
  cli->compile->add_option("-o,--output", c.output, "write the kernel binary (ELF) here");
  cli->compile->add_option("--emit", c.emit, "print: ir (default without -o), key or asm")
      ->check(CLI::IsMember({"ir", "key", "asm"}));
  cli->compile->add_option("--print-after", c.print_after, "dump the IR after a pass (or 'all')");
  cli->compile->add_option("--stop-after", c.stop_after, "stop the pipeline after this pass");
  cli->compile->add_flag("--time-passes", c.time_passes,
                         "print per-pass (daemon: per-phase) times");

  auto& r = cli->run_options;
  cli->run = app.add_subcommand("run", "compile if needed and run on the simulated NPU");
  cli->run->add_option("kernel", r.kernel.file, "kernel source, Tile IR, binary (ELF) or handle")
      ->required();
  AddKernelOptions(cli->run, &r.kernel, &cli->out_idx, &cli->ws_idx);
  AddLaunchOptions(cli->run, &r);
  cli->run->add_option("--trace", r.trace, "write a Chrome trace (JSON) here (offline)");
  cli->run->add_flag("--profile", r.profile, "print cycles per source statement (offline)");

  cli->disasm = app.add_subcommand("disasm", "disassemble a kernel binary or handle");
  cli->disasm->add_option("kernel", cli->disasm_kernel, "kernel binary (ELF) or handle")
      ->required();
}

void DefineDaemonCommands(CLI::App& app, Cli* cli) {
  cli->get = app.add_subcommand("get", "fetch a kernel by handle (metadata without -o)");
  cli->get->add_option("handle", cli->get_handle, "kernel handle")->required();
  cli->get->add_option("-o,--output", cli->get_output, "write the kernel binary (ELF) here");
  cli->health = app.add_subcommand("health", "check that the daemon is SERVING");
  cli->health->add_option("--service", cli->health_service, "a service (default: the server)");
  cli->stats = app.add_subcommand("stats", "the daemon's cache and compile counters");
  cli->cache = AddCacheCommand(app, &cli->cache_options);
  auto& t = cli->trace_options;
  cli->trace = app.add_subcommand("trace", "run a kernel and write a Chrome trace");
  cli->trace->add_option("kernel", t.kernel.file, "kernel source or handle")->required();
  AddKernelOptions(cli->trace, &t.kernel, &cli->out_idx, &cli->ws_idx);
  AddLaunchOptions(cli->trace, &t);
  cli->trace->add_option("-o,--output", t.trace, "the trace file (JSON)")->required();
}

void DefineTuneCommand(CLI::App& app, Cli* cli) {
  auto& t = cli->tune_options;
  cli->tune = app.add_subcommand("tune", "autotune a factory's configurations on the daemon");
  cli->tune->add_option("file", t.kernel.file, "kernel source (.py)")->required();
  AddKernelOptions(cli->tune, &t.kernel, &cli->out_idx, &cli->ws_idx);
  cli->tune->add_option("--try", t.tries, "a configuration K=V,K=V (repeatable)");
  cli->tune->add_option("--configs", t.configs_file, "a file of configurations, one per line");
  cli->tune->add_option("--in", t.inputs, "an input tensor (.npy), in parameter order");
  cli->tune->add_option("--ref", t.reference, "an expected output (.npy), out_idx order");
  cli->tune->add_option("--atol", t.atol, "absolute tolerance of the check (default 1e-2)");
  cli->tune->add_option("--rtol", t.rtol, "relative tolerance of the check (default 1e-2)");
  cli->tune->add_option("--seed", t.seed, "seed of the daemon's random inputs (without --in)");
  cli->tune->add_option("--budget", t.budget_seconds, "the tuning's time budget, seconds");
  cli->tune->add_flag("--json", t.json, "print the TuneResponse as JSON");
}

int Dispatch(Cli& cli) {
  namespace tc = tilejit::client;
  const bool remote = !cli.daemon.server.empty();
  if (cli.compile->parsed()) {
    ResolveIndices(cli.compile, &cli.compile_options.kernel, cli.out_idx, cli.ws_idx);
    return remote ? tc::ServiceCompileCommand(cli.daemon, cli.compile_options)
                  : tc::CompileCommand(cli.compile_options);
  }
  if (cli.run->parsed()) {
    ResolveIndices(cli.run, &cli.run_options.kernel, cli.out_idx, cli.ws_idx);
    return remote ? tc::ServiceRunCommand(cli.daemon, cli.run_options)
                  : tc::RunCommand(cli.run_options);
  }
  if (cli.disasm->parsed()) {
    const std::string& k = cli.disasm_kernel;
    const bool handle = !std::filesystem::exists(k) && k.starts_with("tj1_");
    return handle ? tc::ServiceDisasmCommand(cli.daemon, k) : tc::DisasmCommand(k);
  }
  if (cli.get->parsed()) return tc::GetCommand(cli.daemon, cli.get_handle, cli.get_output);
  if (cli.health->parsed()) return tc::HealthCommand(cli.daemon, cli.health_service);
  if (cli.stats->parsed()) return tc::StatsCommand(cli.daemon);
  if (cli.cache->parsed()) {
    cli.cache_options.action = cli.cache->get_subcommands().front()->get_name();
    return tc::CacheCommand(cli.daemon, cli.cache_options);
  }
  if (cli.tune->parsed()) {
    ResolveIndices(cli.tune, &cli.tune_options.kernel, cli.out_idx, cli.ws_idx);
    return tc::TuneCommand(cli.daemon, cli.tune_options);
  }
  ResolveIndices(cli.trace, &cli.trace_options.kernel, cli.out_idx, cli.ws_idx);
  return tc::TraceCommand(cli.daemon, cli.trace_options);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tilejit: compile TileLang kernels for Ascend-class NPUs"};
  Cli cli;
  DefineGlobalOptions(app, &cli);
  DefineKernelCommands(app, &cli);
  DefineDaemonCommands(app, &cli);
  DefineTuneCommand(app, &cli);
  CLI11_PARSE(app, argc, argv);
  return Dispatch(cli);
}
