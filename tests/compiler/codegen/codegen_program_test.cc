// SPDX-License-Identifier: Apache-2.0
// Codegen core, whole programs: projection onto the core types, sync statements as
// instructions, parameter hoisting, line tables, metadata, determinism and diagnostics.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/ir/ir_parser.h"
#include "compiler/ir/printer.h"
#include "compiler/target/tile_layout.h"
#include "tests/compiler/codegen/codegen_test_util.h"

namespace tilejit::codegen {
namespace {

using target::CoreType;
using target::Opcode;
using testing::CompileIr;
using testing::CountOp;
using testing::ExpectNoFindings;
using testing::Program;
using testing::RunIr;
using testing::ToInt32;

// Cube work in one loop, vector work in another: each program keeps only its own loop.
constexpr const char* kMixed = R"(param %p0: gm int32[4] output
out_idx = [0]
workspace_idx = []
launch(2, threads=0) (%cid, %vid) {
  for %v0 in serial(0, 2) {
    scope cube {
      set_cross_flag(fix, 5, mode=2)
    }
  }
  for %v1 in serial(0, 2) {
    scope vector {
      wait_cross_flag(5)
    }
  }
  scope vector {
    %p0[%cid * 2 + %vid] = %cid + 1
  }
}
)";

TEST(CodegenProjection, MixedKernelGivesEachCoreOnlyItsWork) {
  auto bin = CompileIr(kMixed);
  ASSERT_TRUE(bin.ok()) << bin.status();
  EXPECT_EQ(bin->metadata.core_mix, target::CoreMix::kMixed);
  EXPECT_EQ(bin->metadata.vector_cores_per_block, 2);
  EXPECT_EQ(CountOp(*bin, CoreType::kAic, Opcode::kXset), 1);
  EXPECT_EQ(CountOp(*bin, CoreType::kAic, Opcode::kXwait), 0);
  EXPECT_EQ(CountOp(*bin, CoreType::kAic, Opcode::kStGm), 0);
  EXPECT_EQ(CountOp(*bin, CoreType::kAic, Opcode::kBnz), 1);  // the vector loop is elided
  EXPECT_EQ(CountOp(*bin, CoreType::kAiv, Opcode::kXset), 0);
  EXPECT_EQ(CountOp(*bin, CoreType::kAiv, Opcode::kXwait), 1);
  EXPECT_EQ(CountOp(*bin, CoreType::kAiv, Opcode::kStGm), 1);
  EXPECT_EQ(CountOp(*bin, CoreType::kAiv, Opcode::kBnz), 1);
  EXPECT_EQ(CountOp(*bin, CoreType::kAiv, Opcode::kGetVid), 1);
  EXPECT_EQ(CountOp(*bin, CoreType::kAic, Opcode::kGetVid), 0);  // vid is 0 on the AIC
  for (const auto& in : Program(*bin, CoreType::kAic)) {
    if (in.op != Opcode::kXset) continue;
    EXPECT_EQ(in.pipe, target::Pipe::kFix);
    EXPECT_EQ(in.xmode, 2);
    EXPECT_EQ(in.flag, target::OpImm(5));
  }
  for (const auto& in : Program(*bin, CoreType::kAiv)) {
    if (in.op != Opcode::kXwait) continue;
    EXPECT_EQ(in.pipe, target::Pipe::kS);
    EXPECT_EQ(in.flag, target::OpImm(5));
  }

  auto run = RunIr(kMixed, {});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_EQ(ToInt32(run->outputs[0]), (std::vector<int32_t>{1, 1, 2, 2}));
}

// printf passes its runtime values with dbg_arg and names its record; dump_tensor waits for
// every pipe (barrier all) and names its own; the records land in the metadata, numbered
// across both core programs, and the text comes back with the launch.
constexpr const char* kPrints = R"(param %p0: gm int32[4] output
out_idx = [0]
workspace_idx = []
launch(1, threads=0) (%cid, %vid) {
  scope cube {
    printf(%cid) {format="aic %d\x0a"}
  }
  scope vector {
    %p0[%vid] = %vid + 5
    printf(%vid, 2.5) {format="v%d %.1f\x0a"}
    dump_tensor(%p0) {count=2, desc=9, shape="1x2"}
  }
}
)";

