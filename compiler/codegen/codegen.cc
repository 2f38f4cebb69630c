// SPDX-License-Identifier: Apache-2.0
// Codegen entry: checks the launch, lowers one program per core type that has work
// (codegen_stmt.cc), encodes them and fills the kernel metadata. Everything here iterates
// the IR in order and never over pointer-keyed containers, so equal inputs give equal bytes.
#include "compiler/codegen/codegen.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/check.h"
#include "compiler/codegen/codegen_internal.h"
#include "compiler/ir/buffer_layout.h"
#include "compiler/ir/printer.h"
#include "compiler/target/line_table.h"

namespace tilejit::codegen {
namespace {

// The T.Kernel launch, possibly behind prelude Lets/Seqs.
const ir::KernelNode* FindLaunch(const ir::Stmt& s) {
  if (s == nullptr) return nullptr;
  switch (s->kind) {
    case ir::StmtKind::kKernel:
      return &ir::As<ir::KernelNode>(s);
    case ir::StmtKind::kLet:
      return FindLaunch(ir::As<ir::LetNode>(s).body);
    case ir::StmtKind::kSeq:
      for (const auto& c : ir::As<ir::SeqNode>(s).stmts) {
        if (const auto* k = FindLaunch(c)) return k;
      }
      return nullptr;
    default:
      return nullptr;
  }
}

// Calls fn on every statement of `s` in pre-order.
template <typename Fn>
void ForEachStmt(const ir::Stmt& s, const Fn& fn) {
  if (s == nullptr) return;
  fn(s);
  switch (s->kind) {
    case ir::StmtKind::kSeq:
      for (const auto& c : ir::As<ir::SeqNode>(s).stmts) ForEachStmt(c, fn);
      break;
    case ir::StmtKind::kKernel:
      ForEachStmt(ir::As<ir::KernelNode>(s).body, fn);
      break;
    case ir::StmtKind::kFor:
      ForEachStmt(ir::As<ir::ForNode>(s).body, fn);
      break;
    case ir::StmtKind::kIf:
      ForEachStmt(ir::As<ir::IfNode>(s).then_body, fn);
      ForEachStmt(ir::As<ir::IfNode>(s).else_body, fn);
      break;
    case ir::StmtKind::kLet:
      ForEachStmt(ir::As<ir::LetNode>(s).body, fn);
      break;
    case ir::StmtKind::kCoreScope:
      ForEachStmt(ir::As<ir::CoreScopeNode>(s).body, fn);
      break;
    default:
      break;
  }
}

target::CoreCode Encode(const std::vector<target::Instr>& prog, const std::vector<uint64_t>& w) {
  target::CoreCode code;
  code.code.reserve(w.size() * 8);
  for (uint64_t word : w) {
    for (int i = 0; i < 8; ++i) code.code.push_back(static_cast<uint8_t>(word >> (8 * i)));
  }
  code.line_table.reserve(prog.size());
  for (const auto& in : prog) code.line_table.push_back(in.line);
  return code;
}

// Canonical names of params or symbols: the name hint when it is a unique printable
// identifier, else "<prefix><i>" for every one (a mix could collide).
template <typename Node>
std::vector<std::string> CanonicalNames(const std::vector<const Node*>& nodes,
                                        const std::string& prefix) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  bool ok = true;
  for (const Node* p : nodes) {
    const std::string& n = p->name;
    const bool printable =
        !n.empty() && n.size() <= 64 && std::all_of(n.begin(), n.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '.';
        });
    ok = ok && printable && seen.insert(n).second;
    names.push_back(n);
  }
  if (!ok) {
    for (size_t i = 0; i < names.size(); ++i) names[i] = prefix + std::to_string(i);
  }
  return names;
}

