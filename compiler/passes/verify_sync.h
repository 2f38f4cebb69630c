// SPDX-License-Identifier: Apache-2.0
// verify_sync (DESIGN.md section 4, step 11; always on, the last pass before codegen): a static
// check of the syncs of every core program, with the happens-before analysis of
// sync_analysis.h. Per core kind, the program is the launch body with the other kind's scopes
// left out; when the kernel has both kinds, the two are analysed together, so an order through
// the other core's cross-core flags counts (sync::AnalyzeCores). Findings:
//  - an unordered RAW/WAR/WAW between two accesses (docs/isa.md section 1);
//  - a set_flag on an event that is (or may be) already set, a wait_flag no path (or only
//    some paths) can satisfy, an event still set at the end, an event id outside 0..7.
// Severity by ownership (ir::SyncOrigin): a finding on a sync some pass made, or a hazard the
// compiler is responsible for (every hazard when AUTO_SYNC is on; otherwise one between two
// statements derived from the same source statement, or on a compiler-made workspace) is an
// internal error: the pass fails with an Internal status naming it, never a silent bad binary.
// Anything else is the author's and is a warning at the author's source location; the kernel
// still compiles (Expert mode trusts the author).
// Limits: a core program that uses runtime event ids (e.g. `slot = k % 2`) is not checked (ids
// are not modelled); cross-core counters give order but their own balance is not checked here
// (the simulator reports leftovers and overflows).
// Pure function of its inputs; see pass.h for the pass contract and thread safety.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "common/source_loc.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"
#include "compiler/target/npu_target.h"

namespace tilejit::passes {

struct SyncFinding {
  enum class Kind : uint8_t {
    kHazard,
    kDoubleSet,
    kNeverSet,
    kMaybeUnset,
    kArmedAtExit,
    kUnknownEvent
  };
  Kind kind = Kind::kHazard;
  ir::CoreKind core = ir::CoreKind::kCube;
  bool compiler_made = false;  // an internal error rather than a warning
  SourceLoc loc;               // the consumer (hazards) or the sync statement
  std::string message;         // one line, without location
};

struct CheckSyncsOptions {
  bool auto_sync = false;  // every hazard is the compiler's (sync_insert ran)
};

// Every finding of every core program of `kernel`, cube first, each in detection order.
std::vector<SyncFinding> CheckSyncs(const ir::Kernel& kernel, const target::NpuTarget& target,
                                    const CheckSyncsOptions& options = {});

Result<ir::Kernel> VerifySync(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
