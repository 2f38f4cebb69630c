// SPDX-License-Identifier: Apache-2.0
// Synchronisation statements (barriers, intra-core flags, cross-core flags) and
// T.annotate_address.
#include "compiler/frontend/tracer.h"

namespace tilejit::frontend {
namespace {

SourceLoc LocOr(const Value& v, SourceLoc dflt) { return v.loc.known() ? v.loc : dflt; }

}  // namespace

bool Tracer::TraceSync(const std::string& name, const Expr& call, const std::vector<Value>& args,
                       const KwArgs& kwargs, std::vector<ir::Stmt>* out) {
  auto pipe_of = [&](const Value& v, bool allow_all) -> std::optional<ir::Pipe> {
    std::optional<ir::Pipe> p;
    if (v.kind == ValueKind::kString) p = target::ParsePipe(v.text);
    if (!p || (!allow_all && *p == ir::Pipe::kAll)) {
      diag().Error(LocOr(v, call.loc))
          << "unknown pipe " << Repr(v) << " (expected one of fix, mte1, mte2, mte3, m, v, s"
          << (allow_all ? ", all)" : ")");
      return std::nullopt;
    }
    return p;
  };
  // A static id is range-checked; a runtime id is kept as an expression.
  auto id_of = [&](const Value& v, int64_t limit, const char* what) -> std::optional<ir::Expr> {
    if (v.kind == ValueKind::kInt) {
      if (v.i < 0 || v.i >= limit) {
        diag().Error(LocOr(v, call.loc))
            << what << " " << v.i << " is out of range 0.." << limit - 1;
        return std::nullopt;
      }
      return ir::IntImm(v.i, ir::DType::kInt32, LocOr(v, call.loc));
    }
    if (v.IsRuntime()) {
      auto e = ToExpr(v, LocOr(v, call.loc));
      if (e && ir::IsFloat((*e)->dtype)) {
        diag().Error(LocOr(v, call.loc)) << what << " must be an integer";
        return std::nullopt;
      }
      return e;
    }
    diag().Error(LocOr(v, call.loc))
        << what << " must be an int or a runtime integer, not " << TypeName(v);
    return std::nullopt;
  };
  if (name == "T.barrier_all") {
    if (!Bind(Signature{name, {}, 0}, args, kwargs, call.loc)) return false;
    out->push_back(std::make_shared<ir::BarrierNode>(ir::Pipe::kAll, call.loc));
    return true;
  }
  if (name == "T.pipe_barrier") {
    auto b = Bind(Signature{name, {"pipe"}, 1}, args, kwargs, call.loc);
    auto p = b ? pipe_of(*(*b)[0], true) : std::nullopt;
    if (!p) return false;
    out->push_back(std::make_shared<ir::BarrierNode>(*p, call.loc));
    return true;
  }
  if (name == "T.set_flag" || name == "T.wait_flag") {
    auto b = Bind(Signature{name, {"src", "dst", "event_id"}, 3}, args, kwargs, call.loc);
    auto src = b ? pipe_of(*(*b)[0], false) : std::nullopt;
    auto dst = src ? pipe_of(*(*b)[1], false) : std::nullopt;
    if (!dst) return false;
    if (*src == *dst) {
      diag().Error(call.loc) << name << " needs two different pipes";
      return false;
    }
    auto event = id_of(*(*b)[2], 8, "event id");
    if (!event) return false;
    auto kind = name == "T.set_flag" ? ir::StmtKind::kSetFlag : ir::StmtKind::kWaitFlag;
    out->push_back(std::make_shared<ir::FlagNode>(kind, *src, *dst, *event, call.loc));
    return true;
  }
  if (name == "T.set_cross_flag") {
    auto b = Bind(Signature{name, {"pipe", "flag", "mode"}, 2}, args, kwargs, call.loc);
    auto p = b ? pipe_of(*(*b)[0], false) : std::nullopt;
    auto flag = p ? id_of(*(*b)[1], 11, "cross-core flag id") : std::nullopt;
    if (!flag) return false;
    int64_t mode = 2;
    if ((*b)[2]) {
      const Value& m = *(*b)[2];
      if (m.kind != ValueKind::kInt || m.i < 0 || m.i > 2) {
        diag().Error(LocOr(m, call.loc)) << "cross-flag mode must be 0, 1 or 2, not " << Repr(m);
        return false;
      }
      mode = m.i;
    }
    out->push_back(std::make_shared<ir::CrossFlagNode>(ir::StmtKind::kSetCrossFlag, *p, *flag,
                                                       static_cast<int>(mode), call.loc));
    return true;
  }
  // T.wait_cross_flag(flag, pipe="")
  auto b = Bind(Signature{name, {"flag", "pipe"}, 1}, args, kwargs, call.loc);
  auto flag = b ? id_of(*(*b)[0], 11, "cross-core flag id") : std::nullopt;
  if (!flag) return false;
  std::optional<ir::Pipe> p = ir::Pipe::kS;
  if ((*b)[1] && !((*b)[1]->kind == ValueKind::kString && (*b)[1]->text.empty())) {
    p = pipe_of(*(*b)[1], false);
    if (!p) return false;
  }
  out->push_back(
      std::make_shared<ir::CrossFlagNode>(ir::StmtKind::kWaitCrossFlag, *p, *flag, 0, call.loc));
  return true;
}

bool Tracer::TraceAnnotateAddress(const Expr& call, const std::vector<Value>& args,
                                  const KwArgs& kwargs) {
  auto b = Bind(Signature{"T.annotate_address", {"address_map"}, 1}, args, kwargs, call.loc);
  if (!b) return false;
  const Value& map = *(*b)[0];
  if (map.kind != ValueKind::kDict) {
    diag().Error(LocOr(map, call.loc)) << "T.annotate_address takes a dict {buffer: byte_offset}";
    return false;
  }
  for (size_t n = 0; n < map.size(); ++n) {
    const Value& key = map.item(n);
    const Value& off = (*map.values)[n];
    auto it = key.kind == ValueKind::kBuffer ? mutable_buffers_.find(key.buffer.get())
                                             : mutable_buffers_.end();
    if (it == mutable_buffers_.end() || key.buffer->scope == ir::MemScope::kLocalVar) {
      diag().Error(LocOr(map, call.loc)) << "T.annotate_address keys must be on-chip buffers "
                                            "allocated in this kernel, not "
                                         << Repr(key);
      return false;
    }
    if (off.kind != ValueKind::kInt || off.i < 0) {
      diag().Error(LocOr(map, call.loc)) << "the address of '" << key.buffer->name
                                         << "' must be a non-negative int, not " << Repr(off);
      return false;
    }
    if (it->second->address && *it->second->address != off.i) {
      diag().Error(LocOr(map, call.loc))
          << "buffer '" << key.buffer->name << "' already has address " << *it->second->address;
      return false;
    }
    it->second->address = off.i;
  }
  return true;
}

}  // namespace tilejit::frontend
