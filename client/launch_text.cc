// SPDX-License-Identifier: Apache-2.0
// Kept line-compatible with the offline report ("status: ...", "<kind>: ...") so scripts that
// grep a run's output work the same with and without --server.
#include "client/launch_text.h"

#include <sstream>

namespace tilejit::client {

std::string FormatLaunchResponse(const v1::LaunchResponse& r) {
  std::ostringstream os;
  if (!r.device_output().empty()) os << "device output:\n" << r.device_output();
  os << "status: " << (r.ok() ? "OK" : r.error().empty() ? "findings" : r.error()) << "\n";
  if (r.symbols_size() > 0) {  // as the offline report: what this launch bound
    os << "symbols:";
    for (const v1::LaunchSymbol& s : r.symbols()) os << " " << s.name() << "=" << s.value();
    os << " (" << r.block_count() << " block(s))\n";
  }
  os << "kernel cycles: " << r.kernel_cycles() << " (" << r.waves() << " wave(s); launch overhead "
     << r.launch_overhead_cycles() << ")\n";
  if (r.gm_bytes() > 0) {  // the words of runner/report_text.cc
    os << "GM traffic: " << r.gm_bytes() << " bytes, " << r.hbm_bytes() << " of them from HBM; ";
    if (r.hbm_bound_waves() == 0) {
      os << "no wave HBM-bound\n";
    } else {
      os << r.hbm_bound_waves() << " of " << r.waves()
         << " wave(s) HBM-bound (blocks alone: " << r.block_bound_cycles() << " cycles)\n";
    }
  }
  os << "instructions: " << r.instructions() << "\n";
  for (const v1::LaunchFinding& f : r.findings()) {
    os << f.kind() << ": " << f.message() << "\n";
  }
  if (r.findings_suppressed() > 0) {
    os << "(" << r.findings_suppressed() << " more findings suppressed)\n";
  }
  return os.str();
}

}  // namespace tilejit::client