TEST(CodegenDebug, PrintsNameMetadataRecordsAndComeBackWithTheLaunch) {
  auto bin = CompileIr(kPrints);
  ASSERT_TRUE(bin.ok()) << bin.status();
  const auto& prints = bin->metadata.prints;
  ASSERT_EQ(prints.size(), 3u);
  EXPECT_EQ(prints[0].format, "aic %d\n");
  EXPECT_EQ(prints[1].args, (std::vector<target::ElementType>{target::ElementType::kInt64,
                                                              target::ElementType::kFloat32}));
  EXPECT_EQ(prints[2].kind, target::PrintKind::kDump);
  EXPECT_EQ(prints[2].memory, "gm");
  EXPECT_EQ(prints[2].shape, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(CountOp(*bin, CoreType::kAic, Opcode::kDbgArg), 1);
  EXPECT_EQ(CountOp(*bin, CoreType::kAiv, Opcode::kDbgArg), 2);
  const std::vector<target::Instr> aiv = Program(*bin, CoreType::kAiv);
  for (size_t i = 0; i < aiv.size(); ++i) {
    if (aiv[i].op == Opcode::kDbgPrint) {
      EXPECT_EQ(aiv[i].msg, 1);
    }
    if (aiv[i].op != Opcode::kDbgDump) continue;
    EXPECT_EQ(aiv[i].msg, 2);
    ASSERT_GT(i, 0u);
    EXPECT_EQ(aiv[i - 1].op, Opcode::kBarrier);
    EXPECT_EQ(aiv[i - 1].pipe, target::Pipe::kAll);
  }
  auto run = RunIr(kPrints, {});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  // aiv0 dumps its own element (5); aiv1's (6) may or may not be written by then.
  const std::string& out = run->report.device_output;
  EXPECT_TRUE(
      out.starts_with("[block 0 aic] aic 0\n[block 0 aiv0] v0 2.5\n"
                      "[block 0 aiv0] dump desc=9 gm int32[2] at "))
      << out;
  EXPECT_NE(out.find(":\n[block 0 aiv0]   5 "), std::string::npos) << out;
  EXPECT_NE(out.find("[block 0 aiv1] v1 2.5\n"), std::string::npos) << out;
}

TEST(CodegenProjection, CubeOnlyKernelHasNoVectorProgram) {
  auto bin = CompileIr(R"(param %p0: gm float32[4] input
out_idx = []
workspace_idx = []
launch(1, threads=0) (%cid, %vid) {
  scope cube {
    barrier(all)
  }
}
)");
  ASSERT_TRUE(bin.ok()) << bin.status();
  EXPECT_EQ(bin->metadata.core_mix, target::CoreMix::kCubeOnly);
  EXPECT_EQ(bin->metadata.vector_cores_per_block, 0);
  EXPECT_TRUE(bin->aiv.code.empty());
  EXPECT_FALSE(bin->aic.code.empty());
  EXPECT_EQ(CountOp(*bin, CoreType::kAic, Opcode::kGetCid), 0);  // grid 1: cid is 0
}

TEST(CodegenProjection, PreludeLetsAndPipelinedLoopsLowerLikeSerialCode) {
  auto run = RunIr(R"(param %p0: gm int32[2] input
param %p1: gm int32[3] output
out_idx = [1]
workspace_idx = []
let %v0 = %p0[0] * 2
launch(3, threads=1) (%cid, %vid) {
  alloc %var_0: var int32[1]
  scope vector {
    %var_0[0] = %v0
    for %v1 in pipelined(0, %p0[1], stages=2) {
      %var_0[0] = %var_0[0] + %v1 * %cid
    }
    %p1[%cid] = %var_0[0]
  }
}
)",
                   {testing::I32({2}, {5, 4})});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_EQ(ToInt32(run->outputs[0]), (std::vector<int32_t>{10, 16, 22}));  // 10 + 6 * cid
}

TEST(CodegenSync, FlagsAndBarriersBecomeSyncInstructions) {
  const char* ir = R"(param %p0: gm int32[2] output
out_idx = [0]
workspace_idx = []
launch(2, threads=1) (%cid, %vid) {
  scope vector {
    set_flag(s, mte3, %cid % 2)
    wait_flag(s, mte3, %cid % 2)
    set_flag(v, mte3, 3)
    wait_flag(v, mte3, 3)
    barrier(v)
    barrier(all)
    %p0[%cid] = 1
  }
}
)";
  auto bin = CompileIr(ir);
  ASSERT_TRUE(bin.ok()) << bin.status();
  std::vector<target::Instr> sets;
  for (const auto& in : Program(*bin, CoreType::kAiv)) {
    if (in.op == Opcode::kSetFlag || in.op == Opcode::kWaitFlag) sets.push_back(in);
  }
  ASSERT_EQ(sets.size(), 4u);
  EXPECT_EQ(sets[0].spipe, target::Pipe::kS);
  EXPECT_EQ(sets[0].dpipe, target::Pipe::kMte3);
  EXPECT_NE(sets[0].event.reg, 0) << "runtime event id in a register";
  EXPECT_EQ(sets[2].event, target::OpImm(3));
  EXPECT_EQ(sets[3].op, Opcode::kWaitFlag);
  const std::string text = testing::Disasm(*bin, CoreType::kAiv);
  EXPECT_NE(text.find("barrier pipe=v"), std::string::npos) << text;
  EXPECT_NE(text.find("barrier pipe=all"), std::string::npos) << text;

  auto run = RunIr(ir, {});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
}

