// SPDX-License-Identifier: Apache-2.0
// Hand-built kernels shared by the IR tests: shapes of the shared test kernels (GEMM with
// ping-pong flags, softmax, flash attention) and synthetic ones that together cover every
// statement kind, expression kind, TileOpCode and literal corner case.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/ir.h"

namespace tilejit::ir::testing {

struct NamedKernel {
  std::string name;
  Kernel kernel;
};

Kernel GemmPingpongKernel();
Kernel SoftmaxKernel();
Kernel FlashAttentionKernel();
Kernel EveryStmtKernel();
Kernel EveryTileOpKernel();
Kernel LiteralKernel();

std::vector<NamedKernel> AllTestKernels();

// Small builders.
Buffer Param(std::string name, std::vector<int64_t> shape, DType dtype, BufferRole role);
Buffer OnChip(std::string name, std::vector<int64_t> shape, DType dtype, MemScope scope);
Stmt Alloc(const Buffer& b);
Region Slice(const Buffer& b, std::vector<Range> ranges);
Stmt Launch(Expr grid, int threads, const Var& cid, const Var& vid, std::vector<Stmt> body);

}  // namespace tilejit::ir::testing
