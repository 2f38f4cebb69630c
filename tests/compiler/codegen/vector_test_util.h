// SPDX-License-Identifier: Apache-2.0
// Helpers for the vector-op codegen tests: a kernel builder that copies GM inputs into UB
// tiles, runs the ops under test between `barrier(all)`s and copies UB tiles back out, plus
// deterministic data and small references. Built on codegen_test_util.h.
//
//   VecKernel k;
//   k.Ub("a", "float32", {5, 37}).Ub("b", "float32", {5, 37});
//   k.In("a").In("b").Out("a");
//   k.Op("add(%a, %a, %b)");
//   auto run = RunIr(k.Text(), {F32({5, 37}, x), F32({5, 37}, y)});
//
// Header-only; not thread-safe.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/compiler/codegen/codegen_test_util.h"

namespace tilejit::codegen::testing {

inline std::string ShapeList(const std::vector<int64_t>& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s;
}

// Bytes a UB tile occupies (tile_layout.h: rows padded to 32 bytes for rank >= 2).
inline int64_t UbBytes(const std::string& dtype, const std::vector<int64_t>& shape) {
  const int64_t es = dtype == "float32" || dtype == "int32"  ? 4
                     : dtype.find("16") != std::string::npos ? 2
                                                             : 1;
  if (shape.size() == 1) return (shape[0] * es + 31) / 32 * 32;
  int64_t lead = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) lead *= shape[i];
  return lead * ((shape.back() * es + 31) / 32 * 32);
}

class VecKernel {
 public:
  VecKernel& Ub(const std::string& name, const std::string& dtype, std::vector<int64_t> shape) {
    allocs_ += "    alloc %" + name + ": ub " + dtype + "[" + ShapeList(shape) + "] @" +
               std::to_string(next_) + "\n";
    next_ += UbBytes(dtype, shape);
    tiles_.push_back({name, dtype, std::move(shape)});
    return *this;
  }
  // GM input copied whole into UB tile `name` before the ops.
  VecKernel& In(const std::string& name) {
    ins_.push_back(Find(name));
    return *this;
  }
  // UB tile `name` copied whole to a GM output after the ops.
  VecKernel& Out(const std::string& name) {
    outs_.push_back(Find(name));
    return *this;
  }
  VecKernel& Op(const std::string& line) {
    ops_ += "      " + line + "\n";
    return *this;
  }

  std::string Text() const {
    std::string params, copy_in, copy_out;
    size_t p = 0;
    for (size_t i : ins_) {
      params += Param(p, tiles_[i], "input");
      copy_in += "      copy(%" + tiles_[i].name + ", %p" + std::to_string(p++) + ")\n";
    }
    std::string out_idx;
    for (size_t i : outs_) {
      out_idx += (out_idx.empty() ? "" : ", ") + std::to_string(p);
      params += Param(p, tiles_[i], "output");
      copy_out += "      copy(%p" + std::to_string(p++) + ", %" + tiles_[i].name + ")\n";
    }
    return params + "out_idx = [" + out_idx + "]\nworkspace_idx = []\n" +
           "launch(1, threads=1) (%cid, %vid) {\n" + allocs_ + "    scope vector {\n" + copy_in +
           "      barrier(all)\n" + ops_ + "      barrier(all)\n" + copy_out + "    }\n}\n";
  }

 private:
  struct Tile {
    std::string name, dtype;
    std::vector<int64_t> shape;
  };
  size_t Find(const std::string& name) const {
    for (size_t i = 0; i < tiles_.size(); ++i) {
      if (tiles_[i].name == name) return i;
    }
    ADD_FAILURE() << "no tile " << name;
    return 0;
  }
  static std::string Param(size_t p, const Tile& t, const char* role) {
    return "param %p" + std::to_string(p) + ": gm " + t.dtype + "[" + ShapeList(t.shape) + "] " +
           role + "\n";
  }

  std::string allocs_, ops_;
  std::vector<Tile> tiles_;
  std::vector<size_t> ins_, outs_;
  int64_t next_ = 0;
};

// Deterministic values in [lo, hi).
inline std::vector<float> Data(size_t n, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 12345u;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = lo + (hi - lo) * static_cast<float>(s >> 8) / static_cast<float>(1u << 24);
  }
  return v;
}

// f(i) for each element index i.
inline std::vector<float> Map(size_t n, const std::function<float(size_t)>& f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = f(i);
  return v;
}

inline int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace tilejit::codegen::testing
