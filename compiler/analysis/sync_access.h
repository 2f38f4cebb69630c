// SPDX-License-Identifier: Apache-2.0
// What one Tile IR statement does to memory, per pipe: the access model shared by sync_insert
// and verify_sync (docs/isa.md sections 1, 5-8).
//
// A statement issues work on one or more pipes ("parts"), in dispatch order:
//  - the scalar unit (pipe s) first reads every buffer element its expressions load (region
//    mins, loop bounds, conditions, let values, scalar operands the vector unit cannot read
//    itself), then
//  - the statement's own work: a copy on the pipe of its data path (GM->L1/UB mte2,
//    L1->L0A/L0B mte1, L0C->GM/L1 fix, UB->GM and L1->GM mte3, UB->UB v; the padded-tail fills
//    codegen adds run on mte2 like the load itself), mma on m, every other tile op on v, a
//    scalar store on s.
// Each access is a byte range of one memory. On-chip buffers are addressed by their planned
// address (so buffers that memory_planning overlaps alias); a buffer without an address gets a
// private range of its own. GM ranges are per tensor (distinct params never alias). Ranges
// are conservative: the whole buffer unless the region's leading (batch) indices, and for ND
// layouts its first row, are constants.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/target/npu_target.h"

namespace tilejit::analysis::sync {

struct Access {
  target::Mem mem = target::Mem::kGM;
  const ir::BufferNode* tensor = nullptr;  // the GM tensor (identity); null on chip
  int64_t begin = 0;                       // bytes [begin, end)
  int64_t end = 0;
  bool write = false;
  // An mma's L0C destination whose region is fully static: consecutive mmas accumulating into
  // the identical region are ordered by the cube itself (docs/isa.md section 1).
  const ir::BufferNode* acc_buffer = nullptr;
  std::vector<int64_t> acc_box;  // the region's mins then extents, when acc_buffer is set
  // Not memory: the event of a set_flag/wait_flag with a constant id (event_group =
  // src * 8 + dst, -1 for a memory access). A set must not fire before an earlier wait of the
  // same event has consumed it (docs/isa.md section 8), which is the same happens-before
  // question as a memory dependence.
  int event_group = -1;
  int64_t event_id = 0;
  bool event_set = false;
};

// The work a statement issues on one pipe.
struct Part {
  ir::Pipe pipe = ir::Pipe::kS;
  std::vector<Access> accesses;
};

// The parts of `s`: a tile op, a scalar store, or the header of a for/if/let (its scalar
// reads only); a set_flag (on its source pipe) or wait_flag (on its destination pipe) with a
// constant id has one part touching its event. Other syncs, sequences, scopes and
// allocations have none. Parts with no access are dropped, except a tile op's own part (it
// still occupies its pipe).
std::vector<Part> DescribeStmt(const ir::Stmt& s, const target::NpuTarget& target);

// True when `a` and `b` touch a common byte of the same memory and at least one writes,
// unless both are accumulations into the identical static L0C region. Event accesses never
// conflict with memory accesses (the analysis handles them).
bool Conflicts(const Access& a, const Access& b);

}  // namespace tilejit::analysis::sync
