// SPDX-License-Identifier: Apache-2.0
// The generator's cube actions and hand-offs. A gemm's bound is k * |A| * |B| (times the trip
// count when it accumulates across a loop through `init=%i == 0`); `init=false` accumulation
// is generated only outside loops, so a fragment never grows without bound.
#include <algorithm>

#include "kernel_gen_internal.h"

namespace tilejit::devgen::internal {

bool Generator::LoadA(const GemmUnit& g) {
  if (g.a_source >= 0) return false;
  const Buf& a = bufs_[g.a];
  const std::string k = ColOffset(g.k);
  std::string region;
  if (g.ta) {  // A stored as [k, rows]
    const std::string p = Input({g.k * kMaxTrips, rows_ * out_.grid}, ir::DType::kFloat16);
    region = p + "[" + k + ":+" + std::to_string(g.k) + ", %row:+" + std::to_string(rows_) + "]";
  } else {
    const std::string p = Input({rows_ * out_.grid, g.k * kMaxTrips}, ir::DType::kFloat16);
    region = p + "[%row:+" + std::to_string(rows_) + ", " + k + ":+" + std::to_string(g.k) + "]";
  }
  Line("copy(" + a.name + ", " + region + ")");
  Write(g.a, 1.0, true);
  return true;
}

bool Generator::LoadB(const GemmUnit& g) {
  const Buf& b = bufs_[g.b];
  const std::string k = ColOffset(g.k);
  const std::string ks = std::to_string(g.k), ns = std::to_string(g.n);
  std::string region;
  if (g.tb) {  // B stored as [n, k]
    region = Input({g.n, g.k * kMaxTrips}, ir::DType::kFloat16) + "[0:+" + ns + ", " + k + ":+" +
             ks + "]";
  } else {
    region = Input({g.k * kMaxTrips, g.n}, ir::DType::kFloat16) + "[" + k + ":+" + ks + ", 0:+" +
             ns + "]";
  }
  Line("copy(" + b.name + ", " + region + ")");
  Write(g.b, 1.0, true);
  return true;
}

bool Generator::Gemm(const GemmUnit& g) {
  if (!state_[g.a].init || !state_[g.b].init) return false;
  const double one = static_cast<double>(g.k) * state_[g.a].bound * state_[g.b].bound;
  std::string init = "true";
  double bound = one;
  if (loop_vars_.empty()) {
    if (state_[g.c].init && state_[g.c].bound < kGrowLimit && rng_.Chance(40)) {
      init = "false";
      bound = one + state_[g.c].bound;
    }
  } else if (rng_.Chance(50)) {
    init = loop_vars_.back() + " == 0";
    bound = one * kMaxTrips;
  }
  std::string attrs = "init=" + init;
  if (g.ta) attrs += ", transpose_A=true";
  if (g.tb) attrs += ", transpose_B=true";
  Line("gemm_v0(" + bufs_[g.c].name + ", " + bufs_[g.a].name + ", " + bufs_[g.b].name + ") {" +
       attrs + "}");
  Write(g.c, bound);
  return true;
}

bool Generator::FragToUb(const GemmUnit& g) {
  if (!state_[g.c].init) return false;
  std::vector<int> dsts = Matching([&](const Buf& x) {
    return x.home == Home::kUb && x.dtype == ir::DType::kFloat32 && x.shape == bufs_[g.c].shape;
  });
  if (dsts.empty()) return false;
  const int d = rng_.Pick(dsts);
  Line("copy(" + bufs_[d].name + ", " + bufs_[g.c].name + ")");
  Write(d, state_[g.c].bound, true);
  ++out_.handoffs;
  return true;
}

bool Generator::UbToL1(const GemmUnit& g) {
  if (g.a_source < 0 || !state_[g.a_source].init) return false;
  if (state_[g.a_source].bound > kL1Bound) Clamp(g.a_source, kClamp);
  // A shared buffer only loaded from GM and copied on would be placed in L1 (it feeds cube
  // work), making the copy an illegal L1 -> L1; a vector op on it makes it a UB tile.
  if (!bufs_[g.a_source].vector_op) {
    const std::string& n = bufs_[g.a_source].name;
    Line("max(" + n + ", " + n + ", -1000.0)");
    bufs_[g.a_source].vector_op = true;
  }
  Line("copy(" + bufs_[g.a].name + ", " + bufs_[g.a_source].name + ")");
  Write(g.a, state_[g.a_source].bound, true);
  ++out_.handoffs;
  return true;
}

bool Generator::StoreFrag(const GemmUnit& g) {
  if (!state_[g.c].init) return false;
  Line("copy(" + RowRegion(Output(g.c), bufs_[g.c], "0") + ", " + bufs_[g.c].name + ")");
  return true;
}

}  // namespace tilejit::devgen::internal
