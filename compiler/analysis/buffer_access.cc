// SPDX-License-Identifier: Apache-2.0
// One place for the read/write rule of tile ops, so that the two buffer passes agree on what
// "first written" and "last used" mean.
#include "compiler/analysis/buffer_access.h"

#include <initializer_list>
#include <variant>

#include "compiler/ir/visitor.h"

namespace tilejit::analysis {
namespace {

// Loads inside expressions (reads of single elements).
class LoadCollector : public ir::Visitor {
 public:
  explicit LoadCollector(std::vector<BufferAccess>* out) : out_(out) {}

 protected:
  void VisitLoad(const ir::LoadNode& op) override {
    out_->push_back({op.buffer.get(), false, nullptr});
    ir::Visitor::VisitLoad(op);
  }

 private:
  std::vector<BufferAccess>* out_;
};

void AddLoads(const ir::Expr& e, std::vector<BufferAccess>* out) {
  if (e != nullptr) LoadCollector(out).Visit(e);
}

void AddRegion(const ir::Region& r, bool write, std::vector<BufferAccess>* out) {
  out->push_back({r.buffer.get(), write, &r});
  for (const ir::Range& range : r.ranges) AddLoads(range.min, out);
}

void AddTileOp(const ir::TileOpNode& op, std::vector<BufferAccess>* out) {
  const bool has_dst = ir::TileOpFamilyOf(op.op) != ir::TileOpFamily::kDebug;  // dumps read
  for (size_t i = 0; i < op.args.size(); ++i) {
    if (const auto* r = std::get_if<ir::Region>(&op.args[i])) {
      if (i == 0 && has_dst) {
        AddRegion(*r, true, out);
        if (ReadsDestination(op)) out->push_back({r->buffer.get(), false, r});
      } else if (ir::SortScratch(op) == i) {  // written, then read, by the op alone
        AddRegion(*r, true, out);
        out->push_back({r->buffer.get(), false, r});
      } else {
        AddRegion(*r, false, out);
      }
    } else {
      AddLoads(std::get<ir::Expr>(op.args[i]), out);
    }
  }
  for (const ir::Attr& a : op.attrs) {
    if (const auto* e = std::get_if<ir::Expr>(&a.value)) AddLoads(*e, out);
  }
}

bool BoolAttrIs(const ir::TileOpNode& op, std::string_view key, bool value) {
  const ir::AttrValue* v = op.FindAttr(key);
  return v != nullptr && std::holds_alternative<bool>(*v) && std::get<bool>(*v) == value;
}

}  // namespace

bool ReadsDestination(const ir::TileOpNode& op) {
  switch (ir::TileOpFamilyOf(op.op)) {
    case ir::TileOpFamily::kCube:
      return !BoolAttrIs(op, "init", true);
    case ir::TileOpFamily::kReduce:
      return BoolAttrIs(op, "clear", false);
    case ir::TileOpFamily::kAxpy:
      return true;
    case ir::TileOpFamily::kBinary:  // mul_add_dst: dst = src0 * src1 + dst
      return op.op == ir::TileOpCode::kMulAddDst;
    case ir::TileOpFamily::kCopy:  // T.tile.atomic_add: the store adds to what GM holds
      return BoolAttrIs(op, "atomic_add", true);
    default:
      return false;
  }
}

std::vector<BufferAccess> AccessesOf(const ir::StmtNode& s) {
  std::vector<BufferAccess> out;
  switch (s.kind) {
    case ir::StmtKind::kTileOp:
      AddTileOp(static_cast<const ir::TileOpNode&>(s), &out);
      break;
    case ir::StmtKind::kStore: {
      const auto& st = static_cast<const ir::StoreNode&>(s);
      for (const ir::Expr& i : st.indices) AddLoads(i, &out);
      AddLoads(st.value, &out);
      out.push_back({st.buffer.get(), true, nullptr});
      break;
    }
    case ir::StmtKind::kFor: {
      const auto& f = static_cast<const ir::ForNode&>(s);
      AddLoads(f.min, &out);
      AddLoads(f.extent, &out);
      break;
    }
    case ir::StmtKind::kIf:
      AddLoads(static_cast<const ir::IfNode&>(s).cond, &out);
      break;
    case ir::StmtKind::kLet:
      AddLoads(static_cast<const ir::LetNode&>(s).value, &out);
      break;
    case ir::StmtKind::kSetFlag:
    case ir::StmtKind::kWaitFlag:
      AddLoads(static_cast<const ir::FlagNode&>(s).event, &out);
      break;
    case ir::StmtKind::kSetCrossFlag:
    case ir::StmtKind::kWaitCrossFlag:
      AddLoads(static_cast<const ir::CrossFlagNode&>(s).flag, &out);
      break;
    case ir::StmtKind::kKernel:
      AddLoads(static_cast<const ir::KernelNode&>(s).grid, &out);
      break;
    default:
      break;
  }
  return out;
}

namespace {

class Tracer {
 public:
  explicit Tracer(AccessTrace* out) : out_(out) {}

  void Walk(const ir::Stmt& s) {
    if (s == nullptr) return;
    if (const auto* seq = ir::TryAs<ir::SeqNode>(s)) {
      for (const ir::Stmt& c : seq->stmts) Walk(c);
      return;
    }
    const int pos = out_->num_positions++;
    for (const BufferAccess& a : AccessesOf(*s))
      out_->accesses.push_back({pos, a, s.get(), current_});
    switch (s->kind) {
      case ir::StmtKind::kAllocate:
        out_->allocs.emplace_back(&ir::As<ir::AllocateNode>(s), pos);
        break;
      case ir::StmtKind::kKernel:
        Walk(ir::As<ir::KernelNode>(s).body);
        break;
      case ir::StmtKind::kLet:
        Walk(ir::As<ir::LetNode>(s).body);
        break;
      case ir::StmtKind::kCoreScope:
        Walk(ir::As<ir::CoreScopeNode>(s).body);
        break;
      case ir::StmtKind::kFor:
        Control(s, pos, true, {ir::As<ir::ForNode>(s).body});
        break;
      case ir::StmtKind::kIf: {
        const auto& f = ir::As<ir::IfNode>(s);
        Control(s, pos, false, {f.then_body, f.else_body});
        break;
      }
      default:
        break;
    }
  }

 private:
  void Control(const ir::Stmt& s, int pos, bool loop, std::initializer_list<ir::Stmt> bodies) {
    const int index = static_cast<int>(out_->controls.size());
    out_->controls.push_back({s.get(), pos, pos, current_, loop});
    const int saved = current_;
    current_ = index;
    for (const ir::Stmt& b : bodies) Walk(b);
    current_ = saved;
    out_->controls[index].end = out_->num_positions - 1;
  }

  AccessTrace* out_;
  int current_ = -1;
};

}  // namespace

AccessTrace TraceAccesses(const ir::Stmt& root) {
  AccessTrace trace;
  Tracer(&trace).Walk(root);
  return trace;
}

}  // namespace tilejit::analysis
