// SPDX-License-Identifier: Apache-2.0
// The daemon commands of a build without the service (TILEJIT_WITH_SERVICE=OFF): each says
// so plainly instead of the subcommands silently disappearing from --help.
#include <iostream>

#include "client/service_commands.h"

namespace tilejit::client {
namespace {

int NotBuilt(const char* what) {
  std::cerr << "tilejit: '" << what
            << "' needs the daemon, but this tilejit was built without the service "
               "(TILEJIT_WITH_SERVICE=OFF); rebuild with -DTILEJIT_WITH_SERVICE=ON, or use "
               "the offline compile, run and disasm\n";
  return 2;
}

}  // namespace

bool ServiceBuilt() { return false; }

int ServiceCompileCommand(const DaemonOptions&, const CompileCommandOptions&) {
  return NotBuilt("compile --server");
}
int ServiceRunCommand(const DaemonOptions&, const RunCommandOptions&) {
  return NotBuilt("run --server");
}
int GetCommand(const DaemonOptions&, const std::string&, const std::string&) {
  return NotBuilt("get");
}
int HealthCommand(const DaemonOptions&, const std::string&) { return NotBuilt("health"); }
int StatsCommand(const DaemonOptions&) { return NotBuilt("stats"); }
int CacheCommand(const DaemonOptions&, const CacheCommandOptions&) { return NotBuilt("cache"); }
int TraceCommand(const DaemonOptions&, const RunCommandOptions&) { return NotBuilt("trace"); }
int TuneCommand(const DaemonOptions&, const TuneCommandOptions&) { return NotBuilt("tune"); }
int ServiceDisasmCommand(const DaemonOptions&, const std::string&) {
  return NotBuilt("disasm HANDLE");
}

}  // namespace tilejit::client
