// SPDX-License-Identifier: Apache-2.0
// Robustness of the simulated NPU's loader and executor against mutated programs. Valid seed
// programs (vector add, a small GEMM, an AIC -> AIV hand-off, a scalar loop) are mutated with
// fixed seeds at two levels: decoded instruction streams (fields, opcodes, structure, branches,
// synchronisation) loaded with LoadImage, and byte flips in the code sections of a kernel
// binary loaded with LoadBinary. Every case must either be rejected with an InvalidArgument or
// Corruption status, or launch to completion with an OK Result (findings allowed). A crash or
// a hang fails the binary itself; the small instruction budget is what stops endless loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "compiler/target/binary.h"
#include "tests/runner/sim_test_util.h"

namespace tilejit::runner::sim {
namespace {

using namespace testing;  // NOLINT
using target::CoreMix;
using target::ElementType;
using target::FieldId;
using target::FieldInfo;
using target::FieldKind;
using target::Instr;
using target::Opcode;
using target::Pipe;
using Rng = std::mt19937_64;
using Program = std::vector<Instr>;

constexpr uint64_t kBudget = 4000;  // per core of a block
constexpr int kDecodedCasesPerSeed = 400;
constexpr int kBinaryCasesPerSeed = 100;

std::string Sync(const char* op, const char* s, const char* d, int id) {
  return std::string(op) + " spipe=" + s + ", dpipe=" + d + ", event=" + std::to_string(id) + "\n";
}

// Two blocks, each adding 256 f16 elements of x and y at offset 512 * block into z.
std::string VectorAddAiv() {
  return "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\nld_arg rd=r3, arg=2\nget_cid rd=r4\n"
         "mul rd=r4, rs1=r4, src2=512\nadd rd=r1, rs1=r1, src2=r4\nadd rd=r2, rs1=r2, src2=r4\n"
         "add rd=r3, rs1=r3, src2=r4\n"
         "copy_gm_ub dst=0, src=r1, nburst=1, len=512, src_stride=0, dst_stride=0, pad=0, "
         "padval=0, dtype=f16\n"
         "copy_gm_ub dst=512, src=r2, nburst=1, len=512, src_stride=0, dst_stride=0, pad=0, "
         "padval=0, dtype=f16\n" +
         Sync("set_flag", "mte2", "v", 0) + Sync("wait_flag", "mte2", "v", 0) +
         "vadd dst=1024, src=0, src1=512, repeat=2, mask=128, dst_blk=1, src_blk=1, src1_blk=1, "
         "dst_rep=8, src_rep=8, src1_rep=8, dtype=f16\n" +
         Sync("set_flag", "v", "mte3", 0) + Sync("wait_flag", "v", "mte3", 0) +
         "copy_ub_gm dst=r3, src=1024, nburst=1, len=512, src_stride=0, dst_stride=0, "
         "atomic=none, dtype=f16\nend\n";
}

// C[32x32] f32 = A[32x32] f16 x B[32x32] f16 on one AIC (args: A, B, C).
std::string GemmAic() {
  return "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\nld_arg rd=r3, arg=2\n"
         "copy_gm_l1_nz dst=0, src=r1, rows=32, cols=32, src_stride=64, dst_pitch=32, dtype=f16\n"
         "copy_gm_l1_nz dst=2048, src=r2, rows=32, cols=32, src_stride=64, dst_pitch=32, "
         "dtype=f16\n" +
         Sync("set_flag", "mte2", "mte1", 0) + Sync("wait_flag", "mte2", "mte1", 0) +
         "load_l0a dst=0, src=0, rows=32, cols=32, src_pitch=32, transpose=0, dtype=f16\n"
         "load_l0b dst=0, src=2048, rows=32, cols=32, src_pitch=32, transpose=0, dtype=f16\n" +
         Sync("set_flag", "mte1", "m", 0) + Sync("wait_flag", "mte1", "m", 0) +
         "mmad dst=0, src=0, src1=0, m=32, n=32, k=32, init=1, dtype=f16\n" +
         Sync("set_flag", "m", "fix", 0) + Sync("wait_flag", "m", "fix", 0) +
         "fix_l0c_gm dst=r3, src=0, rows=32, cols=32, src_pitch=32, dst_stride=128, dtype=f32, "
         "odtype=f32, relu=0, atomic=none\nend\n";
}

// The AIC copies x (256 f16) GM -> L1 -> workspace (arg 1); the AIV adds 1 and writes arg 2.
std::string HandOffAic() {
  return "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\n"
         "copy_gm_l1 dst=0, src=r1, nburst=1, len=512, src_stride=0, dst_stride=0\n" +
         Sync("set_flag", "mte2", "mte3", 0) + Sync("wait_flag", "mte2", "mte3", 0) +
         "copy_l1_gm dst=r2, src=0, nburst=1, len=512, src_stride=0, dst_stride=0\n"
         "xset pipe=mte3, xmode=2, flag=3\nend\n";
}

std::string HandOffAiv() {
  return "ld_arg rd=r2, arg=1\nld_arg rd=r3, arg=2\nxwait pipe=mte2, flag=3\n"
         "copy_gm_ub dst=0, src=r2, nburst=1, len=512, src_stride=0, dst_stride=0, pad=0, "
         "padval=0, dtype=f16\n" +
         Sync("set_flag", "mte2", "v", 0) + Sync("wait_flag", "mte2", "v", 0) +
         "vadds dst=1024, src=0, scalar=0x3f800000, repeat=2, mask=128, dst_blk=1, src_blk=1, "
         "dst_rep=8, src_rep=8, dtype=f16\n" +
         Sync("set_flag", "v", "mte3", 0) + Sync("wait_flag", "v", "mte3", 0) +
         "copy_ub_gm dst=r3, src=1024, nburst=1, len=512, src_stride=0, dst_stride=0, "
         "atomic=none, dtype=f16\nend\n";
}

// A counted loop (branches to mutate): r6 counts four iterations, then z = x + bits(r6 + 1.0f).
std::string LoopAiv() {
  return "ld_arg rd=r1, arg=0\nld_arg rd=r3, arg=2\nli rd=r5, imm64=4\nli rd=r6, imm64=0\n"
         "copy_gm_ub dst=0, src=r1, nburst=1, len=512, src_stride=0, dst_stride=0, pad=0, "
         "padval=0, dtype=f16\n"
         "loop: add rd=r6, rs1=r6, src2=1\nsub rd=r5, rs1=r5, src2=1\nbnz rs1=r5, off=loop\n" +
         Sync("set_flag", "mte2", "v", 0) + Sync("wait_flag", "mte2", "v", 0) +
         "vadds dst=1024, src=0, scalar=r6+0x3f800000, repeat=2, mask=128, dst_blk=1, "
         "src_blk=1, dst_rep=8, src_rep=8, dtype=f16\n" +
         Sync("set_flag", "v", "mte3", 0) + Sync("wait_flag", "v", "mte3", 0) +
         "copy_ub_gm dst=r3, src=1024, nburst=1, len=512, src_stride=0, dst_stride=0, "
         "atomic=none, dtype=f16\nend\n";
}

struct SeedProgram {
  const char* name;
  CoreMix mix;
  int aivs;
  int64_t blocks;
  std::string aic, aiv;
};

std::vector<SeedProgram> SeedPrograms() {
  return {{"vector_add", CoreMix::kVectorOnly, 1, 2, "", VectorAddAiv()},
          {"gemm", CoreMix::kCubeOnly, 0, 1, GemmAic(), ""},
          {"hand_off", CoreMix::kMixed, 1, 1, HandOffAic(), HandOffAiv()},
          {"loop", CoreMix::kVectorOnly, 1, 1, "", LoopAiv()}};
}

// A device with three 2 KiB tensors (x, y initialised; z not) shared by all cases of a seed.
struct Bench {
  SimDevice dev;
  std::vector<uint64_t> args;
  Bench() {
    std::vector<float> v(1024);
    for (int i = 0; i < 1024; ++i) v[i] = static_cast<float>(i % 29) * 0.5f;
    args.push_back(Input(dev, ElementType::kFloat16, {1024}, HalfBytes(v), "x").addr);
    args.push_back(Input(dev, ElementType::kFloat16, {1024}, HalfBytes(v), "y").addr);
    args.push_back(Output(dev, ElementType::kFloat32, {1024}, "z").addr);
  }
};

LaunchOptions OptionsFor(int case_index) {
  LaunchOptions opt;
  opt.host_threads = 1;
  opt.instr_budget = kBudget;
  opt.max_findings = 8;
  opt.seed = static_cast<uint64_t>(case_index) + 1;
  const int m = case_index % 8;
  opt.mode = m == 0 ? CheckMode::kFast : (m < 3 ? CheckMode::kPerturbed : CheckMode::kChecked);
  return opt;
}

// Launches a loaded kernel and checks the launch contract: an OK Result (kernel problems are
// findings, never device errors), status OK iff no findings, the budget respected.
void LaunchAndCheck(Bench& b, KernelId id, int case_index, const std::string& what) {
  auto r = b.dev.Launch(id, b.args, OptionsFor(case_index));
  ASSERT_TRUE(r.ok()) << r.status() << "\n" << what;
  EXPECT_EQ(r->status.ok(), r->findings.empty() && r->findings_suppressed == 0)
      << r->status << "\n"
      << AllFindings(*r) << what;
  for (const BlockReport& block : r->blocks) {
    EXPECT_LE(block.instructions, 3 * (kBudget + 1)) << what;
  }
}

void ExpectLoadRejection(const Status& s, const std::string& what) {
  EXPECT_TRUE(s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kCorruption)
      << s << "\n"
      << what;
}

// ---- value and instruction mutations --------------------------------------------------------

int64_t Wrap(uint64_t v) { return static_cast<int64_t>(v); }

// A new value for a field: mostly in range (so the program still loads and the executor sees
// it), sometimes a boundary, a neighbour, a flipped bit or just out of range.
int64_t MutatedValue(Rng& rng, const FieldInfo& f, int64_t old) {
  switch (rng() % 7) {
    case 0:
      return f.lo;
    case 1:
      return f.hi;
    case 2:
      return Wrap(static_cast<uint64_t>(old) + (rng() % 129) - 64);
    case 3:
      return Wrap(static_cast<uint64_t>(old) ^ (uint64_t{1} << (rng() % 40)));
    case 4:
      if (f.hi != INT64_MAX) return f.hi + 1;
      if (f.lo != INT64_MIN) return f.lo - 1;
      return Wrap(rng());
    default: {
      const uint64_t span = static_cast<uint64_t>(f.hi) - static_cast<uint64_t>(f.lo);
      if (span == UINT64_MAX) return Wrap(rng());
      return Wrap(static_cast<uint64_t>(f.lo) + rng() % (span + 1));
    }
  }
}

// Enum-like fields keep to what their encoding width can hold.
int64_t MutatedEnum(Rng& rng, const FieldInfo& f) {
  const int bits = f.kind == FieldKind::kPipe ? 3 : (f.kind == FieldKind::kDType ? 4 : f.imm_bits);
  return static_cast<int64_t>(rng() % (uint64_t{1} << bits));
}

void MutateField(Rng& rng, Instr& in) {
  const auto fields = target::GetOpcodeInfo(in.op).fields;
  if (fields.empty()) return;
  const FieldId id = fields[rng() % fields.size()];
  const FieldInfo& f = target::GetFieldInfo(id);
  target::FieldValue v = target::GetField(in, id);
  switch (f.kind) {
    case FieldKind::kReg:
      v.reg = static_cast<uint8_t>(rng() % 16 == 0 ? 32 + rng() % 8 : rng() % 32);
      break;
    case FieldKind::kOpnd:
      if (rng() % 3 == 0) {
        v.reg = static_cast<uint8_t>(rng() % 32);  // a runtime value: ResolveOperand's job
      } else {
        v.imm = MutatedValue(rng, f, v.imm);
      }
      break;
    case FieldKind::kImm:
      v.imm = MutatedValue(rng, f, v.imm);
      break;
    default:
      v.imm = MutatedEnum(rng, f);
  }
  target::SetField(in, id, v);
}

// Another opcode keeping the shared fields; the new opcode's other fields start at their
// lowest legal value so that a good share of these still validate.
Instr ChangedOpcode(Rng& rng, const Instr& old) {
  Instr in;
  in.op = static_cast<Opcode>(rng() % target::kNumOpcodes);
  in.line = old.line;
  for (FieldId id : target::GetOpcodeInfo(in.op).fields) {
    if (target::UsesField(old.op, id)) {
      target::SetField(in, id, target::GetField(old, id));
    } else {
      const FieldInfo& f = target::GetFieldInfo(id);
      if (f.lo > 0) target::SetField(in, id, {0, f.lo});
    }
  }
  return in;
}

bool IsSync(Opcode op) {
  return op == Opcode::kSetFlag || op == Opcode::kWaitFlag || op == Opcode::kBarrier ||
         op == Opcode::kXset || op == Opcode::kXwait;
}

Instr RandomSync(Rng& rng) {
  Instr in;
  switch (rng() % 5) {
    case 0:
    case 1:
      in.op = rng() % 2 ? Opcode::kSetFlag : Opcode::kWaitFlag;
      in.spipe = static_cast<Pipe>(rng() % 7);
      in.dpipe = static_cast<Pipe>(rng() % 7);
      in.event = target::OpImm(static_cast<int64_t>(rng() % 8));
      break;
    case 2:
      in.op = Opcode::kBarrier;
      in.pipe = static_cast<Pipe>(rng() % 8);
      break;
    case 3:
      in.op = Opcode::kXset;
      in.pipe = static_cast<Pipe>(rng() % 7);
      in.xmode = static_cast<int64_t>(rng() % 3);
      in.flag = target::OpImm(static_cast<int64_t>(rng() % 11));
      break;
    default:
      in.op = Opcode::kXwait;
      in.pipe = static_cast<Pipe>(rng() % 7);
      in.flag = target::OpImm(static_cast<int64_t>(rng() % 11));
  }
  return in;
}

bool IsBranch(Opcode op) { return op == Opcode::kJmp || op == Opcode::kBz || op == Opcode::kBnz; }

void MutateBranch(Rng& rng, Program& p) {
  const int64_t n = static_cast<int64_t>(p.size());
  std::vector<size_t> branches;
  for (size_t i = 0; i < p.size(); ++i) {
    if (IsBranch(p[i].op)) branches.push_back(i);
  }
  const int64_t off = static_cast<int64_t>(rng() % (2 * n + 3)) - n - 1;  // may leave the code
  if (!branches.empty() && rng() % 2 == 0) {
    p[branches[rng() % branches.size()]].off = off;
    return;
  }
  Instr br;
  br.op = static_cast<Opcode>(static_cast<int>(Opcode::kJmp) + static_cast<int>(rng() % 3));
  br.off = off;
  if (br.op != Opcode::kJmp) br.rs1 = static_cast<uint8_t>(rng() % 8);
  p.insert(p.begin() + static_cast<int64_t>(rng() % (p.size() + 1)), br);
}

// One mutation of a non-empty program.
void Mutate(Rng& rng, Program& p) {
  const size_t i = rng() % p.size();
  switch (rng() % 10) {
    case 0:
    case 1:
    case 2:
      MutateField(rng, p[i]);
      break;
    case 3:
      p[i] = ChangedOpcode(rng, p[i]);
      break;
    case 4:
      if (p.size() > 1) p.erase(p.begin() + static_cast<int64_t>(i));
      break;
    case 5:
      p.insert(p.begin() + static_cast<int64_t>(i), p[i]);
      break;
    case 6:
      std::swap(p[i], p[rng() % p.size()]);
      break;
    case 7:
      MutateBranch(rng, p);
      break;
    case 8: {
      auto it = std::find_if(p.begin(), p.end(), [](const Instr& in) { return IsSync(in.op); });
      if (it != p.end()) it += static_cast<int64_t>(rng() % static_cast<uint64_t>(p.end() - it));
      if (it != p.end() && IsSync(it->op)) p.erase(it);
      break;
    }
    default:
      p.insert(p.begin() + static_cast<int64_t>(i), RandomSync(rng));
  }
}

std::string Describe(const SeedProgram& s, int c, const KernelImage& k) {
  return std::string("seed program ") + s.name + ", case " + std::to_string(c) + "\n--- aic\n" +
         target::DisassembleProgram(k.aic) + "--- aiv\n" + target::DisassembleProgram(k.aiv);
}

// ---- kernel binaries -------------------------------------------------------------------------

std::vector<uint8_t> CodeBytes(const Program& p) {
  auto words = target::EncodeProgram(p);
  EXPECT_TRUE(words.ok()) << words.status();
  std::vector<uint8_t> bytes;
  for (uint64_t w : words.ok() ? *words : std::vector<uint64_t>{}) {
    for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<uint8_t>(w >> (8 * b)));
  }
  return bytes;
}

target::KernelBinary ToBinary(const KernelImage& k) {
  target::KernelBinary b;
  b.metadata = k.metadata;
  b.metadata.compiler_fingerprint = "tilejit-test sim_mutation";
  b.metadata.cache_key = "00000000000000000000000000000000";
  b.metadata.params = {
      {"x", {1024}, ElementType::kFloat16, target::ParamRole::kInput, false, 0, {}},
      {"y", {1024}, ElementType::kFloat16, target::ParamRole::kInput, false, 0, {}},
      {"z", {1024}, ElementType::kFloat32, target::ParamRole::kOutput, false, 0, {}},
  };
  b.metadata.out_idx = {2};
  if (k.metadata.core_mix == CoreMix::kCubeOnly) b.metadata.vector_cores_per_block = 0;
  b.aic.code = CodeBytes(k.aic);
  b.aic.line_table.assign(k.aic.size(), target::kNoStmt);
  b.aiv.code = CodeBytes(k.aiv);
  b.aiv.line_table.assign(k.aiv.size(), target::kNoStmt);
  return b;
}

// [begin, end) of `code` inside `file` (the code bytes are distinctive enough to be unique).
std::pair<size_t, size_t> Locate(const std::vector<uint8_t>& file,
                                 const std::vector<uint8_t>& code) {
  auto it = std::search(file.begin(), file.end(), code.begin(), code.end());
  EXPECT_NE(it, file.end());
  const size_t at = static_cast<size_t>(it - file.begin());
  return {at, at + code.size()};
}

class SimMutation : public ::testing::TestWithParam<int> {
 protected:
  const SeedProgram seed_ = SeedPrograms()[GetParam()];
  KernelImage Base() const {
    return Image(seed_.mix, seed_.aivs, seed_.blocks, seed_.aic, seed_.aiv);
  }
};

TEST_P(SimMutation, SeedProgramRunsCleanInEveryMode) {
  Bench b;
  auto id = b.dev.LoadImage(Base());
  ASSERT_TRUE(id.ok()) << id.status();
  for (CheckMode mode : {CheckMode::kFast, CheckMode::kChecked, CheckMode::kPerturbed}) {
    LaunchOptions opt;
    opt.mode = mode;
    opt.host_threads = 1;
    opt.instr_budget = kBudget;
    auto r = b.dev.Launch(*id, b.args, opt);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->status.ok()) << AllFindings(*r);
  }
}

