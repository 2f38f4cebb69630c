// SPDX-License-Identifier: Apache-2.0
// T.* statement calls: dispatch, operand conversion, cube ops (gemm_v0, mma), vector tile
// ops (T.tile.*), reductions. Copies are in trace_copy.cc, sync in trace_sync.cc.
#include "common/check.h"
#include "compiler/frontend/shape_rules.h"
#include "compiler/frontend/tracer.h"
#include "compiler/target/gather_pattern.h"

namespace tilejit::frontend {
namespace {

constexpr std::string_view kCastModes[] = {"CAST_NONE",  "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                           "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
constexpr std::string_view kCompareModes[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
constexpr std::string_view kSelectModes[] = {"VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE",
                                             "VSEL_TENSOR_TENSOR_MODE"};

}  // namespace

bool Tracer::TraceOpCall(const std::string& name, const Expr& call, const std::vector<Value>& args,
                         const KwArgs& kwargs, std::vector<ir::Stmt>* out) {
  const BuiltinRow* row = FindBuiltin(name);
  TILEJIT_CHECK(row != nullptr) << "statement builtin without a row: " << name;
  // T.func_attr describes the function: upstream writes it before the kernel. Prints before
  // or after the kernel run on every core (TracePrimFunc moves them into the launch).
  const bool anywhere = row->handler == BuiltinHandler::kFuncAttr ||
                        row->handler == BuiltinHandler::kPrintf ||
                        row->handler == BuiltinHandler::kDumpTensor;
  if (!frame_.in_kernel && !anywhere) {
    diag().Error(call.loc) << name << " must be used inside 'with T.Kernel(...)'";
    return false;
  }
  switch (row->handler) {
    case BuiltinHandler::kKernel:
    case BuiltinHandler::kScope:
    case BuiltinHandler::kIfFrame:
    case BuiltinHandler::kThenFrame:
    case BuiltinHandler::kElseFrame:
      diag().Error(call.loc) << name << " must be used in a 'with' statement";
      return false;
    case BuiltinHandler::kSerialLoop:
    case BuiltinHandler::kPipelinedLoop:
    case BuiltinHandler::kParallelLoop:
      diag().Error(call.loc) << name << " can only be used as a for-loop iterator";
      return false;
    case BuiltinHandler::kAlloc:
      diag().Error(call.loc) << "the result of " << name << "(...) must be assigned to a name";
      return false;
    case BuiltinHandler::kAnnotation:
      diag().Error(call.loc) << name << " is only valid as a prim_func parameter annotation";
      return false;
    default:
      break;
  }
  if (row->handler == BuiltinHandler::kPrintf) {  // variadic: the values are the arguments
    if (!kwargs.empty()) {
      diag().Error(call.loc) << "T.printf takes no keyword arguments";
      return false;
    }
    return TracePrintf(call, BoundArgs(args.begin(), args.end()), out);
  }
  auto b = Bind(SignatureOf(*row), args, kwargs, call.loc);
  if (!b) return false;
  if (row->handler == BuiltinHandler::kTileOp) return TraceTileOp(*row, call, *b, out);
  if (row->handler == BuiltinHandler::kRowExpand) return TraceRowExpand(*row, call, *b, out);
  if (row->handler == BuiltinHandler::kBrcb) return TraceBrcb(*row, call, *b, out);
  if (row->handler == BuiltinHandler::kClamp) return TraceClamp(*row, call, *b, out);
  if (row->handler == BuiltinHandler::kClampBound) return TraceClampBound(*row, call, *b, out);
  if (row->handler == BuiltinHandler::kArithProgression) {
    return TraceArithProgression(*row, call, *b, out);
  }
  if (row->handler == BuiltinHandler::kAtomicAdd) {
    return TraceCopy(call, {(*b)[1], (*b)[0], std::nullopt, std::nullopt, std::nullopt}, out,
                     /*atomic_add=*/true);
  }
  if (row->handler == BuiltinHandler::kAnnotateAddress) return TraceAnnotateAddress(call, *b);
  if (row->handler == BuiltinHandler::kAnnotateLayout) return TraceAnnotateLayout(call, *b);
  if (row->handler == BuiltinHandler::kDumpTensor) return TraceDumpTensor(call, *b, out);
  return TraceSync(*row, call, *b, out);
}

bool Tracer::TraceTileOp(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                         std::vector<ir::Stmt>* out) {
  switch (ir::TileOpFamilyOf(*row.op)) {
    case ir::TileOpFamily::kCopy:
      return TraceCopy(call, b, out);
    case ir::TileOpFamily::kCube:
      return TraceGemm(row, call, b, out);
    case ir::TileOpFamily::kReduce:
      return TraceReduce(row, call, b, out);
    case ir::TileOpFamily::kCompare:
    case ir::TileOpFamily::kSelect:
      return TraceCompareSelect(row, call, b, out);
    case ir::TileOpFamily::kSort:
      return TraceSort(row, call, b, out);
    case ir::TileOpFamily::kRawReduce:
    case ir::TileOpFamily::kGatherB:
      return TraceRawRepeat(row, call, b, out);
    case ir::TileOpFamily::kDeqScale: {  // a register for later s32 -> f16 casts
      auto scale = ScalarOperand(*b[0], ir::DType::kFloat32, "scale", call.loc);
      if (!scale) return false;
      out->push_back(ir::MakeTileOp(*row.op, {*scale}, {}, call.loc));
      return true;
    }
    default:
      return TraceVectorOp(row, call, b, out);
  }
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

bool Tracer::TraceGemm(const BuiltinRow& row, const Expr& call, const BoundArgs& bound,
                       std::vector<ir::Stmt>* out) {
  const std::string name(row.name);
  const bool is_gemm = *row.op == ir::TileOpCode::kGemmV0;
  const BoundArgs* b = &bound;
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
  out->push_back(ir::MakeTileOp(*row.op, {*C, *A, *B}, std::move(attrs), call.loc));
  return true;
}

// Fill, binary, unary, broadcast, cast, axpy, transpose and gather: one destination and its
// sources.
bool Tracer::TraceVectorOp(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                           std::vector<ir::Stmt>* out) {
  const std::string name(row.name);
  const ir::TileOpFamily family = ir::TileOpFamilyOf(*row.op);
  auto emit = [&](std::vector<ir::Operand> operands, std::vector<ir::Attr> attrs = {}) {
    out->push_back(ir::MakeTileOp(*row.op, std::move(operands), std::move(attrs), call.loc));
    return true;
  };
  auto same_shape = [&](const ir::Region& x, const ir::Region& y, const char* yn) {
    if (SameShape(x, y)) return true;
    diag().Error(call.loc) << name << " shape mismatch: destination is "
                           << ShapeText(x.TrimmedShape()) << " but " << yn << " is "
                           << ShapeText(y.TrimmedShape());
    return false;
  };
  auto dst = RegionOperand(*b[0], "destination", call.loc);
  if (!dst) return false;
  if (family != ir::TileOpFamily::kCast && !CheckWholeCount(row, b, *dst, call.loc)) return false;
  if (family == ir::TileOpFamily::kFill || family == ir::TileOpFamily::kIndex) {
    // T.tile.clear has no value parameter.
    auto v =
        ScalarOperand(b.size() > 1 ? *b[1] : Value::Int(0), dst->buffer->dtype,
                      family == ir::TileOpFamily::kFill ? "fill value" : "first value", call.loc);
    return v && emit({*dst, *v});
  }
  auto src = RegionOperand(*b[1], family == ir::TileOpFamily::kBinary ? "first source" : "source",
                           call.loc);
  if (!src) return false;
  switch (family) {
    case ir::TileOpFamily::kBinary: {
      if (!same_shape(*dst, *src, "first source")) return false;
      auto src1 = BinarySecondOperand(name, *dst, *b[2], call.loc);
      return src1 && emit({*dst, *src, *src1});
    }
    case ir::TileOpFamily::kUnary:
      return same_shape(*dst, *src, "source") && emit({*dst, *src});
    case ir::TileOpFamily::kBroadcast: {
      auto axis = BroadcastAxis(name, *dst, *src, b[2], call.loc);
      return axis && emit({*dst, *src}, {{"axis", *axis}});
    }
    case ir::TileOpFamily::kCast: {
      if (!same_shape(*dst, *src, "source")) return false;
      auto attrs = CastAttrs(*dst, b[2], b[3], call.loc);
      return attrs && emit({*dst, *src}, std::move(*attrs));
    }
    case ir::TileOpFamily::kTranspose: {
      std::vector<int64_t> d = dst->TrimmedShape(), sh = src->TrimmedShape();
      if (sh.size() != 2 || d != std::vector<int64_t>{sh[1], sh[0]}) {
        diag().Error(call.loc) << name << " needs a 2-D source and its transpose as the "
                               << "destination; got " << ShapeText(sh) << " to " << ShapeText(d);
        return false;
      }
      return emit({*dst, *src});
    }
    case ir::TileOpFamily::kGather: {  // dst[i] = src at byte offsets[i] + base
      auto offsets = RegionOperand(*b[2], "offsets", call.loc);
      if (!offsets || !same_shape(*dst, *offsets, "the offsets")) return false;
      if (offsets->buffer->dtype != ir::DType::kUInt32 &&
          offsets->buffer->dtype != ir::DType::kInt32) {
        diag().Error(call.loc) << name << " offsets must be uint32 (byte offsets), not "
                               << ir::DTypeName(offsets->buffer->dtype);
        return false;
      }
      auto base = ScalarOperand(*b[3], ir::DType::kInt32, "src_base_addr", call.loc);
      return base && emit({*dst, *src, *offsets, *base});
    }
    case ir::TileOpFamily::kGatherMask: {  // dst packs the src elements a fixed pattern keeps
      const Value& p = *b[2];
      if (p.kind == ValueKind::kString && target::GatherPatternNamed(p.text)) {
        return emit({*dst, *src}, {{"mode", p.text}});
      }
      const bool buffer = p.kind == ValueKind::kBuffer || p.kind == ValueKind::kRegion;
      diag().Error(LocOr(p, call.loc))
          << name << " src1Pattern must be a built-in mode: \"P0101\", \"P1010\", \"P0001\", "
          << "\"P0010\", \"P0100\", \"P1000\" or \"P1111\""
          << (buffer ? "; a uint32 pattern buffer (AscendC's user-defined mode) is not supported"
                     : ", not " + Repr(p));
      return false;
    }
    case ir::TileOpFamily::kAxpy: {  // dst += scalar * src
      if (!same_shape(*dst, *src, "source")) return false;
      auto scalar = ScalarOperand(*b[2], dst->buffer->dtype, "scalar", call.loc);
      return scalar && emit({*dst, *src, *scalar});
    }
    default:
      TILEJIT_CHECK(false) << name << " is not a vector op";
      return false;
  }
}

std::optional<ir::Operand> Tracer::BinarySecondOperand(const std::string& name,
                                                       const ir::Region& dst, const Value& s1,
                                                       SourceLoc loc) {
  if (s1.kind != ValueKind::kBuffer && s1.kind != ValueKind::kRegion)
    return ScalarOperand(s1, dst.buffer->dtype, "second source", loc);
  auto src1 = RegionOperand(s1, "second source", loc);
  if (!src1) return std::nullopt;
  if (!BinaryBroadcast(dst, *src1)) {
    diag().Error(LocOr(s1, loc))
        << name << " shape mismatch: destination is " << ShapeText(dst.TrimmedShape())
        << " but the second source is " << ShapeText(KeepLastTwo(Extents(*src1)))
        << " (expected the same shape, [R] or [R, 1] per row, or [1, C] per column)";
    return std::nullopt;
  }
  return *src1;
}

std::optional<int64_t> Tracer::BroadcastAxis(const std::string& name, const ir::Region& dst,
                                             const ir::Region& src,
                                             const std::optional<Value>& axis_arg, SourceLoc loc) {
  auto kind = BinaryBroadcast(dst, src);
  if (!kind || *kind == Broadcast::kElementwise || dst.TrimmedShape().size() != 2) {
    diag().Error(loc) << name << " expands [R] or [R, 1] to [R, C] or [1, C] to [R, C]; got "
                      << ShapeText(KeepLastTwo(Extents(src))) << " to "
                      << ShapeText(dst.TrimmedShape());
    return std::nullopt;
  }
  int64_t axis = *kind == Broadcast::kPerRow ? 1 : 0;
  if (axis_arg &&
      !(axis_arg->kind == ValueKind::kInt && (axis_arg->i == axis || axis_arg->i == axis - 2))) {
    diag().Error(LocOr(*axis_arg, loc)) << "broadcast axis " << Repr(*axis_arg)
                                        << " does not match the shapes (axis " << axis << ")";
    return std::nullopt;
  }
  return axis;
}

std::optional<std::vector<ir::Attr>> Tracer::CastAttrs(const ir::Region& dst,
                                                       const std::optional<Value>& mode,
                                                       const std::optional<Value>& count_arg,
                                                       SourceLoc loc) {
  if (mode->kind != ValueKind::kString || !OneOf(mode->text, kCastModes)) {
    diag().Error(LocOr(*mode, loc))
        << "unknown cast mode " << Repr(*mode) << " (known: " << Join(kCastModes) << ")";
    return std::nullopt;
  }
  int64_t count = dst.num_elements();
  if (count_arg) {
    const Value& c = *count_arg;
    if (c.kind != ValueKind::kInt || c.i <= 0 || c.i > count) {
      diag().Error(LocOr(c, loc)) << "cast count must be an int in 1.." << count << ", not "
                                  << Repr(c);
      return std::nullopt;
    }
    count = c.i;
  }
  return std::vector<ir::Attr>{{"count", count}, {"mode", mode->text}};
}

// compare [mask, src0, src1]; select [dst, mask, src0, src1]: src1 a region or a scalar.
bool Tracer::TraceCompareSelect(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                                std::vector<ir::Stmt>* out) {
  const std::string name(row.name);
  const bool cmp = ir::TileOpFamilyOf(*row.op) == ir::TileOpFamily::kCompare;
  const Signature& sig = SignatureOf(row);
  auto same_shape = [&](const ir::Region& x, const ir::Region& y, const char* xn, const char* yn) {
    if (x.TrimmedShape() == y.TrimmedShape()) return true;
    diag().Error(call.loc) << name << " shape mismatch: " << xn << " is "
                           << ShapeText(x.TrimmedShape()) << " but " << yn << " is "
                           << ShapeText(y.TrimmedShape());
    return false;
  };
  size_t n = sig.params.size();
  std::vector<ir::Operand> operands;
  for (size_t i = 0; i + 2 < n; ++i) {
    auto r = RegionOperand(*b[i], sig.params[i], call.loc);
    if (!r) return false;
    operands.push_back(*r);
  }
  const ir::Region& dst = std::get<ir::Region>(operands[0]);
  const ir::Region& lhs = std::get<ir::Region>(operands[cmp ? 1 : 2]);
  if (!cmp && !same_shape(dst, lhs, "destination", "first source")) return false;
  const Value& last = *b[n - 2];
  if (last.kind == ValueKind::kBuffer || last.kind == ValueKind::kRegion) {
    auto r = RegionOperand(last, "second source", call.loc);
    if (!r || !same_shape(lhs, *r, "first source", "second source")) return false;
    operands.push_back(*r);
  } else {
    auto e = ScalarOperand(last, lhs.buffer->dtype, "second source", call.loc);
    if (!e) return false;
    operands.push_back(*e);
  }
  const Value& mode = *b[n - 1];
  bool ok = mode.kind == ValueKind::kString &&
            (cmp ? OneOf(mode.text, kCompareModes) : OneOf(mode.text, kSelectModes));
  if (!ok) {
    diag().Error(LocOr(mode, call.loc))
        << "unknown " << (cmp ? "compare" : "select") << " mode " << Repr(mode)
        << " (known: " << (cmp ? Join(kCompareModes) : Join(kSelectModes)) << ")";
    return false;
  }
  out->push_back(ir::MakeTileOp(*row.op, std::move(operands), {{"mode", mode.text}}, call.loc));
  return true;
}

bool Tracer::TraceReduce(const BuiltinRow& row, const Expr& call, const BoundArgs& bound,
                         std::vector<ir::Stmt>* out) {
  const std::string name(row.name);
  const BoundArgs* b = &bound;
  // TileLang-Ascend takes clear and real_shape after dim in either order, telling them apart
  // by kind (a bool is clear, a list or tuple real_shape).
  std::optional<Value> clear_arg = (*b)[3], real_arg = (*b)[4];
  if ((clear_arg && clear_arg->is_sequence()) || (real_arg && real_arg->kind == ValueKind::kBool))
    std::swap(clear_arg, real_arg);
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
  auto clear = FlagArg(clear_arg, true, "clear", call.loc);
  if (!clear) return false;
  if (real_arg && real_arg->kind != ValueKind::kNone &&
      !ApplyRealShape(name, *real_arg, dim, &*src, &*dst, call.loc)) {
    return false;
  }
  if (!ReduceShapeFits(*src, static_cast<int>(dim), *dst)) {
    diag().Error(call.loc) << name << " shape mismatch: reducing " << ShapeText(src->TrimmedShape())
                           << " along dim " << dim << " cannot produce "
                           << ShapeText(dst->TrimmedShape());
    return false;
  }
  int64_t axis = dim < 0 ? dim + rank : dim;
  out->push_back(
      ir::MakeTileOp(*row.op, {*dst, *src}, {{"clear", *clear}, {"dim", axis}}, call.loc));
  return true;
}

// real_shape [rows, cols] of a 2-D source: the reduction covers its first `rows` rows and
// `cols` columns (0: the whole extent), and writes the results for those rows (or columns)
// only, so a tail tile's padding never reaches the result.
bool Tracer::ApplyRealShape(const std::string& name, const Value& real, int64_t dim,
                            ir::Region* src, ir::Region* dst, SourceLoc loc) {
  const size_t rank = src->ranges.size();
  std::vector<int64_t> want;
  if (real.is_sequence() && real.size() == 2 && rank >= 2) {
    for (size_t i = 0; i < 2; ++i) {
      const Value& v = real.item(i);
      const int64_t full = src->ranges[rank - 2 + i].extent;
      if (v.kind != ValueKind::kInt || v.i < 0 || v.i > full) break;
      want.push_back(v.i == 0 ? full : v.i);
    }
  }
  if (want.size() != 2) {
    diag().Error(LocOr(real, loc))
        << name << " real_shape must be [rows, cols] of ints within the 2-D source's extents "
        << ShapeText(Extents(*src)) << " (0: the whole extent), not " << Repr(real);
    return false;
  }
  const bool per_row =
      (dim < 0 ? dim + static_cast<int64_t>(rank) : dim) == static_cast<int64_t>(rank) - 1;
  const int64_t full_out = src->ranges[per_row ? rank - 2 : rank - 1].extent;
  src->ranges[rank - 2].extent = want[0];
  src->ranges[rank - 1].extent = want[1];
  // The destination's dimension of that extent: [R] / [R, 1] per row, [C] / [1, C] per column;
  // else a longer vector ([1, 8] for 4 rows, upstream's reduce_max_slice_buffer example) takes
  // the results in its first elements.
  const int64_t want_out = want[per_row ? 0 : 1];
  for (auto it = dst->ranges.rbegin(); it != dst->ranges.rend(); ++it) {
    if (it->extent == full_out) {
      it->extent = want_out;
      return true;
    }
  }
  if (dst->TrimmedShape().size() == 1 && dst->ranges.back().extent >= want_out) {
    dst->ranges.back().extent = want_out;
  }
  return true;
}

// row_expand_*(dst [R, C], src0 [R, C], src1 [R]): the binary op with src1 broadcast per row.
// Without a tmp, upstream's AscendC lowering also takes src1 already broadcast, one 32-byte
// block per row ([R, B], B = 32 / element bytes, brcb's output), reusing that block along the
// row: dst[i, j] = src0[i, j] op src1[i, j % B]. That is C / B element-wise ops over column
// slabs of width B (exact for any block, not only a uniform one). Other src1 shapes are
// refused rather than read another way.
bool Tracer::TraceRowExpand(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                            std::vector<ir::Stmt>* out) {
  auto dst = RegionOperand(*b[0], "destination", call.loc);
  auto src = dst ? RegionOperand(*b[1], "first source", call.loc) : std::nullopt;
  auto vec = src ? RegionOperand(*b[2], "second source", call.loc) : std::nullopt;
  if (!vec) return false;
  const std::vector<int64_t> d = dst->TrimmedShape(), v = vec->TrimmedShape();
  const int64_t bytes = ir::DTypeBytes(dst->buffer->dtype);
  const int64_t block = bytes > 0 ? 32 / bytes : 0;
  const bool same = d == src->TrimmedShape() && d.size() == 2;
  const bool per_block = same && block > 0 && d[1] % block == 0 && d[1] > block &&
                         v == std::vector<int64_t>{d[0], block};
  if (!same || (!per_block && BinaryBroadcast(*dst, *vec) != Broadcast::kPerRow)) {
    diag().Error(call.loc) << row.name << " needs dst and src0 of one [R, C] shape and src1 of "
                           << "[R], [R, 1] or [R, " << block
                           << "] (one 32-byte block per row); got " << ShapeText(d) << ", "
                           << ShapeText(src->TrimmedShape()) << " and " << ShapeText(v);
    return false;
  }
  if (!per_block) {
    out->push_back(ir::MakeTileOp(*row.op, {*dst, *src, *vec}, {}, call.loc));
    return true;
  }
  for (int64_t col = 0; col < d[1]; col += block) {
    // The slabs interleave row by row, and sync analysis compares byte spans, so it would see
    // each slab's op overlap the last one: one user operation, so the barrier is part of it.
    if (col != 0) out->push_back(std::make_shared<ir::BarrierNode>(ir::Pipe::kV, call.loc));
    ir::Region dst_slab = *dst, src_slab = *src;
    for (ir::Region* r : {&dst_slab, &src_slab}) {
      ir::Range& cols = r->ranges.back();
      const std::optional<int64_t> at = ir::AsConstInt(cols.min);
      if (at.has_value()) {
        cols.min = ir::IntImm(*at + col, cols.min->dtype, call.loc);
      } else if (col != 0) {
        cols.min = ir::Binary(ir::BinaryOp::kAdd, cols.min,
                              ir::IntImm(col, cols.min->dtype, call.loc), call.loc);
      }
      cols.extent = block;
    }
    out->push_back(ir::MakeTileOp(*row.op, {dst_slab, src_slab, *vec}, {}, call.loc));
  }
  return true;
}

// brcb(dst, src, repeat_times, dst_blk_stride, dst_repeat_stride): each repeat writes 8 source
// elements, each over one 32-byte block of dst. With block stride 1 and repeat stride 8 (the
// form upstream uses) that is the per-row broadcast of src [R] (or [R, 1]) into dst
// [R, 32 / elem_bytes], R = 8 * repeat_times; other strides interleave blocks, which no tile
// shape expresses.
bool Tracer::TraceBrcb(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                       std::vector<ir::Stmt>* out) {
  auto dst = RegionOperand(*b[0], "destination", call.loc);
  auto src = dst ? RegionOperand(*b[1], "source", call.loc) : std::nullopt;
  if (!src) return false;
  auto int_of = [&](const Value& v) { return v.kind == ValueKind::kInt ? v.i : -1; };
  const int64_t repeat = int_of(*b[2]), blk = int_of(*b[3]), rep = int_of(*b[4]);
  const std::vector<int64_t> d = dst->TrimmedShape();
  const int64_t per_block =
      ir::DTypeBytes(dst->buffer->dtype) > 0 ? 32 / ir::DTypeBytes(dst->buffer->dtype) : 0;
  const bool ok = blk == 1 && rep == 8 && repeat > 0 &&
                  d == std::vector<int64_t>{8 * repeat, per_block} &&
                  BinaryBroadcast(*dst, *src) == Broadcast::kPerRow;
  if (!ok) {
    diag().Error(call.loc)
        << row.name << " supports dst_blk_stride 1 and dst_repeat_stride 8 "
        << "with src [8 * repeat_times] (or [8 * repeat_times, 1]) and dst [8 * repeat_times, "
        << per_block << "] (one 32-byte block per element); got strides " << Repr(*b[3]) << ", "
        << Repr(*b[4]) << ", repeat_times " << Repr(*b[2]) << ", src "
        << ShapeText(src->TrimmedShape()) << " and dst " << ShapeText(d);
    return false;
  }
  out->push_back(ir::MakeTileOp(*row.op, {*dst, *src}, {{"axis", int64_t{1}}}, call.loc));
  return true;
}

// The `count` parameter of an operation that upstream spells with one (clamp, round,
// arith_progression, ...; not cast, whose count may be a prefix) must be the destination
// region's element count: upstream passes the tile's size, and a smaller count would leave a
// tail undone while a larger one overruns the region, so both are refused.
bool Tracer::CheckWholeCount(const BuiltinRow& row, const BoundArgs& b, const ir::Region& dst,
                             SourceLoc loc) {
  const Signature& sig = SignatureOf(row);
  for (size_t i = 0; i < sig.params.size() && i < b.size(); ++i) {
    if (sig.params[i] != "count" || !b[i]) continue;
    const Value& count = *b[i];
    if (count.kind == ValueKind::kInt && count.i == dst.num_elements()) return true;
    diag().Error(LocOr(count, loc))
        << row.name << " count must be the region's element count " << dst.num_elements()
        << ", not " << Repr(count) << " (a prefix or a count past the region is not supported)";
    return false;
  }
  return true;
}

// The destination and source regions of a clamp, of one shape, with the whole-region count
// (CheckWholeCount); nullopt after a diagnostic.
std::optional<std::pair<ir::Region, ir::Region>> Tracer::ClampRegions(const BuiltinRow& row,
                                                                      const Expr& call,
                                                                      const BoundArgs& b) {
  auto dst = RegionOperand(*b[0], "destination", call.loc);
  auto src = dst ? RegionOperand(*b[1], "source", call.loc) : std::nullopt;
  if (!src) return std::nullopt;
  if (!SameShape(*dst, *src)) {
    diag().Error(call.loc) << row.name << " shape mismatch: destination is "
                           << ShapeText(dst->TrimmedShape()) << " but the source is "
                           << ShapeText(src->TrimmedShape());
    return std::nullopt;
  }
  if (!CheckWholeCount(row, b, *dst, call.loc)) return std::nullopt;
  return std::make_pair(*dst, *src);
}

// clamp(out, buffer, min, max, count) = min(max(buffer, min), max) over the whole region
// (two vector ops with a barrier v between them).
bool Tracer::TraceClamp(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                        std::vector<ir::Stmt>* out) {
  auto regions = ClampRegions(row, call, b);
  if (!regions) return false;
  const auto& [dst, src] = *regions;
  auto lo = ScalarOperand(*b[2], dst.buffer->dtype, "min_scalar", call.loc);
  auto hi = lo ? ScalarOperand(*b[3], dst.buffer->dtype, "max_scalar", call.loc) : std::nullopt;
  if (!hi) return false;
  // One user operation, so the author has no place for the barrier the vector pipe needs
  // between the two dependent instructions: it is part of the clamp.
  out->push_back(ir::MakeTileOp(ir::TileOpCode::kMax, {dst, src, *lo}, {}, call.loc));
  out->push_back(std::make_shared<ir::BarrierNode>(ir::Pipe::kV, call.loc));
  out->push_back(ir::MakeTileOp(ir::TileOpCode::kMin, {dst, dst, *hi}, {}, call.loc));
  return true;
}

// clamp_max(out, buffer, bound, count) = min(buffer, bound) and clamp_min = max(buffer, bound)
// over the whole region (AscendC ClampMax / ClampMin): the row's op with a scalar operand.
bool Tracer::TraceClampBound(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                             std::vector<ir::Stmt>* out) {
  auto regions = ClampRegions(row, call, b);
  if (!regions) return false;
  const auto& [dst, src] = *regions;
  auto bound = ScalarOperand(*b[2], dst.buffer->dtype, "scalar_value", call.loc);
  if (!bound) return false;
  out->push_back(ir::MakeTileOp(*row.op, {dst, src, *bound}, {}, call.loc));
  return true;
}

// arith_progression(buffer, first, diff, count): buffer[i] = first + i * diff for the first
// `count` elements, as createvecindex (0, 1, ...) scaled by diff and offset by first, with the
// barriers the dependent vector ops need. count must be the region's element count.
bool Tracer::TraceArithProgression(const BuiltinRow& row, const Expr& call, const BoundArgs& b,
                                   std::vector<ir::Stmt>* out) {
  auto dst = RegionOperand(*b[0], "destination", call.loc);
  if (!dst || !CheckWholeCount(row, b, *dst, call.loc)) return false;
  const ir::DType dt = dst->buffer->dtype;
  auto zero = ScalarOperand(Value::Int(0), dt, "first value", call.loc);
  auto first = zero ? ScalarOperand(*b[1], dt, "first_value", call.loc) : std::nullopt;
  auto diff = first ? ScalarOperand(*b[2], dt, "diff_value", call.loc) : std::nullopt;
  if (!diff) return false;
  out->push_back(ir::MakeTileOp(*row.op, {*dst, *zero}, {}, call.loc));
  out->push_back(std::make_shared<ir::BarrierNode>(ir::Pipe::kV, call.loc));
  out->push_back(ir::MakeTileOp(ir::TileOpCode::kMul, {*dst, *dst, *diff}, {}, call.loc));
  out->push_back(std::make_shared<ir::BarrierNode>(ir::Pipe::kV, call.loc));
  out->push_back(ir::MakeTileOp(ir::TileOpCode::kAdd, {*dst, *dst, *first}, {}, call.loc));
  return true;
}

}  // namespace tilejit::frontend
