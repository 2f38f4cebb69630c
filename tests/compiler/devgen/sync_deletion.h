// SPDX-License-Identifier: Apache-2.0
// The sync-deletion experiment (issue #5, acceptance 3): take a kernel's program right after
// sync_insert, delete one compiler-made sync at a time, and ask whether anything notices.
//
// A candidate is one compiler-made `barrier`, or a set_flag/wait_flag pair on the same
// (core scope, src pipe, dst pipe, event id) that meet in one straight-line statement list
// (lets continue their list), or — for a key with flags that do not pair up within one list:
// the pre-armed, loop-carried and drained ones — every flag of that key in that core scope
// together (deleting all of them keeps the flag protocol balanced; a reused id makes the
// group coarser than one protocol).
//
// For each candidate the program without it goes to verify_sync's check
// (passes::CheckSyncs, compiler/passes/verify_sync.h; any finding counts). With a finding, the
// program is code-generated and launched checked, then perturbed: a finding of the launch, or
// perturbed outputs that differ from the intact program's, means the deletion was caught. Without a
// finding the sync is counted as redundant (a sync_insert inefficiency). A deletion verify_sync
// flags whose statements the launch never executes (it runs as many instructions as the intact
// program) is "unexercised"; one the launch executes but no launch notices is "uncaught" (a
// verify_sync false positive or a simulator blind spot).
//
// Thread safety: RunSyncDeletion is reentrant.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "compiler/compiler.h"
#include "runner/npy.h"

namespace tilejit::devgen {

struct DeletionReport {
  int candidates = 0;
  int barriers = 0;
  int pairs = 0;
  int groups = 0;  // loop-carried / pre-armed flag groups
  int caught = 0;
  int redundant = 0;
  // Flagged by verify_sync but never executed by the launch (code under a condition or a
  // trip count on cid that the grid does not reach): no launch of this grid can notice them.
  int unexercised = 0;
  std::vector<std::string> unexercised_what;
  std::vector<std::string> redundant_what;  // one line per redundant sync
  std::vector<std::string> uncaught;        // one report per uncaught deletion
  // The program after sync_insert, printed with statement ids (`#12`); candidates name the
  // ids they delete.
  std::string program;
  std::string Summary() const;
};

// The deletion candidates of a program, one line each: "<kind> ... [#<stmt id>, ...]" with
// canonical statement ids (ir::StmtIdTable), in discovery order.
std::vector<std::string> DescribeSyncCandidates(const ir::Kernel& program);

// `specialized` comes from compiler::Specialize; `inputs` are its input arrays.
Result<DeletionReport> RunSyncDeletion(const compiler::Specialized& specialized,
                                       const std::vector<runner::NpyArray>& inputs);

}  // namespace tilejit::devgen
