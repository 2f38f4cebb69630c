// SPDX-License-Identifier: Apache-2.0
// The access model of sync_access.h. Ranges come from codegen's own layout table
// (ir::LayoutOf), so the bytes we order are the bytes codegen addresses; where a region
// index is a runtime value the range widens to the whole buffer rather than guess.
#include "compiler/analysis/sync_access.h"

#include <algorithm>
#include <optional>
#include <variant>

#include "common/check.h"
#include "compiler/ir/buffer_layout.h"
#include "compiler/ir/visitor.h"

namespace tilejit::analysis::sync {
namespace {

using target::Mem;

bool HasMemory(ir::MemScope s) {
  return s != ir::MemScope::kLocalVar && s != ir::MemScope::kShared && s != ir::MemScope::kFragment;
}

// The byte range of `region` in its buffer's layout, relative to the buffer's start.
std::pair<int64_t, int64_t> RegionBytes(const ir::Region& region,
                                        const target::TileLayout& layout) {
  const std::vector<int64_t>& shape = region.buffer->shape;
  const size_t rank = shape.size();
  const size_t lead = rank > 2 ? rank - 2 : 0;
  std::pair<int64_t, int64_t> whole{0, layout.bytes};
  if (region.ranges.size() != rank) return whole;
  // Batch (leading) dims: the row-major span of matrices the box covers.
  int64_t lo = 0, hi = 0;
  for (size_t d = 0; d < lead; ++d) {
    std::optional<int64_t> mn = ir::AsConstInt(region.ranges[d].min);
    if (!mn) return whole;
    lo = lo * shape[d] + *mn;
    hi = hi * shape[d] + *mn + region.ranges[d].extent - 1;
  }
  std::pair<int64_t, int64_t> out{lo * layout.matrix_bytes, (hi + 1) * layout.matrix_bytes};
  if (lo != hi || layout.kind != target::LayoutKind::kND || rank == 0) return out;
  // One ND matrix: narrow to the rows (or, for a vector, the elements) the box covers.
  const ir::Range& inner = rank >= 2 ? region.ranges[rank - 2] : region.ranges[0];
  std::optional<int64_t> first = ir::AsConstInt(inner.min);
  if (!first) return out;
  const int64_t unit = rank >= 2 ? layout.pitch : layout.elem_bytes;
  const int64_t b = out.first + *first * unit;
  const int64_t e = b + inner.extent * unit;
  return {std::max(b, out.first), std::min(e, out.second)};
}

Access AccessOf(const ir::Region& region, bool write, const target::NpuTarget& target) {
  const ir::BufferNode& buf = *region.buffer;
  const target::TileLayout layout = ir::LayoutOf(buf, target);
  auto [b, e] = RegionBytes(region, layout);
  Access a;
  a.mem = ir::MemOf(buf.scope);
  a.write = write;
  if (a.mem == Mem::kGM || !buf.address.has_value()) {
    a.tensor = region.buffer.get();
    a.begin = b;
    a.end = e;
  } else {
    a.begin = *buf.address + b;
    a.end = *buf.address + e;
  }
  return a;
}

Access ElementAccess(const ir::Buffer& buf, const std::vector<ir::Expr>& idx, bool write,
                     const target::NpuTarget& target) {
  ir::Region r{buf, {}, {}};
  for (const ir::Expr& i : idx) r.ranges.push_back(ir::Range{i, 1});
  return AccessOf(r, write, target);
}

// Every buffer load under an expression: a scalar-unit read.
class LoadCollector : public ir::Visitor {
 public:
  LoadCollector(const target::NpuTarget& t, std::vector<Access>* out) : t_(t), out_(out) {}
  void VisitLoad(const ir::LoadNode& op) override {
    if (HasMemory(op.buffer->scope))
      out_->push_back(ElementAccess(op.buffer, op.indices, false, t_));
    ir::Visitor::VisitLoad(op);
  }

