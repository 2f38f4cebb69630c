// SPDX-License-Identifier: Apache-2.0
// Synchronisation statements (barriers, intra-core flags, cross-core flags), and T.func_attr,
// whose attributes are warned about: TileLang-Ascend uses it for "enable_auto_sync", which its
// compiler does not read either (sync insertion is a pass_config), and tilejit reads no
// function attributes, so saying so is more honest than dropping them silently.
#include "common/check.h"
#include "compiler/frontend/tracer.h"

namespace tilejit::frontend {
namespace {

std::optional<ir::Pipe> PipeOf(const Value& v, bool allow_all, SourceLoc loc,
                               DiagnosticEngine& diag) {
  std::optional<ir::Pipe> p;
  if (v.kind == ValueKind::kString) p = target::ParsePipe(v.text);
  if (!p || (!allow_all && *p == ir::Pipe::kAll)) {
    diag.Error(LocOr(v, loc)) << "unknown pipe " << Repr(v)
                              << " (expected one of fix, mte1, mte2, mte3, m, v, s"
                              << (allow_all ? ", all)" : ")");
    return std::nullopt;
  }
  return p;
}

}  // namespace

// A static id is range-checked; a runtime id is kept as an expression.
std::optional<ir::Expr> Tracer::SyncId(const Value& v, int64_t limit, const char* what,
                                       SourceLoc loc) {
  if (v.kind == ValueKind::kInt) {
    if (v.i < 0 || v.i >= limit) {
      diag().Error(LocOr(v, loc)) << what << " " << v.i << " is out of range 0.." << limit - 1;
      return std::nullopt;
    }
    return ir::IntImm(v.i, ir::DType::kInt32, LocOr(v, loc));
  }
  if (v.IsRuntime()) {
    auto e = ToExpr(v, LocOr(v, loc));
    if (e && ir::IsFloat((*e)->dtype)) {
      diag().Error(LocOr(v, loc)) << what << " must be an integer";
      return std::nullopt;
    }
    return e;
  }
  diag().Error(LocOr(v, loc)) << what << " must be an int or a runtime integer, not "
                              << TypeName(v);
  return std::nullopt;
}

bool Tracer::TraceSync(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                       std::vector<ir::Stmt>* out) {
  const SourceLoc loc = call.loc;
  switch (row.handler) {
    case BuiltinHandler::kFuncAttr: {
      const Value& attrs = *b[0];
      if (attrs.kind != ValueKind::kDict) {
        diag().Error(LocOr(attrs, loc))
            << "T.func_attr takes a dict of attribute names to values, not " << TypeName(attrs);
        return false;
      }
      for (const Value& key : *attrs.items) {
        diag().Warning(LocOr(key, loc))
            << "T.func_attr " << Repr(key) << " is ignored: tilejit reads no function attributes"
            << (key.kind == ValueKind::kString && key.text == "enable_auto_sync"
                    ? " (sync insertion is the pass_config tl.ascend_auto_sync)"
                    : "");
      }
      return true;
    }
    case BuiltinHandler::kBarrierAll:
      out->push_back(std::make_shared<ir::BarrierNode>(ir::Pipe::kAll, loc));
      return true;
    case BuiltinHandler::kSyncAll:
      out->push_back(
          std::make_shared<ir::BarrierNode>(ir::Pipe::kAll, loc, ir::SyncOrigin::kAuthor, true));
      return true;
    case BuiltinHandler::kPipeBarrier: {
      auto p = PipeOf(*b[0], true, loc, diag());
      if (!p) return false;
      out->push_back(std::make_shared<ir::BarrierNode>(*p, loc));
      return true;
    }
    case BuiltinHandler::kSetFlag:
    case BuiltinHandler::kWaitFlag: {
      auto src = PipeOf(*b[0], false, loc, diag());
      auto dst = src ? PipeOf(*b[1], false, loc, diag()) : std::nullopt;
      if (!dst) return false;
      if (*src == *dst) {
        diag().Error(loc) << row.name << " needs two different pipes";
        return false;
      }
      auto event = SyncId(*b[2], 8, "event id", loc);
      if (!event) return false;
      auto kind = row.handler == BuiltinHandler::kSetFlag ? ir::StmtKind::kSetFlag
                                                          : ir::StmtKind::kWaitFlag;
      out->push_back(std::make_shared<ir::FlagNode>(kind, *src, *dst, *event, loc));
      return true;
    }
    case BuiltinHandler::kSetCrossFlag: {
      auto p = PipeOf(*b[0], false, loc, diag());
      auto flag = p ? SyncId(*b[1], 11, "cross-core flag id", loc) : std::nullopt;
      if (!flag) return false;
      const Value& m = *b[2];
      if (m.kind != ValueKind::kInt || m.i < 0 || m.i > 2) {
        diag().Error(LocOr(m, loc)) << "cross-flag mode must be 0, 1 or 2, not " << Repr(m);
        return false;
      }
      out->push_back(std::make_shared<ir::CrossFlagNode>(ir::StmtKind::kSetCrossFlag, *p, *flag,
                                                         static_cast<int>(m.i), loc));
      return true;
    }
    case BuiltinHandler::kWaitCrossFlag: {
      auto flag = SyncId(*b[0], 11, "cross-core flag id", loc);
      if (!flag) return false;
      std::optional<ir::Pipe> p = ir::Pipe::kS;  // pipe="" waits on the scalar pipe
      if (!(b[1]->kind == ValueKind::kString && b[1]->text.empty())) {
        p = PipeOf(*b[1], false, loc, diag());
        if (!p) return false;
      }
      out->push_back(
          std::make_shared<ir::CrossFlagNode>(ir::StmtKind::kWaitCrossFlag, *p, *flag, 0, loc));
      return true;
    }
    default:
      TILEJIT_CHECK(false) << row.name << " is not a sync statement";
      return false;
  }
}

ir::BufferNode* Tracer::AnnotatedBuffer(const Value& key, std::string_view what, SourceLoc loc) {
  auto it = key.kind == ValueKind::kBuffer ? mutable_buffers_.find(key.buffer.get())
                                           : mutable_buffers_.end();
  if (it != mutable_buffers_.end() && key.buffer->scope != ir::MemScope::kLocalVar) {
    return it->second.get();
  }
  diag().Error(loc) << what << " keys must be on-chip buffers allocated in this kernel, not "
                    << Repr(key);
  return nullptr;
}

bool Tracer::TraceAnnotateAddress(const Expr& call, const BoundArgs& b) {
  const Value& map = *b[0];
  if (map.kind != ValueKind::kDict) {
    diag().Error(LocOr(map, call.loc)) << "T.annotate_address takes a dict {buffer: byte_offset}";
    return false;
  }
  for (size_t n = 0; n < map.size(); ++n) {
    const Value& key = map.item(n);
    const Value& off = (*map.values)[n];
    ir::BufferNode* buffer = AnnotatedBuffer(key, "T.annotate_address", LocOr(map, call.loc));
    if (buffer == nullptr) return false;
    if (off.kind != ValueKind::kInt || off.i < 0) {
      diag().Error(LocOr(map, call.loc)) << "the address of '" << key.buffer->name
                                         << "' must be a non-negative int, not " << Repr(off);
      return false;
    }
    if (buffer->address && *buffer->address != off.i) {
      diag().Error(LocOr(map, call.loc))
          << "buffer '" << buffer->name << "' already has address " << *buffer->address;
      return false;
    }
    buffer->address = off.i;
  }
  return true;
}

// L1 tiles are zN (docs/isa.md section 3) whatever is annotated: gemm_v0's transpose_B reads
// a zN tile transposed on its way to L0B, which is what upstream's nZ buys, so an nZ
// annotation changes no result; it and any layout on a non-L1 buffer are warned about.
bool Tracer::TraceAnnotateLayout(const Expr& call, const BoundArgs& b) {
  const Value& map = *b[0];
  if (map.kind != ValueKind::kDict) {
    diag().Error(LocOr(map, call.loc)) << "T.annotate_layout takes a dict {buffer: layout}";
    return false;
  }
  for (size_t n = 0; n < map.size(); ++n) {
    const Value& key = map.item(n);
    const Value& layout = (*map.values)[n];
    if (AnnotatedBuffer(key, "T.annotate_layout", LocOr(map, call.loc)) == nullptr) return false;
    if (layout.kind != ValueKind::kString || (layout.text != "zN" && layout.text != "nZ")) {
      diag().Error(LocOr(map, call.loc))
          << "the layout of '" << key.buffer->name
          << "' must be make_zn_layout(buf) or make_nz_layout(buf), not " << Repr(layout);
      return false;
    }
    const ir::MemScope scope = key.buffer->scope;
    const bool l1 = scope == ir::MemScope::kL1 || scope == ir::MemScope::kShared;
    if (l1 && layout.text == "zN") continue;
    diag().Warning(LocOr(map, call.loc))
        << "layout " << layout.text << " of '" << key.buffer->name << "' is ignored: "
        << (l1 ? "L1 tiles are stored zN; gemm_v0's transpose_B reads one transposed"
               : "only L1 tiles have a fractal layout in tilejit");
  }
  return true;
}

}  // namespace tilejit::frontend
