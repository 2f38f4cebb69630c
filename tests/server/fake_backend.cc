// SPDX-License-Identifier: Apache-2.0
#include "tests/server/fake_backend.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "common/sha256.h"
#include "compiler/target/asm.h"
#include "compiler/target/binary.h"
#include "compiler/target/isa.h"

namespace tilejit::server::testing {
namespace {

constexpr char kVaddProgram[] =
    "ld_arg rd=r1, arg=0\nld_arg rd=r2, arg=1\nld_arg rd=r3, arg=2\n"
    "copy_gm_ub dst=0, src=r1, nburst=1, len=512, src_stride=0, dst_stride=0, pad=0, padval=0, "
    "dtype=f16\n"
    "copy_gm_ub dst=512, src=r2, nburst=1, len=512, src_stride=0, dst_stride=0, pad=0, padval=0, "
    "dtype=f16\n"
    "set_flag spipe=mte2, dpipe=v, event=0\nwait_flag spipe=mte2, dpipe=v, event=0\n"
    "vadd dst=1024, src=0, src1=512, repeat=2, mask=128, dst_blk=1, src_blk=1, src1_blk=1, "
    "dst_rep=8, src_rep=8, src1_rep=8, dtype=f16\n"
    "set_flag spipe=v, dpipe=mte3, event=0\nwait_flag spipe=v, dpipe=mte3, event=0\n"
    "copy_ub_gm dst=r3, src=1024, nburst=1, len=512, src_stride=0, dst_stride=0, atomic=none, "
    "dtype=f16\nend\n";

struct FakeState {
  std::string canonical;
  std::string material;  // what the key hashes: the "canonical IR" a binary embeds
};

DiagnosticInfo At(Severity sev, const std::string& file, uint32_t line, const std::string& msg) {
  DiagnosticInfo d;
  d.severity = sev;
  d.file = file;
  d.line = line;
  d.column = 1;
  d.message = msg;
  d.rendered =
      file + ":" + std::to_string(line) + ":1: " + std::string(SeverityName(sev)) + ": " + msg;
  return d;
}

}  // namespace

std::vector<uint8_t> VaddBinary(const std::string& key, const std::string& ir_text) {
  return ProgramBinary(key, kVaddProgram, ir_text);
}

std::vector<uint8_t> SpinBinary(const std::string& key) {
  return ProgramBinary(key, "loop: jmp off=loop\nend\n");
}

std::vector<uint8_t> ProgramBinary(const std::string& key, const std::string& aiv_asm,
                                   const std::string& ir_text) {
  target::KernelBinary bin;
  bin.source.ir_text = ir_text;
  target::KernelMetadata& m = bin.metadata;
  m.kernel_name = "vadd";
  m.target = "ascend910b2";
  m.cache_key = key;
  for (const char* name : {"x", "y", "z"}) {
    target::KernelParam p;
    p.name = name;
    p.shape = {256};
    p.dtype = target::ElementType::kFloat16;
    p.role = std::string(name) == "z" ? target::ParamRole::kOutput : target::ParamRole::kInput;
    m.params.push_back(p);
  }
  m.out_idx = {2};
  m.core_mix = target::CoreMix::kVectorOnly;
  m.vector_cores_per_block = 1;
  Result<std::vector<target::Instr>> code = target::Assemble(aiv_asm);
  EXPECT_TRUE(code.ok()) << code.status();
  Result<std::vector<uint64_t>> words = target::EncodeProgram(*code);
  EXPECT_TRUE(words.ok()) << words.status();
  for (uint64_t w : *words) {
    for (int b = 0; b < 8; ++b) bin.aiv.code.push_back(static_cast<uint8_t>(w >> (8 * b)));
  }
  // Line-table entry i names canonical statement i (the fake source map's ids).
  for (size_t i = 0; i < code->size(); ++i) bin.aiv.line_table.push_back(static_cast<uint32_t>(i));
  Result<std::vector<uint8_t>> bytes = target::WriteKernelBinary(bin);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return *bytes;
}

std::string EmbeddedIr(std::string_view binary) {
  Result<target::KernelBinary> b =
      target::ReadKernelBinary({reinterpret_cast<const uint8_t*>(binary.data()), binary.size()});
  return b.ok() ? b->source.ir_text : "";
}

runner::NpyArray HalfArray(uint16_t bits, int64_t n) {
  runner::NpyArray a;
  a.dtype = target::ElementType::kFloat16;
  a.shape = {n};
  for (int64_t i = 0; i < n; ++i) {
    a.data.push_back(static_cast<uint8_t>(bits & 0xff));
    a.data.push_back(static_cast<uint8_t>(bits >> 8));
  }
  return a;
}

std::string FakeSource(const std::string& tag) {
  return "import tilelang.language as T\n\ndef kernel(n):\n    tag = '" + tag + "'\n    return n\n";
}

SpecializeOutcome FakeBackend::Specialize(frontend::FrontendRequest request) {
  ++counters_->specialize;
  SpecializeOutcome out;
  auto state = std::make_shared<FakeState>();
  std::istringstream in(request.source);
  std::string line;
  uint32_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const size_t hash = line.find('#');
    std::string code = line.substr(0, hash);
    while (!code.empty() && (code.back() == ' ' || code.back() == '\r')) code.pop_back();
    if (line.find("syntax error") != std::string::npos) {
      out.diagnostics.push_back(At(Severity::kError, request.file_name, number, "syntax error"));
    }
    if (line.find("warn") != std::string::npos) {
      out.diagnostics.push_back(At(Severity::kWarning, request.file_name, number, "a warning"));
    }
    if (code.find_first_not_of(' ') == std::string::npos) continue;
    state->canonical += code + "\n";
    out.source_map.push_back({0, number, static_cast<uint32_t>(code.find_first_not_of(' ') + 1)});
  }
  for (const DiagnosticInfo& d : out.diagnostics) {
    if (d.severity == Severity::kError) {
      out.status = CompileError(d.rendered);
      return out;
    }
  }
  std::string material = state->canonical + "|" + request.entry;
  for (const frontend::Value& v : request.args) material += "|" + frontend::TypedText(v);
  for (const auto& [k, v] : request.pass_configs)
    material += "|" + k + "=" + frontend::TypedText(v);
  // Tile IR input is taken as the material itself, so the IR a binary embeds compiles back to
  // its key (Import's check).
  if (request.format == frontend::SourceFormat::kTileIr) material = request.source;
  out.key = Sha256Hex(material);
  state->material = material;
  out.ir_text = state->canonical;
  out.state = std::move(state);
  return out;
}

