// SPDX-License-Identifier: Apache-2.0
// T.* statement calls: dispatch, operand conversion, cube ops (gemm_v0, mma), vector tile
// ops (T.tile.*), reductions. Copies are in trace_copy.cc, sync in trace_sync.cc.
#include "compiler/frontend/shape_rules.h"
#include "compiler/frontend/tracer.h"

namespace tilejit::frontend {
namespace {

constexpr std::string_view kCastModes[] = {"CAST_NONE",  "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                           "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
constexpr std::string_view kCompareModes[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
constexpr std::string_view kSelectModes[] = {"VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE",
                                             "VSEL_TENSOR_TENSOR_MODE"};

template <size_t N>
bool OneOf(const std::string& s, const std::string_view (&list)[N]) {
  for (std::string_view x : list) {
    if (x == s) return true;
  }
  return false;
}

template <size_t N>
std::string Join(const std::string_view (&list)[N]) {
  std::string out;
  for (std::string_view x : list) out += (out.empty() ? "" : ", ") + std::string(x);
  return out;
}

SourceLoc LocOr(const Value& v, SourceLoc dflt) { return v.loc.known() ? v.loc : dflt; }

}  // namespace

bool Tracer::TraceOpCall(const std::string& name, const Expr& call, const std::vector<Value>& args,
                         const KwArgs& kwargs, std::vector<ir::Stmt>* out) {
  if (!frame_.in_kernel) {
    diag().Error(call.loc) << name << " must be used inside 'with T.Kernel(...)'";
    return false;
  }
  if (name == "T.copy") return TraceCopy(call, args, kwargs, out);
  if (name == "T.gemm_v0" || name == "T.mma") return TraceGemm(name, call, args, kwargs, out);
  if (name.rfind("T.tile.", 0) == 0) return TraceTileOp(name.substr(7), call, args, kwargs, out);
  if (name.rfind("T.reduce_", 0) == 0) return TraceReduce(name, call, args, kwargs, out);
  if (name == "T.annotate_address") return TraceAnnotateAddress(call, args, kwargs);
  if (name == "T.barrier_all" || name == "T.pipe_barrier" || name == "T.set_flag" ||
      name == "T.wait_flag" || name == "T.set_cross_flag" || name == "T.wait_cross_flag") {
    return TraceSync(name, call, args, kwargs, out);
  }
  if (name == "T.Kernel" || name == "T.Scope") {
    diag().Error(call.loc) << name << " must be used in a 'with' statement";
  } else if (name == "T.serial" || name == "T.Pipelined" || name == "T.Parallel" ||
             name == "range") {
    diag().Error(call.loc) << name << " can only be used as a for-loop iterator";
  } else if (name.rfind("T.alloc_", 0) == 0) {
    diag().Error(call.loc) << "the result of " << name << "(...) must be assigned to a name";
  } else {
    diag().Error(call.loc) << name << " is only valid as a prim_func parameter annotation";
  }
  return false;
}

std::optional<ir::Region> Tracer::RegionOperand(const Value& v, std::string_view what,
                                                SourceLoc loc) {
  if (v.kind == ValueKind::kBuffer) {
    if (v.buffer->scope == ir::MemScope::kLocalVar) {
      diag().Error(LocOr(v, loc)) << what << " must be a tile, not the scalar variable '"
                                  << v.buffer->name << "'";
      return std::nullopt;
    }
    return ir::WholeBuffer(v.buffer, LocOr(v, loc));
  }
  if (v.kind == ValueKind::kRegion) {
    ir::Region r = v.region;
    r.loc = LocOr(v, loc);
    return r;
  }
  diag().Error(LocOr(v, loc)) << what << " must be a buffer or a buffer region, not a "
                              << TypeName(v);
  return std::nullopt;
}

std::optional<ir::Expr> Tracer::ScalarOperand(const Value& v, ir::DType like, std::string_view what,
                                              SourceLoc loc) {
  SourceLoc at = LocOr(v, loc);
  if (v.kind == ValueKind::kFloat || (v.kind == ValueKind::kInt && ir::IsFloat(like))) {
    double d = v.kind == ValueKind::kFloat ? v.f : static_cast<double>(v.i);
    return ir::FloatImm(d, ir::IsFloat(like) ? like : ir::DType::kFloat32, at);
  }
  if (v.kind == ValueKind::kInt || v.kind == ValueKind::kBool) {
    return ir::IntImm(v.kind == ValueKind::kInt ? v.i : v.b,
                      ir::IsInt(like) ? like : ir::DType::kInt32, at);
  }
  if (v.IsRuntime()) return ToExpr(v, at);
  diag().Error(at) << what << " must be a number, a runtime scalar or a buffer element, not a "
                   << TypeName(v);
  return std::nullopt;
}

std::optional<bool> Tracer::FlagArg(const std::optional<Value>& v, bool dflt, std::string_view what,
                                    SourceLoc loc) {
  if (!v) return dflt;
  if (v->kind == ValueKind::kBool) return v->b;
  diag().Error(LocOr(*v, loc)) << what << " must be a constant True or False, not " << Repr(*v);
  return std::nullopt;
}

bool Tracer::TraceGemm(const std::string& name, const Expr& call, const std::vector<Value>& args,
                       const KwArgs& kwargs, std::vector<ir::Stmt>* out) {
  bool is_gemm = name == "T.gemm_v0";
  Signature sig{name, {"A", "B", "C"}, 3};
  if (is_gemm) sig.params = {"A", "B", "C", "transpose_A", "transpose_B", "init"};
  if (!is_gemm) sig.params.push_back("init");
  auto b = Bind(sig, args, kwargs, call.loc);
  if (!b) return false;
  auto A = RegionOperand(*(*b)[0], "operand A", call.loc);
  auto B = A ? RegionOperand(*(*b)[1], "operand B", call.loc) : std::nullopt;
  auto C = B ? RegionOperand(*(*b)[2], "operand C", call.loc) : std::nullopt;
  if (!C) return false;
  std::optional<bool> ta = false, tb = false;
  if (is_gemm) {
    ta = FlagArg((*b)[3], false, "transpose_A", call.loc);
    tb = ta ? FlagArg((*b)[4], false, "transpose_B", call.loc) : std::nullopt;
    if (!tb) return false;
  }
  const std::optional<Value>& init_arg = (*b)[is_gemm ? 5 : 3];
  ir::AttrValue init = false;
  if (init_arg) {
    if (init_arg->kind == ValueKind::kBool) {
      init = init_arg->b;
    } else if (init_arg->IsRuntime()) {
      auto e = ToExpr(*init_arg, init_arg->loc);
      if (!e) return false;
      init = *e;
    } else {
      diag().Error(LocOr(*init_arg, call.loc))
          << "init must be a bool or a runtime condition, not " << Repr(*init_arg);
      return false;
    }
  }
  std::vector<int64_t> a = A->TrimmedShape(), bs = B->TrimmedShape(), c = C->TrimmedShape();
  for (const auto& [shape, label] : {std::pair{a, "A"}, std::pair{bs, "B"}, std::pair{c, "C"}}) {
    if (shape.size() != 2) {
      diag().Error(call.loc) << name << " operand " << label
                             << " must be 2-D after dropping leading unit dims, got "
                             << ShapeText(shape);
      return false;
    }
  }
  int64_t M = *ta ? a[1] : a[0], K = *ta ? a[0] : a[1];
  int64_t Kb = *tb ? bs[1] : bs[0], N = *tb ? bs[0] : bs[1];
  if (K != Kb || c[0] != M || c[1] != N) {
    diag().Error(call.loc) << name << " shape mismatch: A is " << ShapeText(a)
                           << (*ta ? " (transposed)" : "") << " giving M=" << M << ", K=" << K
                           << "; B is " << ShapeText(bs) << (*tb ? " (transposed)" : "")
                           << " giving K=" << Kb << ", N=" << N << "; C is " << ShapeText(c)
                           << " but must be " << ShapeText({M, N});
    return false;
  }
  std::vector<ir::Attr> attrs{{"init", init}};
  if (is_gemm) {
    attrs.push_back({"transpose_A", *ta});
    attrs.push_back({"transpose_B", *tb});
  }
  out->push_back(ir::MakeTileOp(is_gemm ? ir::TileOpCode::kGemmV0 : ir::TileOpCode::kMma,
                                {*C, *A, *B}, std::move(attrs), call.loc));
  return true;
}

bool Tracer::TraceTileOp(const std::string& op, const Expr& call, const std::vector<Value>& args,
                         const KwArgs& kwargs, std::vector<ir::Stmt>* out) {
  const std::string name = "T.tile." + op;
  auto code = ir::ParseTileOp(op == "clear" ? "fill" : op);
  auto emit = [&](std::vector<ir::Operand> operands, std::vector<ir::Attr> attrs = {}) {
    out->push_back(ir::MakeTileOp(*code, std::move(operands), std::move(attrs), call.loc));
    return true;
  };
  auto same_shape = [&](const ir::Region& x, const ir::Region& y, const char* xn, const char* yn) {
    if (x.TrimmedShape() == y.TrimmedShape()) return true;
    diag().Error(call.loc) << name << " shape mismatch: " << xn << " is "
                           << ShapeText(x.TrimmedShape()) << " but " << yn << " is "
                           << ShapeText(y.TrimmedShape());
    return false;
  };
  if (!code) {
    diag().Error(call.loc) << name << " is not supported yet";
    return false;
  }
  if (op == "fill" || op == "clear") {
    auto b = op == "fill" ? Bind(Signature{name, {"dst", "value"}, 2}, args, kwargs, call.loc)
                          : Bind(Signature{name, {"dst"}, 1}, args, kwargs, call.loc);
    if (!b) return false;
    auto dst = RegionOperand(*(*b)[0], "destination", call.loc);
    if (!dst) return false;
    auto v = ScalarOperand(op == "fill" ? *(*b)[1] : Value::Int(0), dst->buffer->dtype,
                           "fill value", call.loc);
    return v && emit({*dst, *v});
  }
  if (op == "add" || op == "sub" || op == "mul" || op == "div" || op == "max" || op == "min") {
    auto b = Bind(Signature{name, {"dst", "src0", "src1"}, 3}, args, kwargs, call.loc);
    if (!b) return false;
    auto dst = RegionOperand(*(*b)[0], "destination", call.loc);
    auto src0 = dst ? RegionOperand(*(*b)[1], "first source", call.loc) : std::nullopt;
    if (!src0 || !same_shape(*dst, *src0, "destination", "first source")) return false;
    const Value& s1 = *(*b)[2];
    if (s1.kind == ValueKind::kBuffer || s1.kind == ValueKind::kRegion) {
      auto src1 = RegionOperand(s1, "second source", call.loc);
      if (!src1) return false;
      if (!BinaryBroadcast(*dst, *src1)) {
        diag().Error(LocOr(s1, call.loc))
            << name << " shape mismatch: destination is " << ShapeText(dst->TrimmedShape())
            << " but the second source is " << ShapeText(KeepLastTwo(Extents(*src1)))
            << " (expected the same shape, [R] or [R, 1] per row, or [1, C] per column)";
        return false;
      }
      return emit({*dst, *src0, *src1});
    }
    auto scalar = ScalarOperand(s1, dst->buffer->dtype, "second source", call.loc);
    return scalar && emit({*dst, *src0, *scalar});
  }
  if (op == "exp" || op == "ln" || op == "sqrt" || op == "rsqrt" || op == "reciprocal" ||
      op == "abs" || op == "relu" || op == "sigmoid" || op == "broadcast") {
    Signature sig{name, {"dst", "src"}, 2};
    if (op == "broadcast") sig.params.push_back("axis");
    auto b = Bind(sig, args, kwargs, call.loc);
    if (!b) return false;
    auto dst = RegionOperand(*(*b)[0], "destination", call.loc);
    auto src = dst ? RegionOperand(*(*b)[1], "source", call.loc) : std::nullopt;
    if (!src) return false;
    if (op != "broadcast")
      return same_shape(*dst, *src, "destination", "source") && emit({*dst, *src});
    auto kind = BinaryBroadcast(*dst, *src);
    if (!kind || *kind == Broadcast::kElementwise || dst->TrimmedShape().size() != 2) {
      diag().Error(call.loc) << name << " expands [R] or [R, 1] to [R, C] or [1, C] to [R, C]; got "
                             << ShapeText(KeepLastTwo(Extents(*src))) << " to "
                             << ShapeText(dst->TrimmedShape());
      return false;
    }
    int64_t axis = *kind == Broadcast::kPerRow ? 1 : 0;
    if (sig.params.size() == 3 && (*b)[2] && (*b)[2]->kind != ValueKind::kNone &&
        !((*b)[2]->kind == ValueKind::kInt && ((*b)[2]->i == axis || (*b)[2]->i == axis - 2))) {
      diag().Error(LocOr(*(*b)[2], call.loc)) << "broadcast axis " << Repr(*(*b)[2])
                                              << " does not match the shapes (axis " << axis << ")";
      return false;
    }
    return emit({*dst, *src}, {{"axis", axis}});
  }
  if (op == "cast") {
    auto b = Bind(Signature{name, {"dst", "src", "mode", "count"}, 3}, args, kwargs, call.loc);
    if (!b) return false;
    auto dst = RegionOperand(*(*b)[0], "destination", call.loc);
    auto src = dst ? RegionOperand(*(*b)[1], "source", call.loc) : std::nullopt;
    if (!src || !same_shape(*dst, *src, "destination", "source")) return false;
    const Value& mode = *(*b)[2];
    if (mode.kind != ValueKind::kString || !OneOf(mode.text, kCastModes)) {
      diag().Error(LocOr(mode, call.loc))
          << "unknown cast mode " << Repr(mode) << " (known: " << Join(kCastModes) << ")";
      return false;
    }
    int64_t count = dst->num_elements();
    if ((*b)[3]) {
      const Value& c = *(*b)[3];
      if (c.kind != ValueKind::kInt || c.i <= 0 || c.i > count) {
        diag().Error(LocOr(c, call.loc))
            << "cast count must be an int in 1.." << count << ", not " << Repr(c);
        return false;
      }
      count = c.i;
    }
    return emit({*dst, *src}, {{"count", count}, {"mode", mode.text}});
  }
  if (op == "compare" || op == "select") {
    bool cmp = op == "compare";
    Signature sig{name, {"dst", "src0", "src1", "mode"}, 4};
    if (!cmp) sig.params = {"dst", "mask", "src0", "src1", "mode"};
    if (!cmp) sig.required = 5;
    auto b = Bind(sig, args, kwargs, call.loc);
    if (!b) return false;
    size_t n = sig.params.size();
    std::vector<ir::Operand> operands;
    for (size_t i = 0; i + 2 < n; ++i) {
      auto r = RegionOperand(*(*b)[i], sig.params[i], call.loc);
      if (!r) return false;
      operands.push_back(*r);
    }
    const ir::Region& dst = std::get<ir::Region>(operands[0]);
    const ir::Region& lhs = std::get<ir::Region>(operands[cmp ? 1 : 2]);
    if (!cmp && !same_shape(dst, lhs, "destination", "first source")) return false;
    const Value& last = *(*b)[n - 2];
    if (last.kind == ValueKind::kBuffer || last.kind == ValueKind::kRegion) {
      auto r = RegionOperand(last, "second source", call.loc);
      if (!r || !same_shape(lhs, *r, "first source", "second source")) return false;
      operands.push_back(*r);
    } else {
      auto e = ScalarOperand(last, lhs.buffer->dtype, "second source", call.loc);
      if (!e) return false;
      operands.push_back(*e);
    }
    const Value& mode = *(*b)[n - 1];
    bool ok = mode.kind == ValueKind::kString &&
              (cmp ? OneOf(mode.text, kCompareModes) : OneOf(mode.text, kSelectModes));
    if (!ok) {
      diag().Error(LocOr(mode, call.loc))
          << "unknown " << op << " mode " << Repr(mode)
          << " (known: " << (cmp ? Join(kCompareModes) : Join(kSelectModes)) << ")";
      return false;
    }
    return emit(std::move(operands), {{"mode", mode.text}});
  }
  // axpy(dst, src, scalar): dst += scalar * src
  auto b = Bind(Signature{name, {"dst", "src", "scalar"}, 3}, args, kwargs, call.loc);
  if (!b) return false;
  auto dst = RegionOperand(*(*b)[0], "destination", call.loc);
  auto src = dst ? RegionOperand(*(*b)[1], "source", call.loc) : std::nullopt;
  if (!src || !same_shape(*dst, *src, "destination", "source")) return false;
  auto scalar = ScalarOperand(*(*b)[2], dst->buffer->dtype, "scalar", call.loc);
  return scalar && emit({*dst, *src, *scalar});
}

bool Tracer::TraceReduce(const std::string& name, const Expr& call, const std::vector<Value>& args,
                         const KwArgs& kwargs, std::vector<ir::Stmt>* out) {
  auto b = Bind(Signature{name, {"src", "dst", "dim", "clear", "real_shape"}, 2}, args, kwargs,
                call.loc);
  if (!b) return false;
  if ((*b)[4] && (*b)[4]->kind != ValueKind::kNone) {
    diag().Error(LocOr(*(*b)[4], call.loc)) << name << " real_shape is not supported yet";
    return false;
  }
  auto src = RegionOperand(*(*b)[0], "source", call.loc);
  auto dst = src ? RegionOperand(*(*b)[1], "destination", call.loc) : std::nullopt;
  if (!dst) return false;
  int64_t rank = static_cast<int64_t>(src->ranges.size());
  int64_t dim = -1;
  if ((*b)[2]) {
    const Value& d = *(*b)[2];
    if (d.kind != ValueKind::kInt || d.i < -rank || d.i >= rank) {
      diag().Error(LocOr(d, call.loc))
          << name << " dim must be an int in " << -rank << ".." << rank - 1 << ", not " << Repr(d);
      return false;
    }
    dim = d.i;
  }
  auto clear = FlagArg((*b)[3], true, "clear", call.loc);
  if (!clear) return false;
  if (!ReduceShapeFits(*src, static_cast<int>(dim), *dst)) {
    diag().Error(call.loc) << name << " shape mismatch: reducing " << ShapeText(src->TrimmedShape())
                           << " along dim " << dim << " cannot produce "
                           << ShapeText(dst->TrimmedShape());
    return false;
  }
  auto code = ir::ParseTileOp(name.substr(2));
  int64_t axis = dim < 0 ? dim + rank : dim;
  out->push_back(ir::MakeTileOp(*code, {*dst, *src}, {{"clear", *clear}, {"dim", axis}}, call.loc));
  return true;
}

}  // namespace tilejit::frontend
