// SPDX-License-Identifier: Apache-2.0
// Internals of the Tile IR interpreter (tile_interp.h): storage, region views and the
// interpreter class shared by tile_interp.cc (control flow, scalars) and tile_interp_ops.cc
// (tile ops). Not a public interface.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "tile_interp.h"

namespace tilejit::devgen::internal {

struct Storage {
  ir::Buffer buffer;
  std::vector<double> data;
  std::vector<uint8_t> written;
};

// A rectangular region of a buffer with resolved (runtime) mins.
struct View {
  Storage* st = nullptr;
  std::vector<int64_t> mins, extents;
  std::vector<int64_t> trimmed;  // extents without leading unit dims
  int64_t count = 0;

  // Flat buffer offset of the region's i-th element (row-major over extents), or -1 when it
  // lies past the end of a GM tensor (a tail).
  int64_t Offset(int64_t i) const;
};

// A scalar value: integers stay exact, anything float is a double.
struct Scalar {
  bool is_float = false;
  int64_t i = 0;
  double f = 0;
  double AsDouble() const { return is_float ? f : static_cast<double>(i); }
  int64_t AsInt() const { return is_float ? static_cast<int64_t>(f) : i; }
};

enum class Part : uint8_t { kAll, kCube, kVector };

class Interp {
 public:
  Status Run(const ir::Kernel& kernel, const std::vector<HostTensor>& inputs,
             std::vector<HostTensor>* outputs);

  // Scalars and regions (tile_interp.cc).
  Result<Scalar> Eval(const ir::Expr& e);
  Result<View> Resolve(const ir::Region& r, SourceLoc loc);
  Result<double> Read(const View& v, int64_t i, SourceLoc loc, double pad = 0);
  void WriteElem(const View& v, int64_t i, double value);
  Status Error(SourceLoc loc, const std::string& message) const;

  // Tile ops (tile_interp_ops.cc).
  Status TileOp(const ir::TileOpNode& op);

 private:
  Status Exec(const ir::Stmt& s);
  Status ExecFor(const ir::ForNode& f);
  Status ExecBlock(const ir::KernelNode& k, int64_t cid, int64_t vid, Part part);
  bool InPart(const ir::TileOpNode& op) const;
  Storage* StorageOf(const ir::Buffer& b);

  std::map<const ir::BufferNode*, std::unique_ptr<Storage>> gm_, onchip_;
  std::map<const ir::VarNode*, Scalar> vars_;
  Part part_ = Part::kAll;
  Part scope_ = Part::kAll;  // the enclosing `scope` statement's part, if any
};

// Element-wise helpers (tile_interp_ops.cc).
double ApplyUnary(ir::TileOpCode op, double a);
double ApplyBinary(ir::TileOpCode op, double a, double b);

}  // namespace tilejit::devgen::internal