LowerOutcome FakeBackend::Lower(const SpecializeOutcome& specialized, const LowerOptions& options) {
  ++counters_->lower;
  LowerOutcome out;
  {
    // Like the real back end, a held Lower polls its interrupt and stops when told to.
    std::unique_lock<std::mutex> lock(mu_);
    ++counters_->lower_waiting;
    while (held_ && out.status.ok()) {
      cv_.wait_for(lock, std::chrono::milliseconds(5));
      if (options.interrupt) out.status = options.interrupt();
    }
    --counters_->lower_waiting;
  }
  if (!out.status.ok()) {
    ++counters_->lower_interrupted;
    return out;
  }
  auto state = std::static_pointer_cast<const FakeState>(specialized.state);
  if (state->canonical.find("lower error") != std::string::npos) {
    out.status = CompileError("kernel does not fit in UB");
    DiagnosticInfo d;
    d.message = "kernel does not fit in UB";
    d.rendered = "error: kernel does not fit in UB";
    out.diagnostics.push_back(d);
    return out;
  }
  out.binary = VaddBinary(specialized.key, state->material);
  Result<target::KernelBinary> decoded = target::ReadKernelBinary(out.binary);
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  out.metadata = decoded->metadata;
  out.passes.push_back({"fake_lower", 0.5});
  for (const std::string& pass : options.print_after)
    out.ir_dumps.push_back({pass, state->canonical});
  return out;
}

void FakeBackend::Hold() {
  std::lock_guard<std::mutex> lock(mu_);
  held_ = true;
}

void FakeBackend::Release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = false;
  }
  cv_.notify_all();
}

}  // namespace tilejit::server::testing
