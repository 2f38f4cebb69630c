// SPDX-License-Identifier: Apache-2.0
#include "server/tune_tensors.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

namespace tilejit::server {
namespace {

using target::ElementType;

double HalfToDouble(uint16_t h) {
  const int sign = (h >> 15) ? -1 : 1;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  if (exp == 0) return sign * std::ldexp(mant, -24);
  if (exp == 31) return mant ? std::nan("") : sign * INFINITY;
  return sign * std::ldexp(mant + 1024, exp - 25);
}

// A float that is exact in float16 (a normal number or zero: the generator's values).
uint16_t ExactHalf(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  if ((bits & 0x7fffffff) == 0) return sign;
  const int exp = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
  return static_cast<uint16_t>(sign | (exp << 10) | ((bits >> 13) & 0x3ff));
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

double ElementAt(const runner::NpyArray& a, int64_t i) {
  const uint8_t* p = a.data.data() + i * target::ElementTypeBytes(a.dtype);
  switch (a.dtype) {
    case ElementType::kBool:
    case ElementType::kUInt8:
      return *p;
    case ElementType::kInt8:
      return Load<int8_t>(p);
    case ElementType::kInt16:
      return Load<int16_t>(p);
    case ElementType::kInt32:
      return Load<int32_t>(p);
    case ElementType::kInt64:
      return static_cast<double>(Load<int64_t>(p));
    case ElementType::kUInt16:
      return Load<uint16_t>(p);
    case ElementType::kUInt32:
      return Load<uint32_t>(p);
    case ElementType::kUInt64:
      return static_cast<double>(Load<uint64_t>(p));
    case ElementType::kFloat16:
      return HalfToDouble(Load<uint16_t>(p));
    case ElementType::kBFloat16:
      return std::bit_cast<float>(uint32_t{Load<uint16_t>(p)} << 16);
    case ElementType::kFloat32:
      return Load<float>(p);
  }
  return 0;
}

// Stores `k / 64` (floats) or `k / 16` (integers: -4..4; bools: k > 0) at element i.
void StoreElement(runner::NpyArray* a, int64_t i, int k) {
  uint8_t* p = a->data.data() + i * target::ElementTypeBytes(a->dtype);
  const float f = static_cast<float>(k) / 64.0f;
  const int64_t n = k / 16;
  switch (a->dtype) {
    case ElementType::kFloat16: {
      const uint16_t h = ExactHalf(f);
      std::memcpy(p, &h, 2);
      return;
    }
    case ElementType::kBFloat16: {
      const auto h = static_cast<uint16_t>(std::bit_cast<uint32_t>(f) >> 16);
      std::memcpy(p, &h, 2);
      return;
    }
    case ElementType::kFloat32:
      std::memcpy(p, &f, 4);
      return;
    case ElementType::kBool:
      *p = k > 0;
      return;
    default: {
      const int bytes = target::ElementTypeBytes(a->dtype);
      const bool is_unsigned = a->dtype == ElementType::kUInt8 ||
                               a->dtype == ElementType::kUInt16 ||
                               a->dtype == ElementType::kUInt32 || a->dtype == ElementType::kUInt64;
      const int64_t v = is_unsigned ? (n < 0 ? -n : n) : n;
      std::memcpy(p, &v, bytes);  // little-endian: the low bytes
      return;
    }
  }
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string CompareOne(size_t n, const runner::NpyArray& got, const runner::NpyArray& want,
                       double atol, double rtol) {
  const std::string name = "output " + std::to_string(n);
  if (got.shape != want.shape) {
    return name + " has shape " + ShapeText(got.shape) + ", the reference " + ShapeText(want.shape);
  }
  const std::vector<double> g = ToDoubles(got);
  const std::vector<double> w = ToDoubles(want);
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < g.size() && i < w.size(); ++i) {
    if (std::fabs(g[i] - w[i]) <= atol + rtol * std::fabs(w[i])) continue;  // NaN: false
    if (bad++ == 0) first = i;
  }
  if (bad == 0) return "";
  return name + " differs from the reference in " + std::to_string(bad) + " of " +
         std::to_string(g.size()) + " elements (atol " + std::to_string(atol) + ", rtol " +
         std::to_string(rtol) + "); first at flat index " + std::to_string(first) + ": got " +
         std::to_string(g[first]) + ", expected " + std::to_string(w[first]);
}

}  // namespace

std::vector<double> ToDoubles(const runner::NpyArray& a) {
  const int bytes = target::ElementTypeBytes(a.dtype);
  const int64_t n = bytes > 0 ? static_cast<int64_t>(a.data.size()) / bytes : 0;
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[i] = ElementAt(a, i);
  return out;
}

Result<std::vector<runner::NpyArray>> GenerateInputs(const target::KernelMetadata& metadata,
                                                     uint64_t seed, uint64_t max_bytes) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(-64, 64);
  std::vector<runner::NpyArray> inputs;
  uint64_t total = 0;
  for (const target::KernelParam& p : metadata.params) {
    if (p.role != target::ParamRole::kInput) continue;
    if (!p.dim_symbols.empty()) {
      return InvalidArgument("input " + p.name +
                             " has a symbolic shape: send the inputs to tune on");
    }
    TILEJIT_ASSIGN_OR_RETURN(int64_t bytes, target::ShapeSizeBytes(p.dtype, p.shape));
    total += static_cast<uint64_t>(bytes);
    if (total > max_bytes) {
      return InvalidArgument("the kernel's inputs need more than " + std::to_string(max_bytes) +
                             " bytes");
    }
    runner::NpyArray a;
    a.dtype = p.dtype;
    a.shape = p.shape;
    a.data.resize(static_cast<size_t>(bytes));
    const int64_t count = a.ElementCount();
    for (int64_t i = 0; i < count; ++i) StoreElement(&a, i, dist(rng));
    inputs.push_back(std::move(a));
  }
  return inputs;
}

std::string CompareOutputs(const std::vector<runner::NpyArray>& outputs,
                           const std::vector<runner::NpyArray>& reference, double atol,
                           double rtol) {
  if (outputs.size() != reference.size()) {
    return "the kernel returns " + std::to_string(outputs.size()) + " outputs, the reference " +
           std::to_string(reference.size());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string why = CompareOne(i, outputs[i], reference[i], atol, rtol);
    if (!why.empty()) return why;
  }
  return "";
}

}  // namespace tilejit::server
