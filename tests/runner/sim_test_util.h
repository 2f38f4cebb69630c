// SPDX-License-Identifier: Apache-2.0
// Helpers for simulator tests: assemble programs, build kernel images, move fp16/fp32 data.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler/target/asm.h"
#include "runner/sim/half.h"
#include "runner/sim/sim_device.h"

namespace tilejit::runner::sim::testing {

inline std::vector<target::Instr> Asm(const std::string& text) {
  auto r = target::Assemble(text);
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << text;
  return r.ok() ? *r : std::vector<target::Instr>{};
}

inline KernelImage Image(target::CoreMix mix, int aivs, int64_t blocks, const std::string& aic,
                         const std::string& aiv) {
  KernelImage k;
  k.metadata.kernel_name = "test";
  k.metadata.target = "ascend910b2";
  k.metadata.block_count = blocks;
  k.metadata.core_mix = mix;
  k.metadata.vector_cores_per_block = aivs;
  if (!aic.empty()) k.aic = Asm(aic);
  if (!aiv.empty()) k.aiv = Asm(aiv);
  return k;
}

inline std::vector<uint8_t> HalfBytes(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint16_t h = FloatToHalf(v[i]);
    std::memcpy(&out[i * 2], &h, 2);
  }
  return out;
}

inline std::vector<float> FromHalf(const std::vector<uint8_t>& b) {
  std::vector<float> out(b.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, &b[i * 2], 2);
    out[i] = HalfToFloat(h);
  }
  return out;
}

inline std::vector<float> FromF32(const std::vector<uint8_t>& b) {
  std::vector<float> out(b.size() / 4);
  std::memcpy(out.data(), b.data(), b.size());
  return out;
}

// Allocates and fills an input tensor.
inline Tensor Input(Device& dev, target::ElementType t, std::vector<int64_t> shape,
                    const std::vector<uint8_t>& bytes, const std::string& name) {
  auto r = dev.Allocate(t, std::move(shape), name, true);
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(dev.CopyToDevice(*r, bytes).ok());
  return *r;
}

inline Tensor Output(Device& dev, target::ElementType t, std::vector<int64_t> shape,
                     const std::string& name) {
  auto r = dev.Allocate(t, std::move(shape), name, false);
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

inline std::vector<uint8_t> Read(Device& dev, const Tensor& t) {
  std::vector<uint8_t> out(t.bytes);
  EXPECT_TRUE(dev.CopyFromDevice(t, out).ok());
  return out;
}

inline bool HasFinding(const LaunchReport& r, FindingKind kind, const std::string& needle = "") {
  for (const Finding& f : r.findings) {
    if (f.kind == kind && f.message.find(needle) != std::string::npos) return true;
  }
  return false;
}

inline std::string AllFindings(const LaunchReport& r) {
  std::string s;
  for (const Finding& f : r.findings)
    s += std::string(FindingKindName(f.kind)) + ": " + f.message + "\n";
  return s;
}

}  // namespace tilejit::runner::sim::testing
