// SPDX-License-Identifier: Apache-2.0
// Buffer accesses of one statement, for the buffer passes (multi_buffer, memory_planning):
// which buffers a statement reads and writes, and whether a write replaces a whole buffer.
//
// Only the statement's own operands and expressions count (a For's min and extent, an If's
// condition, a Let's value, a tile op's regions, scalar operands and attribute expressions,
// a store's indices and value, a flag's event); the bodies of compound statements do not.
//
// Tile-op semantics (docs/tile_ir.md, docs/isa.md): the first operand is the destination of
// every op but nothing is read from it except by mma/gemm_v0 without `init=true` (they
// accumulate), reduce_* with `clear=false` and axpy (dst += s * src). Every other region
// operand, and every buffer element loaded in an expression, is read.
//
// Pure functions; thread-safe.
#pragma once

#include <utility>
#include <vector>

#include "compiler/ir/ir.h"

namespace tilejit::analysis {

struct BufferAccess {
  const ir::BufferNode* buffer = nullptr;
  bool write = false;
  const ir::Region* region = nullptr;  // the operand region (null for loads and stores)
};

// Every access `s` itself makes, destination first for tile ops.
std::vector<BufferAccess> AccessesOf(const ir::StmtNode& s);

// Whether tile op `op` reads its destination operand (see above).
bool ReadsDestination(const ir::TileOpNode& op);

// A pre-order walk of a statement tree that numbers every statement except sequences
// (positions 0, 1, ...: program order, the order of the printed lines) and records every
// access with its position, plus the extent of every For and If.
struct TracedControl {
  const ir::StmtNode* node = nullptr;  // a ForNode or an IfNode
  int begin = 0;                       // its own position
  int end = 0;                         // the last position inside it
  int parent = -1;                     // index of the enclosing control, -1 at top level
  bool is_loop = false;
};

struct TracedAccess {
  int pos = 0;
  BufferAccess access;
  const ir::StmtNode* stmt = nullptr;
  int control = -1;  // index of the innermost enclosing For/If in AccessTrace::controls
};

struct AccessTrace {
  std::vector<TracedAccess> accesses;                           // by position
  std::vector<TracedControl> controls;                          // by begin position
  std::vector<std::pair<const ir::AllocateNode*, int>> allocs;  // with their positions
  int num_positions = 0;
};

AccessTrace TraceAccesses(const ir::Stmt& root);

}  // namespace tilejit::analysis
