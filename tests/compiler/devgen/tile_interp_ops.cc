// SPDX-License-Identifier: Apache-2.0
// The interpreter's tile ops. Operand shapes follow DESIGN section 2: shapes compare after
// dropping leading unit dims; a second operand [R] or [R, 1] against an [R, C] destination
// broadcasts per row, [1, C] per column. Inputs are gathered before any output is written,
// so in-place ops read old values, as on the device.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "runner/sim/half.h"
#include "tile_interp_internal.h"

namespace tilejit::devgen::internal {
namespace {

using ir::TileOpCode;

bool BoolAttr(const ir::TileOpNode& op, std::string_view key, bool fallback) {
  const ir::AttrValue* v = op.FindAttr(key);
  if (v == nullptr) return fallback;
  if (const bool* b = std::get_if<bool>(v)) return *b;
  if (const int64_t* i = std::get_if<int64_t>(v)) return *i != 0;
  return fallback;
}

int64_t IntAttr(const ir::TileOpNode& op, std::string_view key, int64_t fallback) {
  const ir::AttrValue* v = op.FindAttr(key);
  if (v == nullptr) return fallback;
  if (const int64_t* i = std::get_if<int64_t>(v)) return *i;
  return fallback;
}

// rows x cols of a trimmed shape (a 1-D shape is one row).
std::pair<int64_t, int64_t> Matrix(const std::vector<int64_t>& t) {
  if (t.size() == 1) return {1, t[0]};
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < t.size(); ++i) rows *= t[i];
  return {rows, t.back()};
}

}  // namespace

double ApplyUnary(TileOpCode op, double a) {
  const float f = static_cast<float>(a);
  switch (op) {
    case TileOpCode::kExp:
      return std::exp(f);
    case TileOpCode::kLn:
      return std::log(f);
    case TileOpCode::kSqrt:
      return std::sqrt(f);
    case TileOpCode::kRsqrt:
      return 1.0f / std::sqrt(f);
    case TileOpCode::kReciprocal:
      return 1.0 / a;
    case TileOpCode::kAbs:
      return std::fabs(a);
    case TileOpCode::kRelu:
      return a > 0 ? a : 0.0;
    case TileOpCode::kSigmoid:
      return 1.0f / (1.0f + std::exp(-f));
    default:
      return a;
  }
}

double ApplyBinary(TileOpCode op, double a, double b) {
  switch (op) {
    case TileOpCode::kAdd:
      return a + b;
    case TileOpCode::kSub:
      return a - b;
    case TileOpCode::kMul:
      return a * b;
    case TileOpCode::kDiv:
      return a / b;
    case TileOpCode::kMax:
      return std::max(a, b);
    default:
      return std::min(a, b);
  }
}

namespace {

class OpRunner {
 public:
  OpRunner(Interp& in, const ir::TileOpNode& op) : in_(in), op_(op) {}

  Status Run() {
    switch (op_.op) {
      case TileOpCode::kCopy:
        return Copy();
      case TileOpCode::kGemmV0:
      case TileOpCode::kMma:
        return Gemm();
      case TileOpCode::kFill:
        return Fill();
      case TileOpCode::kAdd:
      case TileOpCode::kSub:
      case TileOpCode::kMul:
      case TileOpCode::kDiv:
      case TileOpCode::kMax:
      case TileOpCode::kMin:
        return Binary();
      case TileOpCode::kExp:
      case TileOpCode::kLn:
      case TileOpCode::kSqrt:
      case TileOpCode::kRsqrt:
      case TileOpCode::kReciprocal:
      case TileOpCode::kAbs:
      case TileOpCode::kRelu:
      case TileOpCode::kSigmoid:
        return Unary();
      case TileOpCode::kCast:
        return Cast();
      case TileOpCode::kAxpy:
        return Axpy();
      case TileOpCode::kReduceSum:
      case TileOpCode::kReduceMax:
      case TileOpCode::kReduceMin:
        return Reduce();
      default:
        return Fail(std::string("unsupported tile op ") + std::string(ir::TileOpName(op_.op)));
    }
  }

 private:
  Status Fail(const std::string& m) const { return in_.Error(op_.loc, m); }

  Result<View> Arg(size_t i) {
    if (i >= op_.args.size()) return Fail("missing operand " + std::to_string(i));
    const ir::Region* r = std::get_if<ir::Region>(&op_.args[i]);
    if (r == nullptr) return Fail("operand " + std::to_string(i) + " must be a region");
    return in_.Resolve(*r, op_.loc);
  }

  Result<std::vector<double>> Gather(const View& v, double pad = 0) {
    std::vector<double> out(static_cast<size_t>(v.count));
    for (int64_t i = 0; i < v.count; ++i) {
      TILEJIT_ASSIGN_OR_RETURN(out[i], in_.Read(v, i, op_.loc, pad));
    }
    return out;
  }

  void Scatter(const View& v, const std::vector<double>& values) {
    for (int64_t i = 0; i < v.count; ++i) in_.WriteElem(v, i, values[i]);
  }