TEST(CodegenParams, ParamBasesAreLoadedOnceInThePrologue) {
  auto bin = CompileIr(R"(param %p0: gm int32[8] input
param %p1: gm int32[8] output
out_idx = [1]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  scope vector {
    for %v0 in serial(0, 8) {
      %p1[%v0] = %p0[%v0] + 1
    }
  }
}
)");
  ASSERT_TRUE(bin.ok()) << bin.status();
  const auto prog = Program(*bin, CoreType::kAiv);
  ASSERT_GE(prog.size(), 2u);
  EXPECT_EQ(prog[0].op, Opcode::kLdArg);
  EXPECT_EQ(prog[1].op, Opcode::kLdArg);
  EXPECT_EQ(CountOp(*bin, CoreType::kAiv, Opcode::kLdArg), 2);
}

TEST(CodegenLines, InstructionsMapToTheirStatementIds) {
  const char* ir = R"(param %p0: gm int32[4] output
out_idx = [0]
workspace_idx = []
launch(4, threads=1) (%cid, %vid) {
  scope vector {
    for %v0 in serial(0, 3) {
      %p0[%cid] = %v0
    }
    barrier(all)
  }
}
)";
  auto bin = CompileIr(ir);
  ASSERT_TRUE(bin.ok()) << bin.status();
  auto kernel = ir::ParseTileIrString(ir);
  ASSERT_TRUE(kernel.ok());
  const auto table = ir::StmtIdTable(*kernel);
  uint32_t store_id = target::kNoStmt, barrier_id = target::kNoStmt, for_id = target::kNoStmt;
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i]->kind == ir::StmtKind::kStore) store_id = static_cast<uint32_t>(i);
    if (table[i]->kind == ir::StmtKind::kBarrier) barrier_id = static_cast<uint32_t>(i);
    if (table[i]->kind == ir::StmtKind::kFor) for_id = static_cast<uint32_t>(i);
  }
  const auto prog = Program(*bin, CoreType::kAiv);
  ASSERT_EQ(prog.size(), bin->aiv.line_table.size());
  for (size_t i = 0; i < prog.size(); ++i) {
    const uint32_t line = bin->aiv.line_table[i];
    EXPECT_EQ(prog[i].line, line);
    uint32_t want = line;
    switch (prog[i].op) {
      case Opcode::kStGm:
        want = store_id;
        break;
      case Opcode::kBarrier:
        want = barrier_id;
        break;
      case Opcode::kBnz:
        want = for_id;
        break;
      case Opcode::kGetCid:
        want = 0;
        break;  // the launch
      case Opcode::kEnd:
      case Opcode::kLdArg:
        want = target::kNoStmt;
        break;
      default:
        break;
    }
    EXPECT_EQ(line, want) << "instruction " << i << ": " << target::Disassemble(prog[i]);
  }
}

