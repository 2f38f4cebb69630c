// SPDX-License-Identifier: Apache-2.0
// Codegen: the lowered Tile IR of one kernel -> a KernelBinary (AIC and AIV programs, line
// tables, metadata). The last step of the pipeline.
//
// Input contract (what the passes before it guarantee):
//  - every tile op and sync statement is inside a `scope cube` or `scope vector`
//    (assign_cores); statements outside scopes (lets, allocations, loops, ifs) belong to
//    both programs;
//  - the preconditions of ops.h (hardware scopes, addresses, expanded composites, legal
//    copies).
// Each program is the projection of the body on one core type: the other type's scopes are
// dropped, and loops/ifs/lets left without work for this core are elided. A core type with
// no scope in the body gets no program (core mix cube-only or vector-only).
//
// Lines: each instruction's `line` is the canonical id (ir::StmtIdTable over
// `frontend_kernel`) of the first frontend statement with the same SourceLoc as the lowered
// statement it came from (passes keep locs: passes/pass.h); kNoStmt if none.
//
// Metadata: params (canonical names, shape, dtype, role, symbolic dims), out_idx,
// workspace_idx, symbols, block count (the launch grid: a constant, or a program over the
// symbols when it depends on them), core mix, vector cores per block (threads=1: 1; otherwise
// 2; cube-only: 0), on-chip usage (highest byte in use per memory).
//
// Symbols (T.symbolic dims): the code reads symbol i from launch argument slot
// params.size() + i and handles any value in [0, kMaxSymbolValue]; GM regions over a symbolic
// dim are clipped at run time like any tail.
//
// Deterministic: equal inputs give equal binaries. Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <string>

#include "common/diagnostic.h"
#include "common/result.h"
#include "compiler/ir/ir.h"
#include "compiler/target/binary.h"
#include "compiler/target/npu_target.h"

namespace tilejit::codegen {

inline constexpr int64_t kMaxSymbolValue = INT32_MAX;

struct CodegenInput {
  const ir::Kernel* kernel = nullptr;           // lowered; not owned
  const ir::Kernel* frontend_kernel = nullptr;  // as the frontend produced it; not owned
  const target::NpuTarget* target = nullptr;
  std::string compiler_fingerprint;
  std::string cache_key;
};

Result<target::KernelBinary> Codegen(const CodegenInput& input, DiagnosticEngine* diag);

}  // namespace tilejit::codegen
