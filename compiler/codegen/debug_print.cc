// SPDX-License-Identifier: Apache-2.0
// Why the text is not in the instruction stream: a format string or a dump's shape has no
// bounded size, so it lives in the kernel metadata as a print record and the instructions
// name it (msg); the program only passes what changes at run time, the printf values and the
// dump's address.
//
// Why barrier(all) before a dump: the dump reads memory on the scalar unit, and the buffer it
// shows is usually being filled by a pipe; waiting for every pipe makes the dump show what the
// program wrote before it, in Developer and Expert mode alike, at a cost only debugging pays.
#include <charconv>

#include "common/check.h"
#include "compiler/codegen/emitter_internal.h"
#include "compiler/codegen/ops.h"

namespace tilejit::codegen {
namespace {

using target::Instr;
using target::Opcode;
using target::PrintRecord;

const std::string& StringAttr(const ir::TileOpNode& op, std::string_view key) {
  const ir::AttrValue* v = op.FindAttr(key);
  TILEJIT_CHECK(v != nullptr && std::holds_alternative<std::string>(*v))
      << ir::TileOpName(op.op) << " without its " << key << " attribute";
  return std::get<std::string>(*v);
}

int64_t IntAttr(const ir::TileOpNode& op, std::string_view key) {
  const ir::AttrValue* v = op.FindAttr(key);
  TILEJIT_CHECK(v != nullptr && std::holds_alternative<int64_t>(*v))
      << ir::TileOpName(op.op) << " without its " << key << " attribute";
  return std::get<int64_t>(*v);
}

// "2x16" -> {2, 16}; "" -> {}.
std::vector<int64_t> ParseShape(const std::string& text) {
  std::vector<int64_t> dims;
  for (size_t at = 0; at < text.size();) {
    int64_t d = 0;
    auto [end, ec] = std::from_chars(text.data() + at, text.data() + text.size(), d);
    TILEJIT_CHECK(ec == std::errc()) << "dump_tensor shape '" << text << "' is not NxM...";
    dims.push_back(d);
    at = static_cast<size_t>(end - text.data()) + 1;  // past the 'x'
  }
  return dims;
}

Status AddRecord(Emitter& e, PrintRecord r, Instr* in) {
  std::vector<PrintRecord>* prints = e.prints();
  TILEJIT_CHECK(prints != nullptr) << "device printing without a print record table";
  if (prints->size() >= target::kMaxPrints) {
    e.diag().Error(e.loc()) << "more than " << target::kMaxPrints
                            << " T.printf / T.dump_tensor calls in one kernel";
    return e.diag().ToStatus();
  }
  in->msg = static_cast<int64_t>(prints->size());
  prints->push_back(std::move(r));
  return Status::Ok();
}

Status EmitPrintf(Emitter& e, const ir::TileOpNode& op) {
  PrintRecord r;
  r.kind = target::PrintKind::kPrintf;
  r.format = StringAttr(op, "format");
  for (const ir::Operand& arg : op.args) {
    const ir::Expr& x = std::get<ir::Expr>(arg);
    const bool is_float = ir::IsFloat(x->dtype);
    TILEJIT_ASSIGN_OR_RETURN(target::Opnd v, is_float ? e.FloatBits(x) : e.Int(x));
    Instr a{.op = Opcode::kDbgArg};
    a.rs1 = e.InReg(v);
    e.Emit(a);
    r.args.push_back(is_float ? target::ElementType::kFloat32 : target::ElementType::kInt64);
  }
  Instr print{.op = Opcode::kDbgPrint};
  TILEJIT_RETURN_IF_ERROR(AddRecord(e, std::move(r), &print));
  e.Emit(print);
  return Status::Ok();
}

Status EmitDumpTensor(Emitter& e, const ir::TileOpNode& op) {
  const ir::Region& src = std::get<ir::Region>(op.args[0]);
  TILEJIT_ASSIGN_OR_RETURN(RegionRef ref, e.RegionAddress(src));
  PrintRecord r;
  r.kind = target::PrintKind::kDump;
  r.memory = std::string(ir::MemScopeName(src.buffer->scope));
  r.dtype = src.buffer->dtype;
  r.count = IntAttr(op, "count");
  r.desc = IntAttr(op, "desc");
  r.shape = ParseShape(StringAttr(op, "shape"));
  Instr barrier{.op = Opcode::kBarrier};
  barrier.pipe = target::Pipe::kAll;
  e.Emit(barrier);
  Instr dump{.op = Opcode::kDbgDump};
  dump.src = ref.address;
  TILEJIT_RETURN_IF_ERROR(AddRecord(e, std::move(r), &dump));
  e.Emit(dump);
  return Status::Ok();
}

}  // namespace

Status EmitDebug(Emitter& e, const ir::TileOpNode& op) {
  return op.op == ir::TileOpCode::kPrintf ? EmitPrintf(e, op) : EmitDumpTensor(e, op);
}

}  // namespace tilejit::codegen