TEST(CodegenMetadata, ListsParamsIndicesAndOnChipUsage) {
  auto bin = CompileIr(R"(param %p0: gm float16[16, 32] input
param %p1: gm float32[16] output
param %p2: gm float32[64] workspace
out_idx = [1]
workspace_idx = [2]
launch(6, threads=1) (%cid, %vid) {
  alloc %ub_0: ub float32[3, 10] @64
  alloc %l1_0: l1 float16[20, 40] @1024
  scope vector {
    %p1[0] = 1.0
  }
}
)");
  ASSERT_TRUE(bin.ok()) << bin.status();
  const auto& m = bin->metadata;
  ASSERT_EQ(m.params.size(), 3u);
  EXPECT_EQ(m.params[0].name, "p0");
  EXPECT_EQ(m.params[0].dtype, target::ElementType::kFloat16);
  EXPECT_EQ(m.params[0].shape, (std::vector<int64_t>{16, 32}));
  EXPECT_EQ(m.params[0].role, target::ParamRole::kInput);
  EXPECT_EQ(m.params[1].role, target::ParamRole::kOutput);
  EXPECT_EQ(m.params[2].role, target::ParamRole::kWorkspace);
  EXPECT_EQ(m.out_idx, (std::vector<int>{1}));
  EXPECT_EQ(m.workspace_idx, (std::vector<int>{2}));
  EXPECT_EQ(m.block_count, 6);
  EXPECT_EQ(m.core_mix, target::CoreMix::kVectorOnly);
  EXPECT_EQ(m.vector_cores_per_block, 1);
  EXPECT_EQ(m.target, "ascend910b2");
  EXPECT_EQ(m.compiler_fingerprint, "test");
  EXPECT_EQ(m.cache_key, "test-key");
  EXPECT_EQ(m.on_chip.ub, 64 + 3 * 64);         // rows padded to 32 bytes
  EXPECT_EQ(m.on_chip.l1, 1024 + 3 * 32 * 32);  // zN: 3 column blocks of P = 32 rows
  EXPECT_EQ(m.on_chip.l0a, 0);
}

TEST(CodegenDeterminism, TwoCompilesGiveIdenticalBytes) {
  auto a = CompileIr(kMixed);
  auto b = CompileIr(kMixed);
  ASSERT_TRUE(a.ok() && b.ok());
  auto ba = target::WriteKernelBinary(*a);
  auto bb = target::WriteKernelBinary(*b);
  ASSERT_TRUE(ba.ok() && bb.ok());
  EXPECT_EQ(*ba, *bb);
}

TEST(CodegenDiagnostics, NonConstantGridIsReportedAtTheGrid) {
  auto bin = CompileIr(R"(param %p0: gm int32[4] input
out_idx = []
workspace_idx = []
let %v0 = %p0[0]
launch(%v0, threads=1) (%cid, %vid) {
  scope vector {
    barrier(all)
  }
}
)");
  ASSERT_FALSE(bin.ok());
  EXPECT_EQ(bin.status().code(), StatusCode::kCompileError);
  EXPECT_NE(bin.status().message().find("<tile_ir>:5:"), std::string::npos) << bin.status();
  EXPECT_NE(bin.status().message().find("compile-time constant"), std::string::npos);
}