Status FillParams(const ir::Kernel& k, DiagnosticEngine* diag, target::KernelMetadata* m) {
  std::vector<const ir::BufferNode*> params;
  for (const ir::Buffer& b : k.params) params.push_back(b.get());
  const std::vector<std::string> names = CanonicalNames(params, "p");
  for (size_t i = 0; i < k.params.size(); ++i) {
    const ir::BufferNode& b = *k.params[i];
    target::KernelParam p;
    p.name = names[i];
    p.shape = b.shape;
    for (size_t d = 0; d < b.dim_symbols.size(); ++d) {
      if (b.dim_symbols[d] == nullptr) {
        p.dim_symbols.push_back(target::kStaticDim);
        continue;
      }
      auto it = std::find(k.symbols.begin(), k.symbols.end(), b.dim_symbols[d]);
      TILEJIT_CHECK(it != k.symbols.end()) << "param '" << b.name << "' dim of no kernel symbol";
      p.dim_symbols.push_back(static_cast<int>(it - k.symbols.begin()));
      p.shape[d] = 0;
    }
    p.dtype = b.dtype;
    switch (b.role) {
      case ir::BufferRole::kOutput:
        p.role = target::ParamRole::kOutput;
        break;
      case ir::BufferRole::kWorkspace:
        p.role = target::ParamRole::kWorkspace;
        // A pass-made workspace is [grid, ...]: block b owns row b of its leading dim.
        if (b.compiler_made) {
          TILEJIT_CHECK(!b.shape.empty() && b.shape[0] > 0)
              << "compiler workspace '" << b.name << "' has no [grid, ...] shape";
          p.compiler_workspace = true;
          p.workspace_bytes_per_block = b.size_bytes() / b.shape[0];
        }
        break;
      case ir::BufferRole::kInput:
        p.role = target::ParamRole::kInput;
        break;
      case ir::BufferRole::kLocal:
        diag->Error(b.loc) << "kernel parameter '" << b.name << "' has no role";
        return diag->ToStatus();
    }
    m->params.push_back(std::move(p));
  }
  if (k.symbols.size() > target::kMaxSymbols) {
    diag->Error(k.loc) << "the kernel has " << k.symbols.size() << " T.symbolic dims; at most "
                       << target::kMaxSymbols << " are supported";
    return diag->ToStatus();
  }
  std::vector<const ir::VarNode*> vars;
  for (const ir::Var& v : k.symbols) vars.push_back(v.get());
  for (const std::string& name : CanonicalNames(vars, "s")) {
    m->symbols.push_back(target::KernelSymbol{name, kMaxSymbolValue});
  }
  m->out_idx = k.out_idx;
  m->workspace_idx = k.workspace_idx;
  return Status::Ok();
}

target::OnChipUsage OnChip(const ir::Kernel& k, const target::NpuTarget& npu) {
  target::OnChipUsage u;
  ForEachStmt(k.body, [&](const ir::Stmt& s) {
    const auto* a = ir::TryAs<ir::AllocateNode>(s);
    if (a == nullptr || !a->buffer->address.has_value()) return;
    const ir::BufferNode& b = *a->buffer;
    int64_t* slot = nullptr;
    switch (b.scope) {
      case ir::MemScope::kL1:
        slot = &u.l1;
        break;
      case ir::MemScope::kL0A:
        slot = &u.l0a;
        break;
      case ir::MemScope::kL0B:
        slot = &u.l0b;
        break;
      case ir::MemScope::kL0C:
        slot = &u.l0c;
        break;
      case ir::MemScope::kUB:
        slot = &u.ub;
        break;
      default:
        return;
    }
    *slot = std::max(*slot, *b.address + ir::LayoutOf(b, npu).bytes);
  });
  return u;
}

