// SPDX-License-Identifier: Apache-2.0
// Internals of vid_reduction shared by its three files: the data-flow survey
// (vid_reduction_flow.cc), the decision (vid_reduction.cc) and the rewrite
// (vid_reduction_rewrite.cc). Not part of the pass interface.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/diagnostic.h"
#include "common/source_loc.h"
#include "compiler/ir/ir.h"

namespace tilejit::passes::vid {

// Why a buffer must be split, or must stay whole on both AIVs (diagnostic notes).
struct Reason {
  SourceLoc loc;
  std::string text;
};

// How an access touches the rows (leading dim) of a UB buffer.
enum class RowAccess {
  kWhole,   // every row, and the leading dim leads the access's shape (`x`, `x[:, 0:+8]`)
  kRowVar,  // one row picked by a loop var (`x[i, :]`, `m[i]`)
  kOther,   // anything else (a fixed row, a row range, a unit leading dim)
};
struct RowUse {
  RowAccess kind = RowAccess::kOther;
  const ir::VarNode* var = nullptr;  // kRowVar: the loop var
};

RowUse ClassifyRegion(const ir::Region& region);
RowUse ClassifyIndices(const std::vector<ir::Expr>& indices);

// The dim of `partner` that carries the rows of `ub` in a copy between them: partner's
// trailing dims must have the extents of ub's region. nullopt when they do not line up.
std::optional<size_t> PartnerRowDim(const ir::Region& ub, const ir::Region& partner);

// What the survey found; buffers are numbered in allocation order.
struct Flow {
  const ir::KernelNode* launch = nullptr;
  std::vector<ir::Buffer> ubs;  // UB allocations
  std::unordered_map<const ir::BufferNode*, int> index;
  std::vector<int> parent;  // union-find over ubs: buffers whose rows must agree
  std::vector<std::optional<Reason>> split_reason;
  // A copy to or from GM at a block-derived offset along the tensor's LAST dim: the rows of
  // a row-vector output (`M[cid * 64:+64]`) or the columns of a bias slice (`b[by * 128:+128]`).
  // It splits only a group with no reason to stay whole.
  std::vector<std::optional<Reason>> weak_split_reason;
  std::vector<std::optional<Reason>> whole_reason;  // must be replicated
  // Buffers that only move data between GM regions (every use a whole copy to or from GM
  // along a dim of its shape): each AIV may move half of it, whatever the offsets.
  std::vector<std::optional<Reason>> gm_copy;
  std::vector<bool> other_use;
  // Loop vars that pick rows of UB buffers, with the loop and the buffers.
  struct RowLoop {
    const ir::ForNode* loop = nullptr;
    std::vector<int> buffers;
  };
  std::vector<const ir::VarNode*> row_loop_order;
  std::unordered_map<const ir::VarNode*, RowLoop> row_loops;
  // UB data written to GM or into a cube buffer: both AIVs would write it if replicated.
  struct Write {
    int buffer;
    SourceLoc loc;
    std::string target;  // "gm", "l1", ...
  };
  std::vector<Write> writes;
  // `dst` computed from `src` with rows not lined up (a row of src into a column-indexed dst):
  // a split src cannot feed a replicated dst.
  struct Derive {
    int dst, src;
    SourceLoc loc;
  };
  std::vector<Derive> derives;

  int Find(int b);
  void Union(int a, int b);
};

// Surveys a threads=2 kernel (launch found and threads == 2; otherwise flow.launch is the
// launch found, or null).
Flow SurveyFlow(const ir::Kernel& kernel);

// The decision: per split buffer its half row count, per halved loop var its half extent.
struct SplitPlan {
  std::unordered_map<const ir::BufferNode*, int64_t> split;
  std::unordered_map<const ir::VarNode*, int64_t> halved_loops;
};

// Rewrites the kernel by `plan` (vid is the launch's vid var). Reports accesses of split
// buffers it cannot split to `diag` and returns false for them.
bool RewriteSplit(const ir::Kernel& kernel, const ir::KernelNode& launch, const SplitPlan& plan,
                  DiagnosticEngine* diag, ir::Kernel* out);

}  // namespace tilejit::passes::vid