// 40 lets live at once, each sum of the previous one and cid: the arithmetic ones are
// recomputed at their uses once registers run short (BindRemat), so the kernel compiles and
// computes the sum; the same lets reading memory must each hold a register, and do not fit.
std::string ManyLets(bool load) {
  std::string ir = R"(param %p0: gm int32[2] output
param %p1: gm int32[2] input
out_idx = [0]
workspace_idx = []
launch(2, threads=1) (%cid, %vid) {
  scope vector {
)";
  std::string sum = "%cid";
  std::string prev = "%cid";
  for (int i = 0; i < 40; ++i) {
    const std::string name = "%a" + std::to_string(i);
    ir += "    let " + name + " = " + prev + " + " + (load ? "%p1[%cid]" : "%cid") + "\n";
    sum += " + " + name;
    prev = name;
  }
  ir += "    %p0[%cid] = " + sum + "\n  }\n}\n";
  return ir;
}

TEST(CodegenProgram, LoadFreeLetsAreRecomputedWhenRegistersRunShort) {
  auto run = RunIr(ManyLets(false), {I32({2}, {0, 0})});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  // a_i = (i + 2) * cid; the sum is cid * (1 + sum_{i<40} (i + 2)) = cid * 861.
  EXPECT_EQ(ToInt32(run->outputs[0]), (std::vector<int32_t>{0, 861}));
}

// 20 lets live across a statement whose right-nested sum holds 13 temporaries at once: the
// first lowering keeps lets in registers until 10 are free and runs short inside the
// statement; the retry recomputes every load-free let and fits.
TEST(CodegenProgram, ARetryRecomputesEveryLetWhenAStatementNeedsManyTemporaries) {
  std::string ir = R"(param %p0: gm int32[2] output
out_idx = [0]
workspace_idx = []
launch(2, threads=1) (%cid, %vid) {
  scope vector {
)";
  std::string lets = "%cid";
  int64_t per_cid = 1;
  for (int i = 0; i < 20; ++i) {
    const std::string name = "%b" + std::to_string(i);
    ir += "    let " + name + " = %cid * " + std::to_string(i + 2) + "\n";
    lets += " + " + name;
    per_cid += i + 2;
  }
  std::string nested = "%cid";
  for (int i = 0; i < 13; ++i) {
    nested = "(%cid * " + std::to_string(i + 3) + " + " + nested + ")";
    per_cid += i + 3;
  }
  per_cid += 1;
  ir += "    %p0[%cid] = (" + lets + ") + " + nested + "\n  }\n}\n";
  auto run = RunIr(ir, {});
  ASSERT_TRUE(run.ok()) << run.status();
  ExpectNoFindings(run->report);
  EXPECT_EQ(ToInt32(run->outputs[0]), (std::vector<int32_t>{0, static_cast<int32_t>(per_cid)}));
}

TEST(CodegenDiagnostics, TooManyLiveValuesIsADiagnosticNotACrash) {
  auto bin = CompileIr(ManyLets(true));
  ASSERT_FALSE(bin.ok());
  EXPECT_EQ(bin.status().code(), StatusCode::kCompileError);
  EXPECT_NE(bin.status().message().find("too many live scalar values"), std::string::npos)
      << bin.status();
}

TEST(CodegenProgram, DeepIndexArithmeticNeedsRegistersForItsDepthNotItsSize) {
  // 40 products summed: each operand's temporary dies at its use, so this fits in 31 registers
  // (it needed one per node before subexpression temporaries were freed).
  std::string ir = R"(param %p0: gm int32[2] output
out_idx = [0]
workspace_idx = []
launch(2, threads=1) (%cid, %vid) {
  scope vector {
)";
  std::string sum = "%cid";
  for (int i = 0; i < 40; ++i) sum = "(" + sum + " + %cid * " + std::to_string(i + 2) + ")";
  ir += "    %p0[%cid] = " + sum + "\n  }\n}\n";
  auto bin = CompileIr(ir);
  ASSERT_TRUE(bin.ok()) << bin.status();
}

// A grid over three symbols has no int64 bound at the symbols' maxima (INT32_MAX cubed):
// cid is then bounded by the block limit every launch checks, and the kernel runs.
TEST(CodegenProgram, AGridOverThreeSymbolsCompilesAndRuns) {
  constexpr std::string_view kIr = R"(param %p0: gm float32[%s0, %s1, %s2, 8] input
param %p1: gm float32[%s0, %s1, %s2, 8] output
out_idx = [1]
workspace_idx = []
launch(%s0 * %s1 * %s2, threads=1) (%cid, %vid) {
  alloc %ub_0: ub float32[1, 8] @0
  let %v0 = %cid // (%s1 * %s2)
  let %v1 = %cid // %s2 % %s1
  let %v2 = %cid % %s2
  scope vector {
    copy(%ub_0, %p0[%v0:+1, %v1:+1, %v2:+1, :])
    barrier(all)
    copy(%p1[%v0:+1, %v1:+1, %v2:+1, :], %ub_0)
  }
}
)";
  std::vector<float> x(2 * 3 * 2 * 8);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  Result<testing::IrRun> run = testing::RunIr(kIr, {testing::F32({2, 3, 2, 8}, x)});
  ASSERT_TRUE(run.ok()) << run.status();
  testing::ExpectNoFindings(run->report);
  EXPECT_EQ(run->report.block_count, 12);
  ASSERT_EQ(run->outputs.size(), 1u);
  EXPECT_EQ(run->outputs[0].shape, (std::vector<int64_t>{2, 3, 2, 8}));
  EXPECT_EQ(run->outputs[0].data, testing::F32({2, 3, 2, 8}, x).data);
}

TEST(CodegenDiagnostics, ScalarAccessToL1IsRejected) {
  auto bin = CompileIr(R"(param %p0: gm float32[4] output
out_idx = [0]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  alloc %l1_0: l1 float32[16, 16] @0
  scope cube {
    %p0[0] = %l1_0[0, 0]
  }
}
)");
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find("scalar access to l1"), std::string::npos) << bin.status();
}

TEST(CodegenDiagnostics, SyncOutsideAScopeIsRejected) {
  auto bin = CompileIr(R"(param %p0: gm float32[4] output
out_idx = [0]
workspace_idx = []
launch(1, threads=1) (%cid, %vid) {
  barrier(all)
  scope vector {
    %p0[0] = 1.0
  }
}
)");
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find("outside a `scope cube`"), std::string::npos)
      << bin.status();
}

}  // namespace
}  // namespace tilejit::codegen