// Appends the postfix program of a grid expression over the kernel's symbols (the metadata's
// `grid`); false when it reads anything else, which no launch could evaluate.
bool GridTokens(const ir::Expr& e, const std::vector<ir::Var>& symbols,
                std::vector<std::string>* out) {
  if (auto c = ir::AsConstInt(e)) {
    out->push_back("c" + std::to_string(*c));
    return true;
  }
  if (const auto* v = ir::TryAs<ir::VarRefNode>(e)) {
    auto it = std::find(symbols.begin(), symbols.end(), v->var);
    if (it == symbols.end()) return false;
    out->push_back("s" + std::to_string(it - symbols.begin()));
    return true;
  }
  const auto* b = ir::TryAs<ir::BinaryNode>(e);
  if (b == nullptr) return false;
  static const std::map<ir::BinaryOp, std::string> kOps = {
      {ir::BinaryOp::kAdd, "+"},       {ir::BinaryOp::kSub, "-"},      {ir::BinaryOp::kMul, "*"},
      {ir::BinaryOp::kFloorDiv, "//"}, {ir::BinaryOp::kFloorMod, "%"}, {ir::BinaryOp::kMin, "min"},
      {ir::BinaryOp::kMax, "max"}};
  auto op = kOps.find(b->op);
  if (op == kOps.end() || !GridTokens(b->a, symbols, out) || !GridTokens(b->b, symbols, out)) {
    return false;
  }
  out->push_back(op->second);
  return true;
}

// Checks the launch; returns the block count, or 0 with the grid's program in `grid` when
// the grid depends on symbols.
Result<int64_t> CheckLaunch(const ir::Kernel& k, const ir::KernelNode* launch,
                            DiagnosticEngine* diag, std::vector<std::string>* grid_program) {
  if (launch == nullptr) {
    diag->Error(k.loc) << "kernel '" << k.name << "' has no T.Kernel launch";
    return diag->ToStatus();
  }
  auto grid = ir::AsConstInt(launch->grid);
  const SourceLoc loc =
      launch->grid != nullptr && launch->grid->loc.known() ? launch->grid->loc : launch->loc;
  if (!grid.has_value()) {
    if (!k.symbols.empty() && GridTokens(launch->grid, k.symbols, grid_program) &&
        grid_program->size() <= target::kMaxGridTokens) {
      return 0;
    }
    diag->Error(loc) << "the launch grid must be a compile-time constant or an expression of "
                     << "T.symbolic dims (got `" << ir::PrintExpr(launch->grid) << "`)";
    return diag->ToStatus();
  }
  if (*grid < 1 || *grid > target::kMaxBlockCount) {
    diag->Error(loc) << "the launch grid " << *grid << " is outside [1, " << target::kMaxBlockCount
                     << "]";
    return diag->ToStatus();
  }
  return *grid;
}

}  // namespace

LineMap BuildLineMap(const ir::Kernel& frontend_kernel) {
  LineMap map;
  const std::vector<ir::Stmt> table = ir::StmtIdTable(frontend_kernel);
  for (size_t id = 0; id < table.size(); ++id) {
    const SourceLoc& l = table[id]->loc;
    if (!l.known()) continue;
    map.emplace(std::tuple{l.file_id, l.line, l.column}, static_cast<uint32_t>(id));
  }
  return map;
}

uint32_t LineOf(const LineMap& lines, SourceLoc loc) {
  if (!loc.known()) return target::kNoStmt;
  auto it = lines.find(std::tuple{loc.file_id, loc.line, loc.column});
  return it == lines.end() ? target::kNoStmt : it->second;
}

bool ContainsScope(const ir::Stmt& s, ir::CoreKind kind) {
  bool found = false;
  ForEachStmt(s, [&](const ir::Stmt& x) {
    const auto* c = ir::TryAs<ir::CoreScopeNode>(x);
    found = found || (c != nullptr && c->core == kind);
  });
  return found;
}