  Status Copy() {
    TILEJIT_ASSIGN_OR_RETURN(View dst, Arg(0));
    TILEJIT_ASSIGN_OR_RETURN(View src, Arg(1));
    double pad = 0;
    if (const ir::AttrValue* p = op_.FindAttr("pad_value")) {
      if (const double* d = std::get_if<double>(p)) pad = *d;
      if (const int64_t* i = std::get_if<int64_t>(p)) pad = static_cast<double>(*i);
      if (const ir::Expr* e = std::get_if<ir::Expr>(p)) {
        TILEJIT_ASSIGN_OR_RETURN(Scalar s, in_.Eval(*e));
        pad = s.AsDouble();
      }
    }
    if (dst.count != src.count) return Fail("copy between regions of different sizes");
    TILEJIT_ASSIGN_OR_RETURN(std::vector<double> v, Gather(src, pad));
    if (BoolAttr(op_, "transpose", false)) {
      const auto [rows, cols] = Matrix(src.trimmed);
      std::vector<double> t(v.size());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) t[c * rows + r] = v[r * cols + c];
      v = std::move(t);
    }
    if (BoolAttr(op_, "enable_relu", false)) {
      for (double& x : v) x = x > 0 ? x : 0.0;
    }
    Scatter(dst, v);
    return Status::Ok();
  }

