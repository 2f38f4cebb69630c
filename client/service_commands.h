// SPDX-License-Identifier: Apache-2.0
// The `tilejit` CLI's daemon commands: the same compile and run as offline.h, but through a
// tilejitd (DESIGN.md section 7), plus the commands that only make sense against a daemon.
//
//   tilejit --server ADDR compile FILE --entry E [--arg V]... [-o kernel.o] [--emit ...]
//   tilejit --server ADDR run FILE|HANDLE --in a.npy ... --out DIR [--check] [--perturb S]
//   tilejit get HANDLE [-o kernel.o]          binary by handle (metadata without -o)
//   tilejit health [--service NAME]           SERVING (exit 0) or not (exit 1)
//   tilejit stats
//   tilejit cache ls|evict|pin|unpin|export|import ...
//   tilejit trace FILE|HANDLE --in a.npy ... -o trace.json
//   tilejit disasm HANDLE                     (a binary file still disassembles offline)
//   tilejit tune FILE --entry E [--arg V]... --try K=V,K=V ... | --configs FILE
//                [--in a.npy ... [--ref c.npy ...] [--atol A] [--rtol R]] [--seed S]
//                [--budget SECONDS] [--json]
//       prints one row per configuration (cycles, on-chip bytes, or why it was ruled out)
//       and the choice; exit 0 with a choice, 1 when no configuration is left
//
// The address is --server, else $TILEJIT_SERVER; compile and run stay offline without one,
// the daemon-only commands default to localhost:50051. --token (else $TILEJIT_TOKEN) is sent
// with every call; --tls-ca (else $TILEJIT_TLS_CA) talks TLS to a daemon whose certificate
// that CA signed, and --tls-cert/--tls-key ($TILEJIT_TLS_CERT, $TILEJIT_TLS_KEY) present a
// client certificate (client.h, ClientOptions).
//
// Exit status as offline: 0 success, 1 kernel errors, findings or NOT_SERVING, 2 usage, I/O
// or RPC errors. When tilejit is built without the service (TILEJIT_WITH_SERVICE=OFF) every
// function here prints that and returns 2. Not thread-safe (writes the standard streams).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "client/offline.h"
#include "common/tls_files.h"

namespace tilejit::client {

struct DaemonOptions {
  std::string server;           // host:port; empty: localhost:50051
  double timeout_seconds = 60;  // deadline of each RPC
  std::string token;            // bearer token; empty: none
  TlsFiles tls;                 // PEM files; none given: plaintext
};

// True when this build can talk to a daemon.
bool ServiceBuilt();

int ServiceCompileCommand(const DaemonOptions& d, const CompileCommandOptions& options);
int ServiceRunCommand(const DaemonOptions& d, const RunCommandOptions& options);
int GetCommand(const DaemonOptions& d, const std::string& handle, const std::string& output);
int HealthCommand(const DaemonOptions& d, const std::string& service);
int StatsCommand(const DaemonOptions& d);

struct CacheCommandOptions {
  std::string action;  // "ls", "evict", "pin", "unpin", "export", "import"
  std::vector<std::string> handles;
  std::string file;  // export: the bundle to write (required); import: the bundle to read
  unsigned limit = 0;
};
int CacheCommand(const DaemonOptions& d, const CacheCommandOptions& options);

struct TuneCommandOptions {
  KernelSourceOptions kernel;  // the untuned call
  // Configurations, each "K=V,K=V" (values typed as --arg); `configs_file` holds one per line
  // (blank lines and lines starting with '#' skipped).
  std::vector<std::string> tries;
  std::string configs_file;
  std::vector<std::string> inputs;     // .npy; none: the daemon's seeded random inputs
  std::vector<std::string> reference;  // .npy expected outputs (out_idx order); none: no check
  std::optional<double> atol, rtol;
  unsigned long long seed = 0;
  int budget_seconds = 0;  // 0: the daemon's limit
  bool json = false;       // print the final TuneResponse as JSON instead of the table
};
int TuneCommand(const DaemonOptions& d, const TuneCommandOptions& options);

// Runs `options.kernel` (a source compiled by the daemon, or a handle) with a Chrome trace
// written to options.trace. The daemon's Launch has no trace field yet, so the daemon's
// binary is fetched (GetKernel) and traced on the in-process simulator.
int TraceCommand(const DaemonOptions& d, const RunCommandOptions& options);
int ServiceDisasmCommand(const DaemonOptions& d, const std::string& handle);

}  // namespace tilejit::client