bool HasWork(const ir::Stmt& s, ir::CoreKind kind) {
  if (s == nullptr) return false;
  switch (s->kind) {
    case ir::StmtKind::kSeq: {
      const auto& seq = ir::As<ir::SeqNode>(s);
      return std::any_of(seq.stmts.begin(), seq.stmts.end(),
                         [&](const ir::Stmt& c) { return HasWork(c, kind); });
    }
    case ir::StmtKind::kKernel:
      return HasWork(ir::As<ir::KernelNode>(s).body, kind);
    case ir::StmtKind::kAllocate:
      return false;
    case ir::StmtKind::kFor:
      return HasWork(ir::As<ir::ForNode>(s).body, kind);
    case ir::StmtKind::kIf: {
      const auto& i = ir::As<ir::IfNode>(s);
      return HasWork(i.then_body, kind) || HasWork(i.else_body, kind);
    }
    case ir::StmtKind::kLet:
      return HasWork(ir::As<ir::LetNode>(s).body, kind);
    case ir::StmtKind::kStore:  // UB exists only on the vector cores
      return ir::As<ir::StoreNode>(s).buffer->scope != ir::MemScope::kUB ||
             kind == ir::CoreKind::kVector;
    case ir::StmtKind::kCoreScope:
      return ir::As<ir::CoreScopeNode>(s).core == kind;
    default:
      return true;  // tile ops and syncs (outside a scope: diagnosed by the walker)
  }
}

Result<target::KernelBinary> Codegen(const CodegenInput& input, DiagnosticEngine* diag) {
  TILEJIT_CHECK(input.kernel != nullptr && input.target != nullptr && diag != nullptr)
      << "Codegen needs a kernel, a target and a diagnostic engine";
  const ir::Kernel& k = *input.kernel;
  const target::NpuTarget& npu = *input.target;
  const ir::KernelNode* launch = FindLaunch(k.body);
  target::KernelBinary bin;
  TILEJIT_ASSIGN_OR_RETURN(const int64_t blocks, CheckLaunch(k, launch, diag, &bin.metadata.grid));
  const bool cube = ContainsScope(k.body, ir::CoreKind::kCube);
  const bool vector = ContainsScope(k.body, ir::CoreKind::kVector);
  if (!cube && !vector) {
    diag->Error(launch->loc) << "the kernel has no `scope cube` or `scope vector` work";
    return diag->ToStatus();
  }
  const ir::Kernel& fe = input.frontend_kernel != nullptr ? *input.frontend_kernel : k;
  const LineMap lines = BuildLineMap(fe);
  const std::vector<ir::Stmt> stmt_ids = ir::StmtIdTable(fe);

  for (target::CoreType core : {target::CoreType::kAic, target::CoreType::kAiv}) {
    if (!(core == target::CoreType::kAic ? cube : vector)) continue;
    TILEJIT_ASSIGN_OR_RETURN(
        auto prog, LowerProgram(k, core, npu, lines, stmt_ids, &bin.metadata.prints, diag));
    auto words = target::EncodeProgram(prog);
    if (!words.ok()) return words.status().WithContext("codegen: encoding the program");
    (core == target::CoreType::kAic ? bin.aic : bin.aiv) = Encode(prog, *words);
  }

  target::KernelMetadata& m = bin.metadata;
  m.kernel_name = k.name.empty() ? "main" : k.name;
  m.target = std::string(npu.name);
  m.compiler_fingerprint = input.compiler_fingerprint;
  m.cache_key = input.cache_key;
  TILEJIT_RETURN_IF_ERROR(FillParams(k, diag, &m));
  m.block_count = blocks;
  m.core_mix = cube && vector ? target::CoreMix::kMixed
                              : (cube ? target::CoreMix::kCubeOnly : target::CoreMix::kVectorOnly);
  m.vector_cores_per_block = !vector ? 0 : (launch->threads == 1 ? 1 : 2);
  m.on_chip = OnChip(k, npu);
  Status valid = target::ValidateKernelBinary(bin);
  if (!valid.ok()) return Internal("codegen produced an invalid kernel binary: " + valid.message());
  return bin;
}

}  // namespace tilejit::codegen