 private:
  const target::NpuTarget& t_;
  std::vector<Access>* out_;
};

void ScalarReads(const ir::Expr& e, const target::NpuTarget& t, std::vector<Access>* out) {
  if (e != nullptr) LoadCollector(t, out).Visit(e);
}

void RegionIndexReads(const ir::Region& r, const target::NpuTarget& t, std::vector<Access>* out) {
  for (const ir::Range& rg : r.ranges) ScalarReads(rg.min, t, out);
}

ir::Pipe CopyPipe(Mem src, Mem dst) {
  switch (src) {
    case Mem::kGM:
      return ir::Pipe::kMte2;
    case Mem::kL1:
      return dst == Mem::kGM ? ir::Pipe::kMte3 : ir::Pipe::kMte1;
    case Mem::kL0C:
      return ir::Pipe::kFix;
    case Mem::kUB:
      return dst == Mem::kUB ? ir::Pipe::kV : ir::Pipe::kMte3;
    default:
      return ir::Pipe::kV;
  }
}

// Device printing runs on the scalar unit, in order: a printf reads its values there, and a
// dump is preceded by barrier(all) (codegen, debug_print.cc) and done before the next
// instruction issues, so only the scalar reads of values and indices need ordering.
std::vector<Part> DebugParts(const ir::TileOpNode& op, const target::NpuTarget& t) {
  Part scalar{ir::Pipe::kS, {}};
  for (const ir::Operand& arg : op.args) {
    if (const auto* r = std::get_if<ir::Region>(&arg)) {
      RegionIndexReads(*r, t, &scalar.accesses);
    } else {
      ScalarReads(std::get<ir::Expr>(arg), t, &scalar.accesses);
    }
  }
  return {std::move(scalar)};
}

std::vector<Part> TileOpParts(const ir::TileOpNode& op, const target::NpuTarget& t) {
  if (ir::TileOpFamilyOf(op.op) == ir::TileOpFamily::kDebug) return DebugParts(op, t);
  Part scalar{ir::Pipe::kS, {}};
  Part work{ir::Pipe::kV, {}};
  const ir::Region* first = nullptr;
  for (const ir::Operand& arg : op.args) {
    if (const auto* r = std::get_if<ir::Region>(&arg)) {
      if (first == nullptr) first = r;
      RegionIndexReads(*r, t, &scalar.accesses);
    }
  }
  if (op.op == ir::TileOpCode::kCopy && op.args.size() == 2 && first != nullptr &&
      std::holds_alternative<ir::Region>(op.args[1])) {
    const ir::Region& src = std::get<ir::Region>(op.args[1]);
    work.pipe = CopyPipe(ir::MemOf(src.buffer->scope), ir::MemOf(first->buffer->scope));
  } else if (op.op == ir::TileOpCode::kMma || op.op == ir::TileOpCode::kGemmV0) {
    work.pipe = ir::Pipe::kM;
  } else if (op.op == ir::TileOpCode::kFill && first != nullptr &&
             first->buffer->scope == ir::MemScope::kL1) {
    work.pipe = ir::Pipe::kMte2;  // fill_l1
  }
  for (size_t i = 0; i < op.args.size(); ++i) {
    if (const auto* r = std::get_if<ir::Region>(&op.args[i])) {
      if (!HasMemory(r->buffer->scope)) continue;
      Access a = AccessOf(*r, i == 0, t);
      if (i == 0 && op.op == ir::TileOpCode::kMma) {
        bool exact = true;
        for (const ir::Range& rg : r->ranges) exact = exact && ir::AsConstInt(rg.min).has_value();
        if (exact) {
          a.acc_buffer = r->buffer.get();
          for (const ir::Range& rg : r->ranges) a.acc_box.push_back(*ir::AsConstInt(rg.min));
          for (const ir::Range& rg : r->ranges) a.acc_box.push_back(rg.extent);
        }
      }
      work.accesses.push_back(std::move(a));
      continue;
    }
    // A scalar operand: a UB element of the op's own element type is read by the vector unit
    // (the *_ub instruction forms); any other load goes through the scalar unit.
    const ir::Expr& e = std::get<ir::Expr>(op.args[i]);
    const auto* load = ir::TryAs<ir::LoadNode>(e);
    if (load != nullptr && load->buffer->scope == ir::MemScope::kUB && first != nullptr &&
        load->indices.size() == load->buffer->shape.size() &&
        load->buffer->dtype == first->buffer->dtype && work.pipe == ir::Pipe::kV) {
      work.accesses.push_back(ElementAccess(load->buffer, load->indices, false, t));
      for (const ir::Expr& idx : load->indices) ScalarReads(idx, t, &scalar.accesses);
    } else {
      ScalarReads(e, t, &scalar.accesses);
    }
  }
  for (const ir::Attr& attr : op.attrs) {
    if (const auto* e = std::get_if<ir::Expr>(&attr.value)) ScalarReads(*e, t, &scalar.accesses);
  }
  std::vector<Part> parts;
  if (!scalar.accesses.empty()) parts.push_back(std::move(scalar));
  parts.push_back(std::move(work));
  return parts;
}

}  // namespace

std::vector<Part> DescribeStmt(const ir::Stmt& s, const target::NpuTarget& target) {
  Part scalar{ir::Pipe::kS, {}};
  switch (s->kind) {
    case ir::StmtKind::kTileOp:
      return TileOpParts(ir::As<ir::TileOpNode>(s), target);
    case ir::StmtKind::kStore: {
      const auto& st = ir::As<ir::StoreNode>(s);
      ScalarReads(st.value, target, &scalar.accesses);
      for (const ir::Expr& i : st.indices) ScalarReads(i, target, &scalar.accesses);
      if (HasMemory(st.buffer->scope)) {
        scalar.accesses.push_back(ElementAccess(st.buffer, st.indices, true, target));
      }
      break;
    }
    case ir::StmtKind::kFor: {
      const auto& f = ir::As<ir::ForNode>(s);
      ScalarReads(f.min, target, &scalar.accesses);
      ScalarReads(f.extent, target, &scalar.accesses);
      break;
    }
    case ir::StmtKind::kIf:
      ScalarReads(ir::As<ir::IfNode>(s).cond, target, &scalar.accesses);
      break;
    case ir::StmtKind::kLet:
      ScalarReads(ir::As<ir::LetNode>(s).value, target, &scalar.accesses);
      break;
    case ir::StmtKind::kSetFlag:
    case ir::StmtKind::kWaitFlag: {
      const auto& f = ir::As<ir::FlagNode>(s);
      const std::optional<int64_t> id = ir::AsConstInt(f.event);
      if (!id) return {};
      Access a;
      a.write = true;
      a.event_group = static_cast<int>(f.src) * 8 + static_cast<int>(f.dst);
      a.event_id = *id;
      a.event_set = s->kind == ir::StmtKind::kSetFlag;
      return {Part{a.event_set ? f.src : f.dst, {a}}};
    }
    default:
      break;
  }
  if (scalar.accesses.empty()) return {};
  return {std::move(scalar)};
}

bool Conflicts(const Access& a, const Access& b) {
  if (a.event_group >= 0 || b.event_group >= 0) return false;
  if (!a.write && !b.write) return false;
  if (a.mem != b.mem || a.tensor != b.tensor) return false;
  if (a.end <= b.begin || b.end <= a.begin) return false;
  if (a.acc_buffer != nullptr && a.acc_buffer == b.acc_buffer && a.acc_box == b.acc_box) {
    return false;
  }
  return true;
}

}  // namespace tilejit::analysis::sync
