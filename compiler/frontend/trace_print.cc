// SPDX-License-Identifier: Apache-2.0
// T.printf and T.dump_tensor (docs/isa.md, "Device printing"). String arguments are known when
// the kernel is traced, so each is spliced into the format in place of its %s; what is left
// for the device are the runtime values. The conversions counted here are the ones the
// simulator formats (runner/sim/device_print.h), so a count mismatch is a located error now
// rather than "<missing>" in the output later.
#include <string>

#include "compiler/frontend/tracer.h"

namespace tilejit::frontend {
namespace {

constexpr std::string_view kSpecChars = "-+ #0123456789.hlLqjzt";
constexpr std::string_view kConversions = "diuxXocpeEfFgGs";

// The end of the conversion spec that starts at format[at] == '%' (one past its conversion
// character), or npos if the format ends inside it.
size_t SpecEnd(std::string_view format, size_t at) {
  size_t i = at + 1;
  while (i < format.size() && kSpecChars.find(format[i]) != std::string_view::npos) ++i;
  return i < format.size() ? i + 1 : std::string_view::npos;
}

std::string EscapePercent(std::string_view s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '%') out += '%';
  }
  return out;
}

}  // namespace

bool Tracer::TracePrintf(const Expr& call, const BoundArgs& b, std::vector<ir::Stmt>* out) {
  const SourceLoc loc = call.loc;
  if (b.empty() || !b[0] || b[0]->kind != ValueKind::kString) {
    diag().Error(b.empty() || !b[0] ? loc : LocOr(*b[0], loc))
        << "T.printf takes a format string first";
    return false;
  }
  const std::string& format = b[0]->text;
  std::string spliced;
  std::vector<ir::Operand> values;
  size_t next = 1;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      spliced += format[i];
      continue;
    }
    const size_t end = SpecEnd(format, i);
    if (end == std::string_view::npos) {
      diag().Error(loc) << "T.printf format ends inside a conversion: " << Repr(*b[0]);
      return false;
    }
    const char conv = format[end - 1];
    const std::string_view spec = std::string_view(format).substr(i, end - i);
    i = end - 1;
    if (conv == '%' || kConversions.find(conv) == std::string_view::npos) {
      spliced += spec;
      continue;
    }
    if (next >= b.size()) {
      diag().Error(loc) << "T.printf format " << Repr(*b[0]) << " has more conversions than the "
                        << b.size() - 1 << " argument(s) given";
      return false;
    }
    const Value& v = *b[next++];
    if ((conv == 's') != (v.kind == ValueKind::kString)) {
      diag().Error(LocOr(v, loc)) << "T.printf " << spec << " takes "
                                  << (conv == 's' ? "a string" : "a number") << ", not "
                                  << TypeName(v);
      return false;
    }
    if (conv == 's') {
      spliced += EscapePercent(v.text);
      continue;
    }
    std::optional<ir::Expr> e = ToExpr(v, LocOr(v, loc));
    if (!e) return false;
    spliced += spec;
    values.push_back(*e);
  }
  if (next != b.size()) {
    diag().Error(loc) << "T.printf got " << b.size() - 1 << " argument(s) for the " << next - 1
                      << " conversion(s) of its format " << Repr(*b[0]);
    return false;
  }
  if (values.size() > 32) {
    diag().Error(loc) << "T.printf takes at most 32 runtime values, not " << values.size();
    return false;
  }
  out->push_back(
      ir::MakeTileOp(ir::TileOpCode::kPrintf, std::move(values), {{"format", spliced}}, loc));
  return true;
}

bool Tracer::TraceDumpTensor(const Expr& call, const BoundArgs& b, std::vector<ir::Stmt>* out) {
  const SourceLoc loc = call.loc;
  // A tensor, a region of it, or one element (`x[8]`: AscendC dumps from a tensor offset).
  std::optional<ir::Region> src;
  if (b[0]->kind == ValueKind::kElement && b[0]->buffer->scope != ir::MemScope::kLocalVar) {
    src = ir::Region{b[0]->buffer, {}, LocOr(*b[0], loc)};
    for (const ir::Expr& i : b[0]->indices) src->ranges.push_back({i, 1});
  } else {
    src = RegionOperand(*b[0], "T.dump_tensor's tensor", loc);
  }
  if (!src) return false;
  const Value& desc = *b[1];
  const Value& size = *b[2];
  if (desc.kind != ValueKind::kInt || size.kind != ValueKind::kInt) {
    diag().Error(LocOr(desc.kind != ValueKind::kInt ? desc : size, loc))
        << "T.dump_tensor's desc and dump_size must be ints";
    return false;
  }
  // Elements from the region's first one to the buffer's end (a static start only).
  int64_t offset = 0, stride = 1;
  for (size_t d = src->ranges.size(); d-- > 0;) {
    std::optional<int64_t> lo = ir::AsConstInt(src->ranges[d].min);
    offset += lo.value_or(0) * stride;
    stride *= src->buffer->shape[d];
  }
  const int64_t available = src->buffer->num_elements() - offset;
  if (size.i < 1 || size.i > available || size.i > (int64_t{1} << 20)) {
    diag().Error(LocOr(size, loc))
        << "T.dump_tensor dump_size " << size.i << " must be in 1.."
        << std::min<int64_t>(available, int64_t{1} << 20) << " (the elements of '"
        << src->buffer->name << "' from the dumped one on)";
    return false;
  }
  std::string shape;
  if (b[3] && b[3]->kind != ValueKind::kNone) {
    const Value& s = *b[3];
    const bool seq = s.kind == ValueKind::kTuple || s.kind == ValueKind::kList;
    for (size_t i = 0; seq && i < s.items->size(); ++i) {
      const Value& d = (*s.items)[i];
      if (d.kind != ValueKind::kInt || d.i < 1 || d.i > (int64_t{1} << 20) || i >= 16) {
        diag().Error(LocOr(s, loc)) << "T.dump_tensor shape_info must be a tuple of at most 16 "
                                       "positive ints";
        return false;
      }
      shape += (i ? "x" : "") + std::to_string(d.i);
    }
    if (!seq) {
      diag().Error(LocOr(s, loc)) << "T.dump_tensor shape_info must be a tuple, not "
                                  << TypeName(s);
      return false;
    }
  }
  out->push_back(ir::MakeTileOp(ir::TileOpCode::kDumpTensor, {*src},
                                {{"count", size.i}, {"desc", desc.i}, {"shape", shape}}, loc));
  return true;
}

ir::Stmt Tracer::PrintsIntoLaunch(const ir::Stmt& body) {
  const auto* seq = ir::TryAs<ir::SeqNode>(body);
  if (seq == nullptr) return body;
  std::vector<ir::Stmt> before, after;
  const ir::KernelNode* launch = nullptr;
  for (const ir::Stmt& s : seq->stmts) {
    if (const auto* k = ir::TryAs<ir::KernelNode>(s)) {
      if (launch != nullptr) return body;
      launch = k;
      continue;
    }
    const auto* op = ir::TryAs<ir::TileOpNode>(s);
    if (op == nullptr || ir::TileOpFamilyOf(op->op) != ir::TileOpFamily::kDebug) return body;
    (launch == nullptr ? before : after).push_back(s);
  }
  if (launch == nullptr) return body;
  before.push_back(launch->body);
  before.insert(before.end(), after.begin(), after.end());
  return std::make_shared<ir::KernelNode>(launch->grid, launch->threads, launch->cid, launch->vid,
                                          ir::Seq(std::move(before), launch->body->loc),
                                          launch->loc);
}

}  // namespace tilejit::frontend
