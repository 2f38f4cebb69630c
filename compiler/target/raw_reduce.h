// SPDX-License-Identifier: Apache-2.0
// The result geometry of the raw repeat-form reductions (vbreduce_*, vwreduce_*; docs/isa.md,
// "Raw repeat form"), and the names of vwreduce_max/min's result orders. One definition for
// the tracer, codegen (its bounds check) and the simulator. Constant data; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "compiler/target/isa.h"

namespace tilejit::target {

// TileLang's ReduceOrder names, indexed by the order code in vwreduce_max/min's `scalar`.
inline constexpr std::string_view kReduceOrders[] = {"ORDER_VALUE_INDEX", "ORDER_INDEX_VALUE",
                                                     "ORDER_ONLY_VALUE", "ORDER_ONLY_INDEX"};

inline bool IsBlockReduce(Opcode op) {
  return op == Opcode::kVbreduceSum || op == Opcode::kVbreduceMax || op == Opcode::kVbreduceMin;
}
// vwreduce_max/min: a value and its index, in the order the scalar names.
inline bool IsIndexedReduce(Opcode op) {
  return op == Opcode::kVwreduceMax || op == Opcode::kVwreduceMin;
}

// The elements one repeat's results take (dst_rep's unit): 8 for the block forms, 2 for an
// indexed order that keeps both value and index, else 1.
inline int64_t ReduceResultsPerRepeat(Opcode op, int64_t order) {
  if (IsBlockReduce(op)) return 8;
  return IsIndexedReduce(op) && order < 2 ? 2 : 1;
}

// The results a repeat writes: every block with an active element (of `mask`, elements of
// `elem_bytes`), or all of ReduceResultsPerRepeat.
inline int64_t ReduceResultsWritten(Opcode op, int64_t order, int64_t mask, int64_t elem_bytes) {
  if (!IsBlockReduce(op)) return ReduceResultsPerRepeat(op, order);
  const int64_t per_block = 32 / elem_bytes;
  return (mask + per_block - 1) / per_block;
}

}  // namespace tilejit::target