TEST_P(SimMutation, MutatedInstructionStreamsLoadAndRunOrAreRejected) {
  Bench b;
  const KernelImage base = Base();
  int loaded = 0;
  for (int c = 0; c < kDecodedCasesPerSeed; ++c) {
    Rng rng(static_cast<uint64_t>(GetParam()) * 1'000'003 + static_cast<uint64_t>(c));
    KernelImage k = base;
    const int mutations = 1 + static_cast<int>(rng() % 3);
    for (int m = 0; m < mutations; ++m) {
      Program& p = k.aic.empty() || (!k.aiv.empty() && rng() % 2) ? k.aiv : k.aic;
      Mutate(rng, p);
    }
    const std::string what = Describe(seed_, c, k);
    auto id = b.dev.LoadImage(k);
    if (!id.ok()) {
      ExpectLoadRejection(id.status(), what);
      continue;
    }
    ++loaded;
    LaunchAndCheck(b, *id, c, what);
    if (HasFatalFailure()) return;
  }
  // The mutations must mostly produce loadable programs, or the executor is not exercised.
  RecordProperty("loaded", loaded);
  EXPECT_GT(loaded, kDecodedCasesPerSeed / 3);
}

TEST_P(SimMutation, ByteFlipsInCodeSectionsLoadAndRunOrAreRejected) {
  Bench b;
  const KernelImage base = Base();
  const target::KernelBinary bin = ToBinary(base);
  auto file = target::WriteKernelBinary(bin);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_TRUE(b.dev.LoadBinary(*file).ok());
  std::vector<std::pair<size_t, size_t>> ranges;
  if (!bin.aic.code.empty()) ranges.push_back(Locate(*file, bin.aic.code));
  if (!bin.aiv.code.empty()) ranges.push_back(Locate(*file, bin.aiv.code));
  int loaded = 0;
  for (int c = 0; c < kBinaryCasesPerSeed; ++c) {
    Rng rng(static_cast<uint64_t>(GetParam()) * 7'000'003 + static_cast<uint64_t>(c));
    std::vector<uint8_t> bytes = *file;
    std::string what = std::string("seed program ") + seed_.name + ", binary case " +
                       std::to_string(c) + ", flips (offset:xor):";
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      const auto [lo, hi] = ranges[rng() % ranges.size()];
      const size_t at = lo + rng() % (hi - lo);
      const uint8_t mask = rng() % 2 ? static_cast<uint8_t>(1u << (rng() % 8))
                                     : static_cast<uint8_t>(1 + rng() % 255);
      bytes[at] ^= mask;
      what += " " + std::to_string(at) + ":" + std::to_string(mask);
    }
    auto id = b.dev.LoadBinary(bytes);
    if (!id.ok()) {
      ExpectLoadRejection(id.status(), what);
      continue;
    }
    ++loaded;
    LaunchAndCheck(b, *id, c, what);
    if (HasFatalFailure()) return;
  }
  RecordProperty("loaded", loaded);
  EXPECT_GT(loaded, 0);
}

INSTANTIATE_TEST_SUITE_P(SeedPrograms, SimMutation, ::testing::Range(0, 4),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(SeedPrograms()[info.param].name);
                         });

}  // namespace
}  // namespace tilejit::runner::sim
