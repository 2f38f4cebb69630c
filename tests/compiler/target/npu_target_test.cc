// SPDX-License-Identifier: Apache-2.0
#include "compiler/target/npu_target.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "compiler/target/asm.h"
#include "compiler/target/isa.h"

namespace tilejit::target {
namespace {

TEST(NpuTarget, Ascend910B2HasTheReferenceOrganisationAndBuffers) {
  const NpuTarget& t = Ascend910B2();
  EXPECT_EQ(t.num_groups.value, 24);
  EXPECT_EQ(t.aic_per_group.value, 1);
  EXPECT_EQ(t.aiv_per_group.value, 2);
  EXPECT_DOUBLE_EQ(t.aic_clock_hz.value, 1.8e9);
  EXPECT_EQ(MemInfoOf(t, Mem::kL1)->bytes.value, 512 * 1024);
  EXPECT_EQ(MemInfoOf(t, Mem::kL0A)->bytes.value, 64 * 1024);
  EXPECT_EQ(MemInfoOf(t, Mem::kL0B)->bytes.value, 64 * 1024);
  EXPECT_EQ(MemInfoOf(t, Mem::kL0C)->bytes.value, 128 * 1024);
  EXPECT_EQ(MemInfoOf(t, Mem::kUB)->bytes.value, 192 * 1024);
  EXPECT_EQ(MemInfoOf(t, Mem::kL0A)->align.value, 512);
  EXPECT_EQ(MemInfoOf(t, Mem::kUB)->owner, CoreType::kAiv);
}

TEST(NpuTarget, Ascend910B4IsAnotherInstanceOfTheSameStruct) {
  const NpuTarget& b2 = Ascend910B2();
  const NpuTarget& b4 = Ascend910B4();
  EXPECT_EQ(b4.num_groups.value, 20);
  EXPECT_DOUBLE_EQ(b4.aic_clock_hz.value, 1.5e9);
  EXPECT_EQ(b4.gm_bytes.value, b2.gm_bytes.value / 2);
  EXPECT_EQ(b4.l2_bytes.value, 96ll * 1024 * 1024);
  EXPECT_EQ(b4.mmad_state_latency.value, b2.mmad_state_latency.value);
  EXPECT_NE(TargetHash(b2), TargetHash(b4));
}

// The shared-HBM figure is the INI per-core share times the cores (ascend_hw.md section 6:
// 1.38 TB/s on the 910B2 at 1.8 GHz), per chip rather than one number for both.
TEST(NpuTarget, HbmBandwidthIsTheIniShareTimesTheCores) {
  const NpuTarget& b2 = Ascend910B2();
  const NpuTarget& b4 = Ascend910B4();
  EXPECT_EQ(b2.hbm_bpc.value, 768);
  EXPECT_EQ(b4.hbm_bpc.value, 640);
  EXPECT_NEAR(static_cast<double>(b2.hbm_bpc.value) * b2.aic_clock_hz.value / 1e12, 1.38, 0.01);
  EXPECT_NE(b2.hbm_bpc.tag.find("ddr_rate"), std::string_view::npos);
  NpuTarget copy = b2;
  copy.hbm_bpc.value = 889;  // 1.6e12 / 1.8e9: another choice must be another cache key
  EXPECT_NE(TargetHash(copy), TargetHash(b2));
}

TEST(NpuTarget, DerivedCubePeaksMatchTheReference) {
  // ascend_hw.md section 6: 353.9 TFLOPS fp16 and 707.8 TOPS int8 on the 910B2, 245.8 TFLOPS
  // fp16 on the 910B4.
  EXPECT_NEAR(CubePeakFlops(Ascend910B2(), DType::kF16) / 1e12, 353.9, 0.1);
  EXPECT_NEAR(CubePeakFlops(Ascend910B2(), DType::kS8) / 1e12, 707.8, 0.1);
  EXPECT_NEAR(CubePeakFlops(Ascend910B4(), DType::kF16) / 1e12, 245.8, 0.1);
  EXPECT_EQ(CubePeakFlops(Ascend910B2(), DType::kS32), 0);
}

TEST(NpuTarget, FindTargetAcceptsCanonicalNamesInAnyCase) {
  EXPECT_EQ(FindTarget("ascend910b2"), &Ascend910B2());
  EXPECT_EQ(FindTarget("Ascend910B4"), &Ascend910B4());
  EXPECT_EQ(FindTarget("ascend910b9"), nullptr);
  EXPECT_EQ(FindTarget(""), nullptr);
  EXPECT_EQ(TargetNames().size(), 2u);
}

TEST(NpuTarget, HashIsStableAndChangesWhenAnyKindOfFieldChanges) {
  const NpuTarget& b2 = Ascend910B2();
  const std::string h = TargetHash(b2);
  EXPECT_EQ(h.size(), 64u);
  EXPECT_EQ(h, TargetHash(b2));
  NpuTarget copy = b2;
  EXPECT_EQ(TargetHash(copy), h);
  copy.gm_read_latency.value += 1;
  EXPECT_NE(TargetHash(copy), h);
  copy = b2;
  copy.vec_costs[0].d_fp.value += 1;
  EXPECT_NE(TargetHash(copy), h);
  copy = b2;
  copy.aiv_event_pairs.pop_back();
  EXPECT_NE(TargetHash(copy), h);
  copy = b2;
  copy.paths.pop_back();
  EXPECT_NE(TargetHash(copy), h);
}

// Pinned so that any change to a figure is a deliberate, visible change of every cache key (and
// must come with a re-run of the golden cycle table and the performance tables).
TEST(NpuTarget, HashIsPinned) {
  EXPECT_EQ(TargetHash(Ascend910B2()),
            "757f624896f854e9ac56be5b13d74545477bb4adb3e39b5ce109b198f2648351");
  EXPECT_EQ(TargetHash(Ascend910B4()),
            "1670a059e38f622cbe50e37d9171fddb26e638dbd82192eb80d35601139256a1");
}

TEST(NpuTarget, EveryFigureCarriesASourceTag) {
  int count = 0;
  std::set<std::string> names;
  ForEachFigure(Ascend910B2(), [&](std::string_view name, double, std::string_view tag) {
    EXPECT_FALSE(tag.empty()) << name;
    EXPECT_TRUE(names.insert(std::string(name)).second) << "duplicate " << name;
    ++count;
  });
  EXPECT_GT(count, 80);
  for (const DataPath& p : Ascend910B2().paths) EXPECT_FALSE(p.tag.empty());
  for (const ForbiddenPath& p : Ascend910B2().forbidden_paths) EXPECT_FALSE(p.tag.empty());
}

// Every Figure member declared in struct NpuTarget must be visited by ForEachFigure (and so
// enter the hash). Reads the header so a new member cannot be forgotten silently.
TEST(NpuTarget, ForEachFigureVisitsEveryDeclaredFigureMember) {
  std::ifstream f(std::string(TILEJIT_SOURCE_DIR) + "/compiler/target/npu_target.h");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string header = ss.str();
  const size_t begin = header.find("struct NpuTarget {");
  ASSERT_NE(begin, std::string::npos);
  const std::string body = header.substr(begin, header.find("\n};", begin) - begin);
  std::set<std::string> visited;
  ForEachFigure(Ascend910B2(), [&](std::string_view name, double, std::string_view) {
    visited.insert(std::string(name));
  });
  const std::regex decl(R"((?:IntFig|RealFig)\s+([^;]+);)");
  int members = 0;
  for (auto it = std::sregex_iterator(body.begin(), body.end(), decl); it != std::sregex_iterator();
       ++it) {
    std::stringstream names((*it)[1].str());
    for (std::string name; std::getline(names, name, ',');) {
      name.erase(0, name.find_first_not_of(' '));
      EXPECT_TRUE(visited.count(name)) << name << " is not visited (nor hashed)";
      ++members;
    }
  }
  EXPECT_GT(members, 60);
}

TEST(NpuTarget, PathsArePerPipeAndForbiddenOnesAreAbsent) {
  const NpuTarget& t = Ascend910B2();
  ASSERT_NE(FindPath(t, Mem::kGM, Mem::kL1), nullptr);
  EXPECT_EQ(FindPath(t, Mem::kGM, Mem::kL1)->pipe, Pipe::kMte2);
  EXPECT_EQ(FindPath(t, Mem::kL1, Mem::kL0A)->pipe, Pipe::kMte1);
  EXPECT_EQ(FindPath(t, Mem::kL0C, Mem::kGM)->pipe, Pipe::kFix);
  EXPECT_EQ(FindPath(t, Mem::kUB, Mem::kGM)->pipe, Pipe::kMte3);
  EXPECT_EQ(FindPath(t, Mem::kUB, Mem::kUB)->pipe, Pipe::kV);
  for (auto [src, dst] : {std::pair{Mem::kL0C, Mem::kUB}, std::pair{Mem::kUB, Mem::kL1},
                          std::pair{Mem::kL1, Mem::kUB}}) {
    EXPECT_TRUE(IsForbiddenPath(t, src, dst));
    EXPECT_EQ(FindPath(t, src, dst), nullptr);
  }
  for (const DataPath& p : t.paths) EXPECT_TRUE(HasPipe(t, p.core, p.pipe)) << MemName(p.src);
}

TEST(NpuTarget, PipesAndEventPairsPerCoreType) {
  const NpuTarget& t = Ascend910B2();
  EXPECT_TRUE(HasPipe(t, CoreType::kAic, Pipe::kFix));
  EXPECT_FALSE(HasPipe(t, CoreType::kAiv, Pipe::kFix));
  EXPECT_FALSE(HasPipe(t, CoreType::kAic, Pipe::kV));
  EXPECT_TRUE(IsLegalEventPair(t, CoreType::kAic, Pipe::kMte1, Pipe::kM));
  EXPECT_FALSE(IsLegalEventPair(t, CoreType::kAiv, Pipe::kMte1, Pipe::kM));
  EXPECT_TRUE(IsLegalEventPair(t, CoreType::kAiv, Pipe::kMte2, Pipe::kV));
  EXPECT_FALSE(IsLegalEventPair(t, CoreType::kAic, Pipe::kM, Pipe::kV));
  for (CoreType c : {CoreType::kAic, CoreType::kAiv}) {
    for (const PipePair& p : c == CoreType::kAic ? t.aic_event_pairs : t.aiv_event_pairs) {
      EXPECT_TRUE(HasPipe(t, c, p.src) && HasPipe(t, c, p.dst));
    }
  }
}

TEST(NpuTarget, FormatsMatchTheIsaLimits) {
  const NpuTarget& t = Ascend910B2();
  EXPECT_EQ(C0Elems(t, DType::kF16), 16);
  EXPECT_EQ(C0Elems(t, DType::kF32), 8);
  EXPECT_EQ(C0Elems(t, DType::kS8), 32);
  EXPECT_EQ(FindCubeDtype(t, DType::kS8)->frac_k, 32);
  EXPECT_EQ(FindCubeDtype(t, DType::kF16)->macs_per_cycle.value, 16 * 16 * 16);
  EXPECT_EQ(t.repeat_bytes.value, kRepeatBytes);
  EXPECT_EQ(t.block_bytes.value, kBlockBytes);
  EXPECT_EQ(t.max_repeat.value, GetFieldInfo(FieldId::repeat).hi);
  EXPECT_EQ(t.mmad_max_mnk.value, GetFieldInfo(FieldId::m).hi);
  EXPECT_EQ(t.event_ids_per_pair.value, GetFieldInfo(FieldId::event).hi + 1);
  EXPECT_EQ(t.cross_flag_ids.value, GetFieldInfo(FieldId::flag).hi + 1);
  EXPECT_EQ(t.mask_bits.value, GetFieldInfo(FieldId::mask).hi);
}

TEST(NpuTarget, ValidateForCoreChecksCoreTypePipesAndPairs) {
  const NpuTarget& t = Ascend910B2();
  Instr vadd;
  vadd.op = Opcode::kVadd;
  vadd.repeat = OpImm(1);
  vadd.mask = OpImm(1);
  EXPECT_TRUE(ValidateForCore(vadd, CoreType::kAiv, t).ok());
  EXPECT_FALSE(ValidateForCore(vadd, CoreType::kAic, t).ok());
  Instr set;
  set.op = Opcode::kSetFlag;
  set.spipe = Pipe::kMte1;
  set.dpipe = Pipe::kM;
  EXPECT_TRUE(ValidateForCore(set, CoreType::kAic, t).ok());
  EXPECT_FALSE(ValidateForCore(set, CoreType::kAiv, t).ok());
  set.spipe = Pipe::kM;
  set.dpipe = Pipe::kV;
  EXPECT_FALSE(ValidateForCore(set, CoreType::kAic, t).ok());
  Instr xset;
  xset.op = Opcode::kXset;
  xset.pipe = Pipe::kFix;
  EXPECT_TRUE(ValidateForCore(xset, CoreType::kAic, t).ok());
  EXPECT_FALSE(ValidateForCore(xset, CoreType::kAiv, t).ok());  // AIV has no FIX pipe
}

TEST(NpuTarget, ValidateProgramChecksEveryInstructionBranchesAndTheEnd) {
  const NpuTarget& t = Ascend910B2();
  const std::vector<Instr> ok = Assemble(R"(
      get_cid rd=r1
      top: sub rd=r1, rs1=r1, src2=1
      bnz rs1=r1, off=top
      barrier pipe=all
      end)")
                                    .value();
  EXPECT_TRUE(ValidateProgram(ok, CoreType::kAiv, t).ok());
  std::vector<Instr> no_end(ok.begin(), ok.end() - 1);
  EXPECT_NE(ValidateProgram(no_end, CoreType::kAiv, t).message().find("past"), std::string::npos);
  std::vector<Instr> far = ok;
  far[2].off = 10;
  EXPECT_FALSE(ValidateProgram(far, CoreType::kAiv, t).ok());
  std::vector<Instr> cube = ok;
  cube[3] = AssembleInstr("set_flag spipe=mte1, dpipe=m, event=0").value();
  const Status s = ValidateProgram(cube, CoreType::kAiv, t);
  EXPECT_NE(s.message().find("instruction 3"), std::string::npos) << s;
  EXPECT_TRUE(ValidateProgram(cube, CoreType::kAic, t).ok());
  EXPECT_FALSE(ValidateProgram({}, CoreType::kAic, t).ok());
}

}  // namespace
}  // namespace tilejit::target
