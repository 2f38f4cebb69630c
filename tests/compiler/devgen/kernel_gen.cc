// SPDX-License-Identifier: Apache-2.0
// The generator keeps an abstract state per buffer (definitely written? bound on |value|) as
// it emits text, so every action it picks is legal where it lands: reads only of written
// buffers, guards before exp and div, clamps before values could grow past fp16 range. Loops
// start from a widened state and clamp their loop-carried buffers at the top of the body, so
// one abstract pass over the body bounds every iteration.
#include "kernel_gen.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "kernel_gen_internal.h"

namespace tilejit::devgen {
namespace internal {

Generator::Generator(uint64_t seed, const GenOptions& options)
    : rng_(seed * 0x9E3779B97F4A7C15ull + 1), options_(options) {
  out_.seed = seed;
}

int Generator::AddBuf(std::string prefix, Home home, std::vector<int64_t> shape, ir::DType dt) {
  Buf b;
  b.name = "%" + prefix + std::to_string(bufs_.size());
  b.home = home;
  b.shape = std::move(shape);
  b.dtype = dt;
  bufs_.push_back(b);
  state_.push_back({});
  return static_cast<int>(bufs_.size()) - 1;
}

void Generator::PlanKernel() {
  KernelMix mix = options_.mix;
  if (mix == KernelMix::kAny) {
    const int r = static_cast<int>(rng_.Uniform(0, 99));
    mix = r < 30 ? KernelMix::kVectorOnly : r < 45 ? KernelMix::kCubeOnly : KernelMix::kMixed;
  }
  vector_ = mix != KernelMix::kCubeOnly;
  cube_ = mix != KernelMix::kVectorOnly;
  mixed_ = vector_ && cube_;
  out_.threads = static_cast<int>(rng_.Uniform(1, 2));
  const int min_grid = std::max(options_.min_grid, 1);
  out_.grid = static_cast<int>(rng_.Uniform(min_grid, std::max(min_grid, 3)));
  rows_ = out_.threads == 2 ? rng_.Pick<int64_t>({32, 64}) : rng_.Pick<int64_t>({16, 32, 64});
  widths_ = {rng_.Pick<int64_t>({16, 32, 64})};
  if (rng_.Chance(40)) {
    const int64_t w = rng_.Pick<int64_t>({16, 32, 64});
    if (w != widths_[0]) widths_.push_back(w);
  }
  if (vector_) PlanVectorBuffers();
  if (cube_) PlanCubeBuffers();
}

void Generator::PlanVectorBuffers() {
  const int64_t widest = *std::max_element(widths_.begin(), widths_.end());
  const int64_t max_tiles = std::clamp<int64_t>(49152 / (rows_ * widest * 4), 2, 4);
  const int64_t n32 = rng_.Uniform(2, max_tiles);
  for (int64_t i = 0; i < n32; ++i) {
    const int64_t w = i < 2 ? widths_[0] : rng_.Pick(widths_);
    AddBuf("t", Home::kUb, {rows_, w}, ir::DType::kFloat32);
  }
  const int64_t n16 = rng_.Uniform(mixed_ ? 1 : 0, 2);
  for (int64_t i = 0; i < n16; ++i) {
    AddBuf("h", Home::kUb, {rows_, rng_.Pick(widths_)}, ir::DType::kFloat16);
  }
  const int64_t nvec = rng_.Uniform(1, 2);
  for (int64_t i = 0; i < nvec; ++i) AddBuf("r", Home::kUb, {rows_}, ir::DType::kFloat32);
}

void Generator::PlanCubeBuffers() {
  const int nunits = mixed_ && rng_.Chance(75) ? 2 : static_cast<int>(rng_.Uniform(1, 2));
  for (int u = 0; u < nunits; ++u) {
    GemmUnit g;
    std::vector<int> halves = Matching(
        [](const Buf& b) { return b.home == Home::kUb && b.dtype == ir::DType::kFloat16; });
    const bool from_ub = mixed_ && u > 0 && !halves.empty() && rng_.Chance(85);
    if (mixed_ && u == 0 && !halves.empty() && rng_.Chance(25)) continue;  // only a v2c unit
    if (from_ub) {
      g.a_source = rng_.Pick(halves);
      g.k = bufs_[g.a_source].shape[1];
    } else {
      g.k = rng_.Pick<int64_t>({16, 32, 48, 64});
      g.ta = rng_.Chance(25);
    }
    g.tb = rng_.Chance(30);
    // A mixed kernel's fragment must fit a float32 tile for the hand-off.
    std::vector<int64_t> tile_widths;
    for (const Buf& b : bufs_) {
      if (b.home == Home::kUb && b.shape.size() == 2 && b.dtype == ir::DType::kFloat32) {
        tile_widths.push_back(b.shape[1]);
      }
    }
    const int64_t n = mixed_ ? rng_.Pick(tile_widths) : rng_.Pick<int64_t>({16, 32, 64});
    g.n = n;
    const ir::DType h = ir::DType::kFloat16;
    g.a = AddBuf("a", Home::kL1, g.ta ? std::vector<int64_t>{g.k, rows_} : std::vector{rows_, g.k},
                 h);
    g.b = AddBuf("b", Home::kL1, g.tb ? std::vector<int64_t>{n, g.k} : std::vector{g.k, n}, h);
    g.c = AddBuf("c", Home::kFrag, {rows_, n}, ir::DType::kFloat32);
    units_.push_back(g);
  }
  if (units_.empty()) {  // every unit was skipped: fall back to one fed from GM
    GemmUnit g;
    g.k = 32;
    g.n = widths_[0];
    g.a = AddBuf("a", Home::kL1, {rows_, g.k}, ir::DType::kFloat16);
    g.b = AddBuf("b", Home::kL1, {g.k, g.n}, ir::DType::kFloat16);
    g.c = AddBuf("c", Home::kFrag, {rows_, g.n}, ir::DType::kFloat32);
    units_.push_back(g);
  }
}

std::vector<int> Generator::Matching(const std::function<bool(const Buf&)>& pred) const {
  std::vector<int> out;
  for (size_t i = 0; i < bufs_.size(); ++i) {
    if (pred(bufs_[i])) out.push_back(static_cast<int>(i));
  }
  return out;
}

std::vector<int> Generator::Ready(const std::function<bool(const Buf&)>& pred) const {
  std::vector<int> out;
  for (int i : Matching(pred)) {
    if (state_[i].init) out.push_back(i);
  }
  return out;
}

void Generator::Line(const std::string& text) {
  lines_->push_back(std::string(2 * indent_, ' ') + text);
}

void Generator::Write(int buf, double bound, bool by_copy) {
  state_[buf] = {true, bound};
  if (!by_copy) bufs_[buf].vector_op = true;
  for (std::set<int>& frame : written_frames_) frame.insert(buf);
}

std::string Generator::ColOffset(int64_t width) {
  if (!loop_vars_.empty() && rng_.Chance(75)) {
    return loop_vars_.back() + " * " + std::to_string(width);
  }
  return std::to_string(width * rng_.Uniform(0, kMaxTrips - 1));
}

std::string Generator::Input(std::vector<int64_t> shape, ir::DType dtype) {
  std::vector<int> same;
  for (size_t i = 0; i < params_.size(); ++i) {
    if (!params_[i].output && params_[i].shape == shape && params_[i].dtype == dtype) {
      same.push_back(static_cast<int>(i));
    }
  }
  if (!same.empty() && rng_.Chance(50)) return params_[rng_.Pick(same)].name;
  Param p{"%in" + std::to_string(params_.size()), std::move(shape), dtype, false};
  params_.push_back(p);
  return p.name;
}

std::string Generator::Output(int buf) {
  Buf& b = bufs_[buf];
  if (b.output < 0) {
    std::vector<int64_t> shape = b.shape;
    shape[0] *= out_.grid;
    params_.push_back({"%out" + std::to_string(params_.size()), shape, b.dtype, true});
    b.output = static_cast<int>(params_.size()) - 1;
  }
  return params_[b.output].name;
}

std::string Generator::RowRegion(const std::string& param, const Buf& b, const std::string& col) {
  std::string s = param + "[%row:+" + std::to_string(b.shape[0]);
  if (b.shape.size() == 2) s += ", " + col + ":+" + std::to_string(b.shape[1]);
  return s + "]";
}

void Generator::Clamp(int buf, double limit) {
  const std::string& n = bufs_[buf].name;
  const std::string l = FloatText(limit);
  Line("min(" + n + ", " + n + ", " + l + ")");
  Line("max(" + n + ", " + n + ", -" + l + ")");
  Write(buf, std::min(state_[buf].bound, limit));
}

std::string FloatText(double v) {
  std::ostringstream s;
  s << v;
  std::string t = s.str();
  if (t.find_first_of(".e") == std::string::npos) t += ".0";
  return t;
}

}  // namespace internal

std::string GeneratedKernel::Summary() const {
  std::ostringstream s;
  s << "seed=" << seed << " threads=" << threads << " grid=" << grid << (has_cube ? " cube" : "")
    << (has_vector ? " vector" : "") << " handoffs=" << handoffs << " loops=" << loops
    << " ifs=" << ifs;
  return s.str();
}

GeneratedKernel GenerateKernel(uint64_t seed, const GenOptions& options) {
  internal::Generator g(seed, options);
  return g.Run();
}

std::vector<std::vector<float>> GenerateInputValues(const GeneratedKernel& kernel, uint64_t seed) {
  std::vector<std::vector<float>> out;
  for (size_t i = 0; i < kernel.inputs.size(); ++i) {
    Rng rng(seed * 1000003 + i);
    int64_t n = 1;
    for (int64_t d : kernel.inputs[i].shape) n *= d;
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = static_cast<float>(rng.Uniform(-8, 8)) / 8.0f;
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace tilejit::devgen
