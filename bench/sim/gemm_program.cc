// SPDX-License-Identifier: Apache-2.0
// L1 map: A chunks (128 x 256 f16, 64 KiB) at 0 and 64 KiB, B chunks (256 x 256 f16,
// 128 KiB) at 128 KiB and 256 KiB. L0A steps 16 KiB, L0B steps 32 KiB, both ping-pong. L0C
// holds the whole 128 x 256 f32 tile (128 KiB).
#include "bench/sim/gemm_program.h"

#include <sstream>

namespace tilejit::bench {
namespace {

constexpr int kTm = 128, kTn = 256, kChunk = 256, kStep = 64;

std::string Flag(const char* op, const char* s, const char* d, int id) {
  return std::string(op) + " spipe=" + s + ", dpipe=" + d + ", event=" + std::to_string(id) + "\n";
}

}  // namespace

std::string GemmAicProgram(int m, int n, int k) {
  (void)m;
  std::ostringstream os;
  const int tiles_n = n / kTn;
  os << "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\nld_arg rd=r3, arg=2\nget_cid rd=r4\n"
     << "div rd=r5, rs1=r4, src2=" << tiles_n << "\nmod rd=r6, rs1=r4, src2=" << tiles_n << "\n"
     << "mul rd=r7, rs1=r5, src2=" << kTm * k * 2 << "\nadd rd=r7, rs1=r1, src2=r7\n"
     << "mul rd=r8, rs1=r6, src2=" << kTn * 2 << "\nadd rd=r8, rs1=r2, src2=r8\n"
     << "mul rd=r9, rs1=r5, src2=" << kTm * n * 4 << "\nmul rd=r10, rs1=r6, src2=" << kTn * 4
     << "\nadd rd=r9, rs1=r9, src2=r10\nadd rd=r9, rs1=r3, src2=r9\n";
  os << Flag("set_flag", "mte1", "mte2", 0) << Flag("set_flag", "mte1", "mte2", 1)
     << Flag("set_flag", "m", "mte1", 0) << Flag("set_flag", "m", "mte1", 1);
  const int chunks = k / kChunk, steps = kChunk / kStep;
  for (int kc = 0; kc < chunks; ++kc) {
    const int lb = kc % 2;
    const int l1a = lb * 65536, l1b = 131072 + lb * 131072;
    os << Flag("wait_flag", "mte1", "mte2", lb);
    os << "copy_gm_l1_nz dst=" << l1a << ", src=r7+" << kc * kChunk * 2 << ", rows=" << kTm
       << ", cols=" << kChunk << ", src_stride=" << k * 2 << ", dst_pitch=" << kTm
       << ", dtype=f16 @1\n";
    os << "copy_gm_l1_nz dst=" << l1b << ", src=r8+" << kc * kChunk * n * 2 << ", rows=" << kChunk
       << ", cols=" << kTn << ", src_stride=" << n * 2 << ", dst_pitch=" << kChunk
       << ", dtype=f16 @2\n";
    os << Flag("set_flag", "mte2", "mte1", lb) << Flag("wait_flag", "mte2", "mte1", lb);
    for (int s = 0; s < steps; ++s) {
      const int step = kc * steps + s, b = step % 2;
      os << Flag("wait_flag", "m", "mte1", b);
      os << "load_l0a dst=" << b * 16384 << ", src=" << l1a + (s * kStep / 16) * kTm * 32
         << ", rows=" << kTm << ", cols=" << kStep << ", src_pitch=" << kTm
         << ", transpose=0, dtype=f16 @3\n";
      os << "load_l0b dst=" << b * 32768 << ", src=" << l1b + s * kStep * 32 << ", rows=" << kStep
         << ", cols=" << kTn << ", src_pitch=" << kChunk << ", transpose=0, dtype=f16 @4\n";
      os << Flag("set_flag", "mte1", "m", b) << Flag("wait_flag", "mte1", "m", b);
      os << "mmad dst=0, src=" << b * 16384 << ", src1=" << b * 32768 << ", m=" << kTm
         << ", n=" << kTn << ", k=" << kStep << ", init=" << (step == 0 ? 1 : 0)
         << ", dtype=f16 @5\n";
      os << Flag("set_flag", "m", "mte1", b);
    }
    os << Flag("set_flag", "mte1", "mte2", lb);
  }
  os << Flag("wait_flag", "mte1", "mte2", 0) << Flag("wait_flag", "mte1", "mte2", 1)
     << Flag("wait_flag", "m", "mte1", 0) << Flag("wait_flag", "m", "mte1", 1)
     << Flag("set_flag", "m", "fix", 0) << Flag("wait_flag", "m", "fix", 0);
  os << "fix_l0c_gm dst=r9, src=0, rows=" << kTm << ", cols=" << kTn << ", src_pitch=" << kTm
     << ", dst_stride=" << n * 4 << ", dtype=f32, odtype=f32, relu=0, atomic=none @6\nend\n";
  return os.str();
}

}  // namespace tilejit::bench
