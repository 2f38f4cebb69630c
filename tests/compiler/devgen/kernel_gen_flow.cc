// SPDX-License-Identifier: Apache-2.0
// The generator's control flow and the kernel's frame. Loops run 1..3 times (static, or
// `%cid % 3 + 1` / `%cid % 2 + 1` at run time), so what a body writes is written after the
// loop; after an `if`, only what both branches wrote counts as written. The final stores
// are unconditional, so every output element is written whatever the branches did.
#include <algorithm>
#include <sstream>

#include "kernel_gen_internal.h"

namespace tilejit::devgen::internal {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

GeneratedKernel Generator::Run() {
  PlanKernel();
  std::vector<std::string> body;
  lines_ = &body;
  indent_ = 1;
  Steps(static_cast<int>(rng_.Uniform(options_.min_steps, options_.max_steps)), 0);
  Finish();
  out_.has_cube = cube_;
  out_.has_vector = vector_;
  out_.ir_text = Assemble(body);
  for (const Param& p : params_) {
    if (!p.output) out_.inputs.push_back({p.shape, p.dtype});
  }
  return out_;
}

void Generator::Steps(int count, int depth) {
  for (int i = 0; i < count; ++i) {
    const int64_t r = rng_.Uniform(0, 99);
    if (depth < 2 && r < 14) {
      Loop(depth);
    } else if (depth < 2 && r < 22) {
      If(depth);
    } else {
      Action();
    }
  }
}

void Generator::Loop(int depth) {
  const std::string var = "%i" + std::to_string(next_var_++);
  std::string extent = std::to_string(rng_.Uniform(1, kMaxTrips));
  if (rng_.Chance(40)) extent = rng_.Chance(50) ? "%cid % 3 + 1" : "%cid % 2 + 1";
  const std::vector<AbstractValue> entry = state_;
  for (size_t i = 0; i < bufs_.size(); ++i) {
    if (!state_[i].init) continue;
    if (bufs_[i].home == Home::kUb) state_[i].bound = std::max(state_[i].bound, kClamp);
    if (bufs_[i].home == Home::kL1) state_[i].bound = std::max(state_[i].bound, kL1Bound);
  }
  std::vector<std::string> body;
  std::vector<std::string>* outer = lines_;
  lines_ = &body;
  ++indent_;
  loop_vars_.push_back(var);
  written_frames_.emplace_back();
  Steps(static_cast<int>(rng_.Uniform(1, 4)), depth + 1);
  if (body.empty()) Fill();
  const std::set<int> written = written_frames_.back();
  written_frames_.pop_back();
  loop_vars_.pop_back();
  // Loop-carried values are clamped at the top of the body, so the widened entry state bounds
  // every iteration, not just the first.
  std::vector<std::string> top;
  lines_ = &top;
  for (int b : written) {
    if (entry[b].init && bufs_[b].home == Home::kUb) Clamp(b, kClamp);
  }
  --indent_;
  lines_ = outer;
  Line("for " + var + " in serial(0, " + extent + ") {");
  lines_->insert(lines_->end(), top.begin(), top.end());
  lines_->insert(lines_->end(), body.begin(), body.end());
  Line("}");
  ++out_.loops;
}

void Generator::If(int depth) {
  static const std::vector<std::string> kConds = {"%cid % 2 == 0", "%cid == 0", "%cid < 2",
                                                  "%cid >= 1"};
  Line("if " + rng_.Pick(kConds) + " {");
  const std::vector<AbstractValue> entry = state_;
  ++indent_;
  size_t before = lines_->size();
  Steps(static_cast<int>(rng_.Uniform(1, 3)), depth + 1);
  if (lines_->size() == before) Fill();
  const std::vector<AbstractValue> then_state = state_;
  std::vector<AbstractValue> else_state = entry;
  if (rng_.Chance(50)) {
    state_ = entry;
    --indent_;
    Line("} else {");
    ++indent_;
    before = lines_->size();
    Steps(static_cast<int>(rng_.Uniform(1, 3)), depth + 1);
    if (lines_->size() == before) Fill();
    else_state = state_;
  }
  --indent_;
  Line("}");
  for (size_t i = 0; i < state_.size(); ++i) {
    state_[i].init = then_state[i].init && else_state[i].init;
    state_[i].bound = std::max(then_state[i].bound, else_state[i].bound);
  }
  ++out_.ifs;
}

void Generator::Finish() {
  // A mixed kernel hands at least one fragment to the vector side.
  if (mixed_ && out_.handoffs == 0) {
    const GemmUnit& g = units_[static_cast<size_t>(rng_.Uniform(0, units_.size() - 1))];
    ForceGemm(g);
    FragToUb(g);
  }
  if (cube_ && !mixed_ && !state_[units_[0].c].init) ForceGemm(units_[0]);
  // Outputs stored on the way get a final, unconditional store of their buffer (written
  // first if a branch left it unwritten), plus one or two more.
  for (size_t i = 0; i < bufs_.size(); ++i) {
    if (bufs_[i].home == Home::kL1) continue;
    const bool wanted = bufs_[i].output >= 0 ||
                        (state_[i].init && rng_.Chance(bufs_[i].home == Home::kFrag ? 60 : 35));
    if (!wanted) continue;
    if (bufs_[i].home == Home::kFrag && !state_[i].init) {
      for (const GemmUnit& g : units_) {
        if (g.c == static_cast<int>(i)) ForceGemm(g);
      }
    }
    if (!state_[i].init) Line("fill(" + bufs_[i].name + ", 0.5)");
    state_[i].init = true;
    Line("copy(" + RowRegion(Output(static_cast<int>(i)), bufs_[i], "0") + ", " + bufs_[i].name +
         ")");
  }
  bool any_output = false;
  for (const Param& p : params_) any_output = any_output || p.output;
  if (!any_output) {
    for (size_t i = 0; i < bufs_.size() && !any_output; ++i) {
      if (bufs_[i].home == Home::kL1 || !state_[i].init) continue;
      Line("copy(" + RowRegion(Output(static_cast<int>(i)), bufs_[i], "0") + ", " + bufs_[i].name +
           ")");
      any_output = true;
    }
  }
  if (!any_output) {  // nothing was written: a vector kernel that only loaded into L1 etc.
    Load();
    Store();
  }
}

// Emits whatever unit `g` still needs (operands, then the gemm itself).
void Generator::ForceGemm(const GemmUnit& g) {
  if (g.a_source >= 0) {
    if (!state_[g.a_source].init) LoadBuf(g.a_source);
    UbToL1(g);
  } else if (!state_[g.a].init) {
    LoadA(g);
  }
  if (!state_[g.b].init) LoadB(g);
  Gemm(g);
}

std::string Generator::Assemble(const std::vector<std::string>& body) const {
  std::ostringstream s;
  std::vector<int> outs;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Param& p = params_[i];
    s << "param " << p.name << ": gm " << ir::DTypeName(p.dtype) << ShapeText(p.shape)
      << (p.output ? " output" : " input") << "\n";
    if (p.output) outs.push_back(static_cast<int>(i));
  }
  s << "out_idx = [";
  for (size_t i = 0; i < outs.size(); ++i) s << (i ? ", " : "") << outs[i];
  s << "]\nworkspace_idx = []\n";
  s << "launch(" << out_.grid << ", threads=" << out_.threads << ") (%cid, %vid) {\n";
  for (const Buf& b : bufs_) {
    s << "  alloc " << b.name << ": " << (b.home == Home::kFrag ? "fragment " : "shared ")
      << ir::DTypeName(b.dtype) << ShapeText(b.shape) << "\n";
  }
  s << "  let %row = %cid * " << rows_ << "\n";
  for (const std::string& line : body) s << line << "\n";
  s << "}\n";
  return s.str();
}

}  // namespace tilejit::devgen::internal