  Status Gemm() {
    TILEJIT_ASSIGN_OR_RETURN(View c, Arg(0));
    TILEJIT_ASSIGN_OR_RETURN(View a, Arg(1));
    TILEJIT_ASSIGN_OR_RETURN(View b, Arg(2));
    bool init = false;
    if (const ir::AttrValue* v = op_.FindAttr("init")) {
      if (const bool* x = std::get_if<bool>(v)) init = *x;
      if (const ir::Expr* e = std::get_if<ir::Expr>(v)) {
        TILEJIT_ASSIGN_OR_RETURN(Scalar s, in_.Eval(*e));
        init = s.AsDouble() != 0;
      }
    }
    const bool ta = BoolAttr(op_, "transpose_A", false), tb = BoolAttr(op_, "transpose_B", false);
    const auto [ar, ac] = Matrix(a.trimmed);
    const auto [br, bc] = Matrix(b.trimmed);
    const auto [m, n] = Matrix(c.trimmed);
    const int64_t k = ta ? ar : ac;
    if ((ta ? ac : ar) != m || (tb ? br : bc) != n || (tb ? bc : br) != k) {
      return Fail("gemm operand shapes do not match");
    }
    TILEJIT_ASSIGN_OR_RETURN(std::vector<double> av, Gather(a));
    TILEJIT_ASSIGN_OR_RETURN(std::vector<double> bv, Gather(b));
    std::vector<double> cv(static_cast<size_t>(m * n), 0.0);
    if (!init) {
      TILEJIT_ASSIGN_OR_RETURN(cv, Gather(c));
    }
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          acc += av[ta ? p * ac + i : i * ac + p] * bv[tb ? j * bc + p : p * bc + j];
        }
        cv[i * n + j] += acc;
      }
    }
    Scatter(c, cv);
    return Status::Ok();
  }

  Result<double> ScalarArg(size_t i) {
    if (i >= op_.args.size()) return Fail("missing scalar operand");
    const ir::Expr* e = std::get_if<ir::Expr>(&op_.args[i]);
    if (e == nullptr) return Fail("operand " + std::to_string(i) + " must be a scalar");
    TILEJIT_ASSIGN_OR_RETURN(Scalar s, in_.Eval(*e));
    return s.AsDouble();
  }

  Status Fill() {
    TILEJIT_ASSIGN_OR_RETURN(View dst, Arg(0));
    TILEJIT_ASSIGN_OR_RETURN(double v, ScalarArg(1));
    // The value is rounded to the tile's type once (the instruction's scalar field).
    Scatter(dst,
            std::vector<double>(static_cast<size_t>(dst.count), RoundTo(dst.st->buffer->dtype, v)));
    return Status::Ok();
  }

  Status Binary() {
    TILEJIT_ASSIGN_OR_RETURN(View dst, Arg(0));
    TILEJIT_ASSIGN_OR_RETURN(View a, Arg(1));
    TILEJIT_ASSIGN_OR_RETURN(std::vector<double> av, Gather(a));
    if (a.trimmed != dst.trimmed) return Fail("binary op: source and destination shapes differ");
    const ir::DType dt = dst.st->buffer->dtype;
    std::vector<double> out(av.size());
    if (std::holds_alternative<ir::Expr>(op_.args[2])) {
      TILEJIT_ASSIGN_OR_RETURN(double s, ScalarArg(2));
      s = RoundTo(dt, s);
      for (size_t i = 0; i < av.size(); ++i) out[i] = ApplyBinary(op_.op, av[i], s);
      Scatter(dst, out);
      return Status::Ok();
    }
    TILEJIT_ASSIGN_OR_RETURN(View b, Arg(2));
    TILEJIT_ASSIGN_OR_RETURN(std::vector<double> bv, Gather(b));
    const auto [rows, cols] = Matrix(dst.trimmed);
    const bool same = b.trimmed == dst.trimmed;
    const bool per_row =
        !same && dst.trimmed.size() == 2 &&
        (b.trimmed == std::vector<int64_t>{rows} || b.trimmed == std::vector<int64_t>{rows, 1});
    const bool per_col = !same && !per_row && b.extents.size() >= 2 &&
                         b.extents[b.extents.size() - 2] == 1 && b.trimmed.back() == cols &&
                         b.count == cols;
    if (!same && !per_row && !per_col) return Fail("binary op: operand shapes do not match");
    for (int64_t i = 0; i < static_cast<int64_t>(av.size()); ++i) {
      const double y = same ? bv[i] : per_row ? bv[i / cols] : bv[i % cols];
      out[i] = ApplyBinary(op_.op, av[i], y);
    }
    Scatter(dst, out);
    return Status::Ok();
  }

  Status Unary() {
    TILEJIT_ASSIGN_OR_RETURN(View dst, Arg(0));
    TILEJIT_ASSIGN_OR_RETURN(View src, Arg(1));
    if (src.trimmed != dst.trimmed) return Fail("unary op: shapes differ");
    TILEJIT_ASSIGN_OR_RETURN(std::vector<double> v, Gather(src));
    for (double& x : v) x = ApplyUnary(op_.op, x);
    Scatter(dst, v);
    return Status::Ok();
  }

  Status Cast() {
    TILEJIT_ASSIGN_OR_RETURN(View dst, Arg(0));
    TILEJIT_ASSIGN_OR_RETURN(View src, Arg(1));
    std::string mode = "CAST_RINT";
    if (const ir::AttrValue* m = op_.FindAttr("mode")) {
      if (const std::string* s = std::get_if<std::string>(m)) mode = *s;
    }
    if (mode != "CAST_RINT" && mode != "CAST_NONE") return Fail("cast mode " + mode);
    const int64_t count = IntAttr(op_, "count", dst.count);
    TILEJIT_ASSIGN_OR_RETURN(std::vector<double> v, Gather(src));
    for (int64_t i = 0; i < count && i < dst.count; ++i) {
      double x = v[i];
      // The device's narrowing conversion saturates at the largest finite value.
      if (dst.st->buffer->dtype == ir::DType::kFloat16 && std::isfinite(x)) {
        x = std::clamp(x, -65504.0, 65504.0);
      }
      in_.WriteElem(dst, i, x);
    }
    return Status::Ok();
  }

  Status Axpy() {
    TILEJIT_ASSIGN_OR_RETURN(View dst, Arg(0));
    TILEJIT_ASSIGN_OR_RETURN(View src, Arg(1));
    TILEJIT_ASSIGN_OR_RETURN(double s, ScalarArg(2));
    TILEJIT_ASSIGN_OR_RETURN(std::vector<double> x, Gather(src));
    TILEJIT_ASSIGN_OR_RETURN(std::vector<double> y, Gather(dst));
    s = RoundTo(dst.st->buffer->dtype, s);
    for (size_t i = 0; i < x.size(); ++i) y[i] += s * x[i];
    Scatter(dst, y);
    return Status::Ok();
  }

  Status Reduce() {
    TILEJIT_ASSIGN_OR_RETURN(View dst, Arg(0));
    TILEJIT_ASSIGN_OR_RETURN(View src, Arg(1));
    const auto [rows, cols] = Matrix(src.trimmed);
    const int64_t rank = static_cast<int64_t>(src.trimmed.size());
    int64_t dim = IntAttr(op_, "dim", -1);
    if (dim < 0) dim += static_cast<int64_t>(src.extents.size());
    const int64_t axis = dim - (static_cast<int64_t>(src.extents.size()) - rank);
    const bool by_row = axis == rank - 1;
    if (!by_row && axis != rank - 2) return Fail("reduce over an unsupported dim");
    const int64_t n = by_row ? rows : cols;
    if (dst.count != n) return Fail("reduce destination has the wrong size");
    TILEJIT_ASSIGN_OR_RETURN(std::vector<double> v, Gather(src));
    const bool is_max = op_.op == TileOpCode::kReduceMax, is_min = op_.op == TileOpCode::kReduceMin;
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> acc(static_cast<size_t>(n), is_max ? -inf : is_min ? inf : 0.0);
    auto combine = [&](double a, double b) {
      return is_max ? std::max(a, b) : is_min ? std::min(a, b) : a + b;
    };
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        double& slot = acc[by_row ? r : c];
        slot = combine(slot, v[r * cols + c]);
      }
    }
    if (!BoolAttr(op_, "clear", true)) {
      TILEJIT_ASSIGN_OR_RETURN(std::vector<double> old, Gather(dst));
      for (int64_t i = 0; i < n; ++i) acc[i] = combine(acc[i], old[i]);
    }
    Scatter(dst, acc);
    return Status::Ok();
  }

  Interp& in_;
  const ir::TileOpNode& op_;
};

}  // namespace

Status Interp::TileOp(const ir::TileOpNode& op) { return OpRunner(*this, op).Run(); }

}  // namespace tilejit::devgen::internal
