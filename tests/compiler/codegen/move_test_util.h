// SPDX-License-Identifier: Apache-2.0
// Helpers shared by copy_test.cc and mma_test.cc: IR text templates, deterministic test
// values that fp16/bf16 hold exactly, bf16/int8 arrays, a C++ matmul reference and a
// compile-error expectation. Header-only.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "tests/compiler/codegen/codegen_test_util.h"

namespace tilejit::codegen::testing {

// Replaces every `$KEY` of `text` by its value (keys are matched longest first by the caller
// choosing distinct names).
inline std::string Subst(std::string text,
                         const std::vector<std::pair<std::string, std::string>>& vars) {
  for (const auto& [key, value] : vars) {
    for (size_t pos = text.find(key); pos != std::string::npos;
         pos = text.find(key, pos + value.size())) {
      text.replace(pos, key.size(), value);
    }
  }
  return text;
}

// Small multiples of 1/4 in [-2, 2]: exact in fp16 and bf16, so copies compare exactly and
// fp32 sums of products are exact for the sizes used here.
inline std::vector<float> Quarters(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    v[i] = static_cast<float>(static_cast<int>((i * 7 + seed * 13) % 17) - 8) * 0.25f;
  }
  return v;
}

// The first rows x cols of `x` followed by pad rows up to out_rows.
inline std::vector<float> PaddedRows(const std::vector<float>& x, int64_t rows, int64_t cols,
                                     int64_t out_rows, float pad) {
  std::vector<float> out(out_rows * cols, pad);
  std::copy(x.begin(), x.begin() + rows * cols, out.begin());
  return out;
}

inline runner::NpyArray BF16(std::vector<int64_t> shape, const std::vector<float>& v) {
  runner::NpyArray a;
  a.dtype = target::ElementType::kBFloat16;
  a.shape = std::move(shape);
  a.data.resize(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint16_t h = runner::sim::FloatToBf16(v[i]);
    std::memcpy(&a.data[i * 2], &h, 2);
  }
  return a;
}

inline runner::NpyArray I8(std::vector<int64_t> shape, const std::vector<int8_t>& v) {
  runner::NpyArray a;
  a.dtype = target::ElementType::kInt8;
  a.shape = std::move(shape);
  a.data.assign(reinterpret_cast<const uint8_t*>(v.data()),
                reinterpret_cast<const uint8_t*>(v.data()) + v.size());
  return a;
}

// C[m][n] = sum_k A[m][k] * B[k][n]; `a_t` / `b_t`: A is stored K x M / B is stored N x K.
inline std::vector<float> MatMul(const std::vector<float>& a, const std::vector<float>& b,
                                 int64_t m, int64_t n, int64_t k, bool a_t = false,
                                 bool b_t = false) {
  std::vector<float> c(m * n, 0.0f);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) {
        s += static_cast<double>(a_t ? a[p * m + i] : a[i * k + p]) *
             static_cast<double>(b_t ? b[j * k + p] : b[p * n + j]);
      }
      c[i * n + j] = static_cast<float>(s);
    }
  }
  return c;
}

// Expects the IR to be rejected with a diagnostic containing `needle`.
inline void ExpectCompileError(const std::string& ir, const std::string& needle,
                               const target::NpuTarget& npu = target::Ascend910B2()) {
  auto r = CompileIr(ir, npu);
  ASSERT_FALSE(r.ok()) << "compiled, expected an error containing: " << needle;
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("error:"), std::string::npos) << r.status().message();
}

}  // namespace tilejit::codegen::testing
