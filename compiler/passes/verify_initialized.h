// SPDX-License-Identifier: Apache-2.0
// verify_initialized: an on-chip buffer read where nothing can have written it yet is an
// error at the read, with a note at the buffer's first write if it has one.
//
// A read is reported only when it surely runs and surely sees no data, judged in the
// author's program order before any lowering:
//  - no statement before it (in program order, anywhere in the kernel) writes any part of
//    the buffer, so its first execution reads bytes never written;
//  - it is not under an `if`, and every loop around it has a constant trip count >= 1 (a read
//    guarded by `if k > 0` of a value the loop writes later is a loop-carried value, not a
//    defect);
//  - it is an operand read: the destination an op accumulates into (gemm without init=True,
//    reduce with clear=False, axpy, mul_add_dst) is not counted (its first write is often
//    the same op with a runtime init), and neither are device prints;
//  - the buffer is on chip (UB, L1, L0A/B/C, shared, fragment), not an alloc_var, and has no
//    author-given address (T.annotate_address buffers may alias one written under another
//    name).
// Upstream's vid-reduced sparse flash attention, for example, runs a gemm on `kv_l1` at the top
// of its loop and fills `kv_l1` further down: its first iteration multiplies garbage.
//
// Statistics: none. Thread safety: a pure function of its input.
#pragma once

#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/passes/pass.h"

namespace tilejit::passes {

Result<ir::Kernel> VerifyInitialized(const ir::Kernel& kernel, PassContext& ctx);

}  // namespace tilejit::passes
