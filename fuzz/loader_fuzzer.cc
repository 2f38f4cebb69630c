// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the simulated NPU's loader and executor (runner/sim/sim_device.h).
//
// The input is a kernel binary. Raw bytes rarely get past the ELF checks, so the first byte
// picks a mode, as in binary_fuzzer.cc:
//   even: the rest of the input is the whole file;
//   odd:  the rest is a list of (offset lo, offset hi, xor) byte patches applied to the code
//         sections of a valid vector-add binary (the metadata stays valid, so most inputs
//         reach the decoder and many reach the executor).
// A file that loads is launched on two blocks in checked mode with a small instruction
// budget. Oracles (abort on violation): LoadBinary fails only with kCorruption or
// kInvalidArgument; Launch of a loaded kernel returns an OK Result (kernel problems are
// findings, never device errors); the report's status is OK iff it has no findings.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "compiler/target/asm.h"
#include "compiler/target/binary.h"
#include "runner/sim/sim_device.h"

namespace {

using tilejit::StatusCode;
namespace runner = tilejit::runner;
namespace target = tilejit::target;

constexpr char kVectorAdd[] =
    "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\nld_arg rd=r3, arg=2\nget_cid rd=r4\n"
    "mul rd=r4, rs1=r4, src2=512\nadd rd=r1, rs1=r1, src2=r4\nadd rd=r3, rs1=r3, src2=r4\n"
    "copy_gm_ub dst=0, src=r1, nburst=1, len=512, src_stride=0, dst_stride=0, pad=0, "
    "padval=0, dtype=f16\n"
    "set_flag spipe=mte2, dpipe=v, event=0\nwait_flag spipe=mte2, dpipe=v, event=0\n"
    "loop: vadds dst=1024, src=0, scalar=0x3f800000, repeat=2, mask=128, dst_blk=1, "
    "src_blk=1, dst_rep=8, src_rep=8, dtype=f16\n"
    "set_flag spipe=v, dpipe=mte3, event=0\nwait_flag spipe=v, dpipe=mte3, event=0\n"
    "copy_ub_gm dst=r3, src=1024, nburst=1, len=512, src_stride=0, dst_stride=0, "
    "atomic=none, dtype=f16\nbnz rs1=r0, off=loop\nend\n";

// The valid binary and where its code bytes lie in it.
struct Sample {
  std::vector<uint8_t> file;
  size_t code_begin = 0;
  size_t code_end = 0;
};

const Sample& GetSample() {
  static const Sample* sample = [] {
    auto* s = new Sample;
    target::KernelBinary b;
    target::KernelMetadata& m = b.metadata;
    m.kernel_name = "fuzz";
    m.target = "ascend910b2";
    m.compiler_fingerprint = "tilejit-fuzz loader";
    m.cache_key = "00000000000000000000000000000000";
    m.params = {
        {"x", {1024}, target::ElementType::kFloat16, target::ParamRole::kInput, false, 0},
        {"y", {1024}, target::ElementType::kFloat16, target::ParamRole::kInput, false, 0},
        {"z", {1024}, target::ElementType::kFloat32, target::ParamRole::kOutput, false, 0},
    };
    m.out_idx = {2};
    m.block_count = 2;
    m.core_mix = target::CoreMix::kVectorOnly;
    m.vector_cores_per_block = 1;
    const auto program = target::Assemble(kVectorAdd);
    const auto words = target::EncodeProgram(*program);
    for (uint64_t w : *words) {
      for (int i = 0; i < 8; ++i) b.aiv.code.push_back(static_cast<uint8_t>(w >> (8 * i)));
    }
    b.aiv.line_table.assign(program->size(), target::kNoStmt);
    s->file = *target::WriteKernelBinary(b);
    const auto at =
        std::search(s->file.begin(), s->file.end(), b.aiv.code.begin(), b.aiv.code.end());
    s->code_begin = static_cast<size_t>(at - s->file.begin());
    s->code_end = s->code_begin + b.aiv.code.size();
    return s;
  }();
  return *sample;
}

std::vector<uint8_t> Patched(const uint8_t* data, size_t size) {
  const Sample& s = GetSample();
  std::vector<uint8_t> file = s.file;
  const size_t span = s.code_end - s.code_begin;
  for (size_t i = 0; i + 3 <= size; i += 3) {
    const size_t at = (size_t{data[i]} | size_t{data[i + 1]} << 8) % span;
    file[s.code_begin + at] ^= data[i + 2];
  }
  return file;
}

void LoadAndLaunch(const std::vector<uint8_t>& file) {
  runner::sim::SimDevice dev;
  std::vector<uint64_t> args;
  for (const char* name : {"x", "y", "z"}) {
    auto t = dev.Allocate(target::ElementType::kFloat16, {2048}, name, name[0] != 'z');
    if (!t.ok()) std::abort();
    args.push_back(t->addr);
  }
  auto id = dev.LoadBinary(file);
  if (!id.ok()) {
    const StatusCode code = id.status().code();
    if (code != StatusCode::kCorruption && code != StatusCode::kInvalidArgument) std::abort();
    return;
  }
  runner::LaunchOptions opt;
  opt.mode = runner::CheckMode::kChecked;
  opt.host_threads = 1;
  opt.instr_budget = 2000;
  opt.max_findings = 8;
  // The metadata may ask for many blocks; the executor's cost is what is being tested, so
  // keep the launch small by refusing kernels with more than four.
  if (dev.GetKernel(*id)->metadata.block_count > 4) return;
  auto r = dev.Launch(*id, args, opt);
  if (!r.ok()) std::abort();
  if (r->status.ok() != (r->findings.empty() && r->findings_suppressed == 0)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool patch = data[0] % 2 == 1;
  ++data;
  --size;
  LoadAndLaunch(patch ? Patched(data, size) : std::vector<uint8_t>(data, data + size));
  return 0;
}
