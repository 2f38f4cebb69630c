// SPDX-License-Identifier: Apache-2.0
// A hand-built kernel with a symbolic dim, for the launchers' tests (no compiler): "copy_rows"
// copies A [M, 8] int32 to B [M, 8] row by row, GM -> UB -> GM, on ceil(M / 64) vector blocks
// of at most 64 rows. M is read from its argument slot (2, after the two addresses) with
// ld_arg, so the output is right only if the launcher binds M and passes it. Header-only;
// every function returns fresh values.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "compiler/target/asm.h"
#include "compiler/target/binary.h"
#include "compiler/target/isa.h"

namespace tilejit::testing {

inline constexpr int64_t kCopyRowsMax = 4096;  // M's max

inline const char kCopyRowsProgram[] =
    "ld_arg rd=r1, arg=0\n"
    "ld_arg rd=r2, arg=1\n"
    "ld_arg rd=r3, arg=2\n"
    "get_cid rd=r4\n"
    "mul rd=r5, rs1=r4, src2=64\n"
    "sub rd=r6, rs1=r3, src2=r5\n"
    "min rd=r6, rs1=r6, src2=64\n"
    "mul rd=r7, rs1=r5, src2=32\n"
    "add rd=r1, rs1=r1, src2=r7\n"
    "add rd=r2, rs1=r2, src2=r7\n"
    "copy_gm_ub dst=0, src=r1, nburst=r6, len=32, src_stride=32, dst_stride=32, pad=0, "
    "padval=0, dtype=s32\n"
    "set_flag spipe=mte2, dpipe=mte3, event=0\n"
    "wait_flag spipe=mte2, dpipe=mte3, event=0\n"
    "copy_ub_gm dst=r2, src=0, nburst=r6, len=32, src_stride=32, dst_stride=32, atomic=none, "
    "dtype=s32\n"
    "end\n";

inline target::KernelBinary CopyRowsBinary() {
  using target::ElementType;
  using target::ParamRole;
  target::KernelBinary b;
  target::KernelMetadata& m = b.metadata;
  m.kernel_name = "copy_rows";
  m.target = "ascend910b2";
  m.params = {{"A", {0, 8}, ElementType::kInt32, ParamRole::kInput, false, 0, {0, -1}},
              {"B", {0, 8}, ElementType::kInt32, ParamRole::kOutput, false, 0, {0, -1}}};
  m.out_idx = {1};
  m.symbols = {{"M", kCopyRowsMax}};
  m.block_count = 0;
  m.grid = {"s0", "c63", "+", "c64", "//"};
  m.core_mix = target::CoreMix::kVectorOnly;
  m.vector_cores_per_block = 1;
  auto program = target::Assemble(kCopyRowsProgram);
  auto words = target::EncodeProgram(program.ok() ? *program : std::vector<target::Instr>{});
  for (uint64_t w : words.ok() ? *words : std::vector<uint64_t>{}) {
    for (int i = 0; i < 8; ++i) b.aiv.code.push_back(static_cast<uint8_t>(w >> (8 * i)));
  }
  b.aiv.line_table.assign(program.ok() ? program->size() : 0, target::kNoStmt);
  return b;
}

inline std::vector<uint8_t> CopyRowsFile() {
  auto bytes = target::WriteKernelBinary(CopyRowsBinary());
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

// M rows of 8 distinct int32 values, as bytes.
inline std::vector<uint8_t> CopyRowsInput(int64_t rows) {
  std::vector<int32_t> v(static_cast<size_t>(rows * 8));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(i * 7 + 3);
  std::vector<uint8_t> bytes(v.size() * 4);
  if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

}  // namespace tilejit::testing
