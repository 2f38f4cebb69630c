// SPDX-License-Identifier: Apache-2.0
// The generator's leaf actions: one tile op (plus the guards and clamps it needs) each.
// Bounds are interval-style: add/sub add bounds, mul multiplies them, and an action whose
// result could pass kGrowLimit clamps its inputs first, so no value leaves fp16 range and no
// fp32 value loses its precision to sheer size.
#include <algorithm>
#include <cmath>

#include "kernel_gen_internal.h"

namespace tilejit::devgen::internal {
namespace {

bool IsTile(const Buf& b) { return b.home == Home::kUb && b.shape.size() == 2; }
bool IsVec(const Buf& b) { return b.home == Home::kUb && b.shape.size() == 1; }
bool IsTile32(const Buf& b) { return IsTile(b) && b.dtype == ir::DType::kFloat32; }

}  // namespace

bool Generator::Action() {
  std::vector<int> weights;
  if (vector_) weights = {6, 3, 6, 4, 4, 3, 3, 2, 2};  // the vector actions, in VectorAction order
  weights.resize(9, 0);
  if (mixed_) {  // hand-offs are the point of a mixed kernel: favour the cube side
    weights.insert(weights.end(), {6, 6, 8, 10, 8, 1});
  } else if (cube_) {
    weights.insert(weights.end(), {4, 4, 5, 0, 0, 2});
  } else {
    weights.insert(weights.end(), {0, 0, 0, 0, 0, 0});
  }
  for (int attempt = 0; attempt < 30; ++attempt) {
    const int which = static_cast<int>(rng_.Weighted(weights));
    if (which < 9 ? VectorAction(which) : CubeAction(which - 9)) return true;
  }
  return false;
}

bool Generator::VectorAction(int which) {
  switch (which) {
    case 0:
      return Load();
    case 1:
      return Fill();
    case 2:
      return BinaryTiles();
    case 3:
      return BinaryScalar();
    case 4:
      return Unary();
    case 5:
      return Reduce();
    case 6:
      return RowBroadcast();
    case 7:
      return Cast();
    default:
      return Store();
  }
}

bool Generator::CubeAction(int which) {
  const GemmUnit& g = units_[static_cast<size_t>(rng_.Uniform(0, units_.size() - 1))];
  switch (which) {
    case 0:
      return LoadA(g);
    case 1:
      return LoadB(g);
    case 2:
      return Gemm(g);
    case 3:
      return FragToUb(g);
    case 4:
      return UbToL1(g);
    default:
      return StoreFrag(g);
  }
}

bool Generator::Load() {
  return LoadBuf(rng_.Pick(Matching([](const Buf& b) { return b.home == Home::kUb; })));
}

bool Generator::LoadBuf(int t) {
  const Buf& b = bufs_[t];
  std::vector<int64_t> shape = b.shape;
  shape[0] *= out_.grid;
  std::string col;
  if (shape.size() == 2) {
    col = ColOffset(b.shape[1]);
    shape[1] *= kMaxTrips;
  }
  Line("copy(" + b.name + ", " + RowRegion(Input(shape, b.dtype), b, col) + ")");
  Write(t, 1.0, true);
  return true;
}

bool Generator::Fill() {
  std::vector<int> cands = Matching([](const Buf& b) { return b.home == Home::kUb; });
  const int t = rng_.Pick(cands);
  const double v = rng_.Pick<double>({0.0, 0.5, 1.0, -1.0, 2.0, -0.25});
  Line("fill(" + bufs_[t].name + ", " + FloatText(v) + ")");
  Write(t, std::fabs(v));
  return true;
}

// Clamps the inputs of an op whose result bound `bound(a, b)` would pass kGrowLimit.
bool Generator::BinaryTiles() {
  std::vector<int> srcs = Ready([](const Buf& b) { return b.home == Home::kUb; });
  if (srcs.empty()) return false;
  const int a = rng_.Pick(srcs);
  std::vector<int> partners;
  for (int s : srcs) {
    if (bufs_[s].shape == bufs_[a].shape && bufs_[s].dtype == bufs_[a].dtype) partners.push_back(s);
  }
  const int b = rng_.Pick(partners);
  std::vector<int> dsts = Matching([&](const Buf& d) {
    return d.home == Home::kUb && d.shape == bufs_[a].shape && d.dtype == bufs_[a].dtype;
  });
  const int d = rng_.Pick(dsts);
  const std::string op = rng_.Pick<std::string>({"add", "sub", "mul", "max", "min", "div"});
  if (op == "div") Guard(b, true);
  auto result = [&] {
    const double x = state_[a].bound, y = state_[b].bound;
    if (op == "add" || op == "sub") return x + y;
    if (op == "mul") return x * y;
    return std::max(x, y);  // max, min; div: |a| / (|b| + 1) <= |a|
  };
  if (result() > kGrowLimit) {
    Clamp(a, kClamp);
    if (b != a && op != "div") Clamp(b, kClamp);
  }
  const double bound = op == "div" ? state_[a].bound : result();
  Line(op + "(" + bufs_[d].name + ", " + bufs_[a].name + ", " + bufs_[b].name + ")");
  Write(d, bound);
  return true;
}

bool Generator::BinaryScalar() {
  std::vector<int> srcs = Ready([](const Buf& b) { return b.home == Home::kUb; });
  if (srcs.empty()) return false;
  const int a = rng_.Pick(srcs);
  const int d = rng_.Chance(60) ? a : rng_.Pick(Matching([&](const Buf& x) {
    return x.home == Home::kUb && x.shape == bufs_[a].shape && x.dtype == bufs_[a].dtype;
  }));
  const std::string op = rng_.Pick<std::string>({"add", "sub", "mul", "max", "min"});
  const double c = rng_.Pick<double>({0.5, 2.0, -1.5, 0.25, 3.0});
  double bound = op == "mul" ? state_[a].bound * std::fabs(c) : state_[a].bound + std::fabs(c);
  if (bound > kGrowLimit) {
    Clamp(a, kClamp);
    bound = op == "mul" ? state_[a].bound * std::fabs(c) : state_[a].bound + std::fabs(c);
  }
  Line(op + "(" + bufs_[d].name + ", " + bufs_[a].name + ", " + FloatText(c) + ")");
  Write(d, bound);
  return true;
}

bool Generator::Unary() {
  std::vector<int> srcs = Ready([](const Buf& b) { return b.home == Home::kUb; });
  if (srcs.empty()) return false;
  const int a = rng_.Pick(srcs);
  const int d = rng_.Chance(50) ? a : rng_.Pick(Matching([&](const Buf& x) {
    return x.home == Home::kUb && x.shape == bufs_[a].shape && x.dtype == bufs_[a].dtype;
  }));
  const std::string op = rng_.Pick<std::string>({"exp", "abs", "relu", "exp"});
  double bound = state_[a].bound;
  if (op == "exp") {
    // exp of at most 3 stays below 20.1; the clamp is in place, which is legal anywhere.
    const std::string& n = bufs_[a].name;
    Line("min(" + n + ", " + n + ", 3.0)");
    bound = std::exp(3.0) + 0.01;
  }
  Line(op + "(" + bufs_[d].name + ", " + bufs_[a].name + ")");
  Write(d, bound);
  return true;
}

bool Generator::Reduce() {
  std::vector<int> tiles = Ready(IsTile32);
  std::vector<int> vecs = Matching(IsVec);
  if (tiles.empty() || vecs.empty()) return false;
  const int t = rng_.Pick(tiles), v = rng_.Pick(vecs);
  const bool sum = rng_.Chance(50);
  const bool accumulate = state_[v].init && rng_.Chance(30);
  const double cols = static_cast<double>(bufs_[t].shape[1]);
  if (sum && state_[t].bound * cols > kGrowLimit) Clamp(t, kClamp);
  if (accumulate && state_[v].bound > kGrowLimit) Clamp(v, kClamp);
  const double own = sum ? state_[t].bound * cols : state_[t].bound;
  const double bound =
      accumulate ? (sum ? own + state_[v].bound : std::max(own, state_[v].bound)) : own;
  std::string attrs = rng_.Chance(50) ? "dim=-1" : "dim=1";
  if (accumulate) {
    attrs = "clear=false, " + attrs;
  } else if (rng_.Chance(20)) {
    attrs = "clear=true, " + attrs;
  }
  Line(std::string(sum ? "reduce_sum(" : "reduce_max(") + bufs_[v].name + ", " + bufs_[t].name +
       ") {" + attrs + "}");
  Write(v, bound);
  return true;
}

bool Generator::RowBroadcast() {
  std::vector<int> tiles = Ready(IsTile32);
  std::vector<int> vecs = Ready(IsVec);
  if (tiles.empty() || vecs.empty()) return false;
  const int t = rng_.Pick(tiles), v = rng_.Pick(vecs);
  const int d = rng_.Chance(60) ? t : rng_.Pick(Matching([&](const Buf& x) {
    return IsTile32(x) && x.shape == bufs_[t].shape;
  }));
  const std::string op = rng_.Pick<std::string>({"sub", "add", "mul", "max", "div"});
  if (op == "div") Guard(v, true);
  double bound = state_[t].bound;
  if (op == "mul") {
    if (state_[t].bound * state_[v].bound > kGrowLimit) {
      Clamp(t, kClamp);
      Clamp(v, kClamp);
    }
    bound = state_[t].bound * state_[v].bound;
  } else if (op != "div") {
    if (state_[t].bound + state_[v].bound > kGrowLimit) Clamp(v, kClamp);
    bound = state_[t].bound + state_[v].bound;
    if (bound > kGrowLimit) {
      Clamp(t, kClamp);
      bound = state_[t].bound + state_[v].bound;
    }
  }
  Line(op + "(" + bufs_[d].name + ", " + bufs_[t].name + ", " + bufs_[v].name + ")");
  Write(d, bound);
  return true;
}

bool Generator::Cast() {
  std::vector<int> srcs = Ready(IsTile);
  if (srcs.empty()) return false;
  const int s = rng_.Pick(srcs);
  const ir::DType to =
      bufs_[s].dtype == ir::DType::kFloat32 ? ir::DType::kFloat16 : ir::DType::kFloat32;
  std::vector<int> dsts = Matching(
      [&](const Buf& x) { return IsTile(x) && x.dtype == to && x.shape == bufs_[s].shape; });
  if (dsts.empty()) return false;
  const int d = rng_.Pick(dsts);
  if (state_[s].bound > kGrowLimit) Clamp(s, kGrowLimit);
  const int64_t count = bufs_[s].shape[0] * bufs_[s].shape[1];
  Line("cast(" + bufs_[d].name + ", " + bufs_[s].name + ") {count=" + std::to_string(count) +
       ", mode=\"CAST_RINT\"}");
  Write(d, state_[s].bound * 1.001);
  return true;
}

bool Generator::Store() {
  std::vector<int> srcs = Ready([](const Buf& b) { return b.home == Home::kUb; });
  if (srcs.empty()) return false;
  const int s = rng_.Pick(srcs);
  Line("copy(" + RowRegion(Output(s), bufs_[s], "0") + ", " + bufs_[s].name + ")");
  return true;
}

// Makes a divisor safe in place: |x| + 1 >= 1.
void Generator::Guard(int buf, bool divisor) {
  if (!divisor || !state_[buf].init) return;
  const std::string& n = bufs_[buf].name;
  if (state_[buf].bound + 1 > kGrowLimit) Clamp(buf, kClamp);
  Line("abs(" + n + ", " + n + ")");
  Line("add(" + n + ", " + n + ", 1.0)");
  Write(buf, state_[buf].bound + 1);
}

}  // namespace tilejit::devgen::internal
