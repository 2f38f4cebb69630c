// SPDX-License-Identifier: Apache-2.0
// Internals of the kernel generator (kernel_gen.h), shared by its .cc files: the buffer
// model, the abstract state and the Generator class. Not a public interface.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "kernel_gen.h"
#include "rng.h"

namespace tilejit::devgen::internal {

inline constexpr int kMaxTrips = 3;           // every loop runs 1..3 times
inline constexpr double kClamp = 16.0;        // clamp for loop-carried and growing values
inline constexpr double kGrowLimit = 1000.0;  // results above this get their inputs clamped
inline constexpr double kL1Bound = 1000.0;    // shared(L1) operands never exceed this

enum class Home : uint8_t { kUb, kL1, kFrag };  // what infer_buffer_scope will make of it

struct Buf {
  std::string name;
  Home home = Home::kUb;
  std::vector<int64_t> shape;
  ir::DType dtype = ir::DType::kFloat32;
  int output = -1;         // its output param, once it has been stored
  bool vector_op = false;  // a vector tile op (not a copy) has touched it
};

// What the generator knows of a buffer at the current point of the text.
struct AbstractValue {
  bool init = false;  // written on every path to here
  double bound = 0;   // |element| <= bound when init
};

struct Param {
  std::string name;
  std::vector<int64_t> shape;
  ir::DType dtype = ir::DType::kFloat32;
  bool output = false;
};

// One gemm site: C[rows, n] (+)= A[rows, k] @ B[k, n], with optional transposed storage.
struct GemmUnit {
  int a = -1, b = -1, c = -1;  // buffer indices
  bool ta = false, tb = false;
  int64_t k = 0, n = 0;
  int a_source = -1;  // a float16 UB tile that feeds A (a UB -> L1 hand-off), or -1: from GM
};

std::string FloatText(double v);  // "0.5", "16.0": always a float literal

class Generator {
 public:
  Generator(uint64_t seed, const GenOptions& options);
  GeneratedKernel Run();

 private:
  int AddBuf(std::string prefix, Home home, std::vector<int64_t> shape, ir::DType dt);
  void PlanKernel();
  void PlanVectorBuffers();
  void PlanCubeBuffers();
  std::vector<int> Matching(const std::function<bool(const Buf&)>& pred) const;
  std::vector<int> Ready(const std::function<bool(const Buf&)>& pred) const;

  void Line(const std::string& text);
  // Records a definite write (in every open loop's written set); `by_copy`: a copy wrote it.
  void Write(int buf, double bound, bool by_copy = false);
  void Clamp(int buf, double limit);
  std::string ColOffset(int64_t width);
  std::string Input(std::vector<int64_t> shape, ir::DType dtype);
  std::string Output(int buf);
  std::string RowRegion(const std::string& param, const Buf& b, const std::string& col);

  // Control flow (kernel_gen_flow.cc).
  void Steps(int count, int depth);
  void Loop(int depth);
  void If(int depth);
  void Finish();
  std::string Assemble(const std::vector<std::string>& body) const;

  // Actions (kernel_gen_actions.cc); each returns false when it does not apply here.
  bool Action();
  bool VectorAction(int which);
  bool CubeAction(int which);
  bool Load();
  bool LoadBuf(int buf);
  void ForceGemm(const GemmUnit& g);
  bool Fill();
  bool BinaryTiles();
  bool BinaryScalar();
  bool Unary();
  bool Reduce();
  bool RowBroadcast();
  bool Cast();
  bool Store();
  bool LoadA(const GemmUnit& g);
  bool LoadB(const GemmUnit& g);
  bool Gemm(const GemmUnit& g);
  bool FragToUb(const GemmUnit& g);
  bool UbToL1(const GemmUnit& g);
  bool StoreFrag(const GemmUnit& g);
  void Guard(int buf, bool divisor);

  Rng rng_;
  GenOptions options_;
  GeneratedKernel out_;
  bool vector_ = false, cube_ = false, mixed_ = false;
  int64_t rows_ = 32;
  std::vector<int64_t> widths_;
  std::vector<Buf> bufs_;
  std::vector<AbstractValue> state_;
  std::vector<GemmUnit> units_;
  std::vector<Param> params_;
  std::vector<std::string>* lines_ = nullptr;
  int indent_ = 0;
  int next_var_ = 0;
  std::vector<std::string> loop_vars_;
  std::vector<std::set<int>> written_frames_;  // buffers written inside each open loop
};

}  // namespace tilejit::devgen::internal
