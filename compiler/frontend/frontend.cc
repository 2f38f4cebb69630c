// SPDX-License-Identifier: Apache-2.0
// The frontend entry: parse, find the entry factory, evaluate its decorator and body, trace
// the returned prim_func, then merge and normalise what the request overrides. Internal
// check failures are caught here (once) and become an internal-error diagnostic, so a bug
// never escapes as an exception.
#include "compiler/frontend/frontend.h"

#include <new>

#include "compiler/frontend/host_eval.h"
#include "compiler/frontend/parser.h"
#include "compiler/frontend/tracer.h"
#include "compiler/ir/hash.h"
#include "compiler/ir/ir_parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/key.h"
#include "compiler/target/npu_target.h"

namespace tilejit::frontend {
namespace {

// Request-level settings the decorator may also give, with where each came from.
struct Settings {
  std::optional<Value> out_idx, workspace_idx, pass_configs, target;
  SourceLoc out_loc, ws_loc, pc_loc, target_loc;
};

std::optional<std::vector<int>> IndexList(const Value& v, std::string_view what, SourceLoc loc,
                                          DiagnosticEngine* diag) {
  std::vector<int> out;
  if (v.kind == ValueKind::kNone) return out;
  std::vector<Value> items = v.is_sequence() ? *v.items : std::vector<Value>{v};
  for (const Value& x : items) {
    if (x.kind != ValueKind::kInt || x.i < -(1 << 20) || x.i > (1 << 20)) {
      diag->Error(loc) << what << " must be an int or a list of ints, not " << Repr(v);
      return std::nullopt;
    }
    out.push_back(static_cast<int>(x.i));
  }
  return out;
}

Value IndexValue(const std::vector<int>& idx) {
  std::vector<Value> items;
  for (int i : idx) items.push_back(Value::Int(i));
  return Value::List(std::move(items));
}

std::optional<std::vector<int>> Normalize(const std::optional<Value>& v, std::string_view what,
                                          int num_params, SourceLoc loc, DiagnosticEngine* diag) {
  if (!v) return std::vector<int>{};
  auto list = IndexList(*v, what, loc, diag);
  if (!list) return std::nullopt;
  auto r = compiler::NormalizeParamIndices(*list, num_params, what);
  if (!r.ok()) {
    diag->Error(loc) << r.status().message() << " (the prim_func has " << num_params
                     << " parameters)";
    return std::nullopt;
  }
  return *r;
}

bool AddConfigs(const Value& dict, SourceLoc loc, DiagnosticEngine* diag,
                std::vector<compiler::PassConfigEntry>* out) {
  if (dict.kind == ValueKind::kNone) return true;
  if (dict.kind != ValueKind::kDict) {
    diag->Error(loc) << "pass_configs must be a dict, not " << TypeName(dict);
    return false;
  }
  for (size_t n = 0; n < dict.size(); ++n) {
    const Value& k = dict.item(n);
    const Value& v = (*dict.values)[n];
    if (k.kind != ValueKind::kString) {
      diag->Error(loc) << "pass_configs keys must be strings, not " << Repr(k);
      return false;
    }
    compiler::PassConfigValue pv;
    if (v.kind == ValueKind::kBool) {
      pv = v.b;
    } else if (v.kind == ValueKind::kInt) {
      pv = v.i;
    } else if (v.kind == ValueKind::kFloat) {
      pv = v.f;
    } else if (v.kind == ValueKind::kString) {
      pv = v.text;
    } else {
      diag->Error(loc) << "pass config '" << k.text << "' has an unsupported value " << Repr(v);
      return false;
    }
    out->push_back({k.text, pv});
  }
  return true;
}

// Applies the request's overrides, normalises indices, configs and the target.
bool Finish(const FrontendRequest& req, const Settings& s, int num_params, SourceLoc where,
            DiagnosticEngine* diag, FrontendResult* r) {
  std::optional<Value> out = req.out_idx ? IndexValue(*req.out_idx) : s.out_idx;
  std::optional<Value> ws = req.workspace_idx ? IndexValue(*req.workspace_idx) : s.workspace_idx;
  auto o = Normalize(out, "out_idx", num_params, req.out_idx ? where : s.out_loc, diag);
  auto w = Normalize(ws, "workspace_idx", num_params, req.workspace_idx ? where : s.ws_loc, diag);
  if (!o || !w) return false;
  for (int i : *o) {
    for (int j : *w) {
      if (i == j) {
        diag->Error(req.workspace_idx ? where : s.ws_loc)
            << "parameter " << i << " is listed in both out_idx and workspace_idx";
        return false;
      }
    }
  }
  r->out_idx = *o;
  r->workspace_idx = *w;
  if (s.pass_configs && !AddConfigs(*s.pass_configs, s.pc_loc, diag, &r->pass_configs)) {
    return false;
  }
  std::vector<Value> keys, vals;
  for (const auto& [k, v] : req.pass_configs) {
    keys.push_back(Value::Str(k));
    vals.push_back(v);
  }
  if (!AddConfigs(Value::Dict(keys, vals), where, diag, &r->pass_configs)) return false;
  auto norm = compiler::NormalizePassConfigs(r->pass_configs);
  if (!norm.ok()) {
    diag->Error(req.pass_configs.empty() && s.pc_loc.known() ? s.pc_loc : where)
        << norm.status().message();
    return false;
  }
  r->normalized_configs = *norm;
  r->ignored_keys = norm->ignored_keys;
  for (const std::string& k : r->ignored_keys) {
    diag->Warning(s.pc_loc.known() ? s.pc_loc : where)
        << "pass config '" << k << "' has no effect on this target and is ignored";
  }
  for (const std::string& w : norm->warnings) {
    diag->Warning(s.pc_loc.known() ? s.pc_loc : where) << w;
  }
  std::string target(kDefaultTarget);
  SourceLoc tloc = s.target_loc;
  if (req.target) {
    target = *req.target;
    tloc = where;
  } else if (s.target) {
    if (s.target->kind != ValueKind::kString) {
      diag->Error(tloc) << "target must be a string, not " << Repr(*s.target);
      return false;
    }
    target = s.target->text == "auto" || s.target->text == "ascendc" ? std::string(kDefaultTarget)
                                                                     : s.target->text;
  }
  const target::NpuTarget* desc = target::FindTarget(target);
  if (desc == nullptr) {
    std::string known;
    for (std::string_view name : target::TargetNames())
      known += (known.empty() ? "" : ", ") + std::string(name);
    diag->Error(tloc) << "unknown target '" << target << "' (known: " << known << ")";
    return false;
  }
  r->target = std::string(desc->name);
  return true;
}

// The top of file `file`, or no location when the request registered no file.
SourceLoc Top(const SourceManager& sources, uint32_t file) {
  return file <= sources.file_count() ? SourceLoc{file, 1, 1} : SourceLoc{};
}

// Settles the request's settings over `s`, then traces `prim` with the parameter roles they
// give.
std::optional<FrontendResult> TraceEntry(const FrontendRequest& req, const FunctionValue& prim,
                                         const Settings& s, SourceLoc def_loc, Tracer* tracer,
                                         DiagnosticEngine* diag) {
  FrontendResult r;
  int num_params = static_cast<int>(Tracer::NumParams(prim));
  if (!Finish(req, s, num_params, def_loc, diag, &r)) return std::nullopt;
  std::vector<ir::BufferRole> roles(num_params, ir::BufferRole::kInput);
  for (int i : r.out_idx) roles[i] = ir::BufferRole::kOutput;
  for (int i : r.workspace_idx) roles[i] = ir::BufferRole::kWorkspace;
  auto kernel = tracer->TracePrimFunc(prim, roles);
  if (!kernel) return std::nullopt;
  kernel->out_idx = r.out_idx;
  kernel->workspace_idx = r.workspace_idx;
  r.kernel = std::move(*kernel);
  return r;
}

std::optional<FrontendResult> RunTileLang(const FrontendRequest& req, uint32_t file,
                                          HostBudget* budget, SourceManager* sources,
                                          DiagnosticEngine* diag) {
  auto module = ParseModule(*sources, file);
  if (!module.ok()) {
    diag->Error(SourceLoc{file, 1, 1}) << module.status().message();
    return std::nullopt;
  }
  if (module->refused) {  // CPython would not run this file at all
    diag->Error(module->refused->loc) << module->refused->message;
    return std::nullopt;
  }
  ModuleEnv env(&*module, sources);
  env.set_budget(budget);
  for (const auto& [name, v] : req.globals) env.SetGlobal(name, v);
  Tracer tracer(&env, diag);
  int index = env.FindDef(req.entry);
  if (index < 0) {
    diag->Error(SourceLoc{file, 1, 1})
        << "entry '" << req.entry << "' not found: the file has no top-level def of that name";
    return std::nullopt;
  }
  const Stmt& def = *module->body[index];
  if (def.kind == StmtKind::kUnsupported) {
    ReportUnsupported(def, diag);
    return std::nullopt;
  }
  const SourceLoc def_loc = tracer.DefKeywordLoc(def);
  JitDecorator jit = tracer.EvalJitDecorator(def);
  if (diag->has_errors()) return std::nullopt;
  auto fn = tracer.MakeFunction(def, std::make_shared<Scope>());
  if (!fn) return std::nullopt;
  std::optional<Value> prim = *fn;
  if (fn->func->kind != FunctionKind::kPrimFunc) {
    prim = tracer.CallFunction(*fn->func, req.args, req.kwargs, def_loc);
    if (!prim) return std::nullopt;
    if (prim->kind != ValueKind::kFunction || prim->func->kind != FunctionKind::kPrimFunc) {
      diag->Error(def_loc) << "factory '" << req.entry << "' must return a @T.prim_func, not "
                           << Repr(*prim);
      return std::nullopt;
    }
  } else if (!req.args.empty() || !req.kwargs.empty()) {
    diag->Error(def_loc) << "entry '" << req.entry << "' is a prim_func and takes no arguments";
    return std::nullopt;
  }
  if (!jit.present) {
    diag->Warning(def_loc) << "entry '" << req.entry << "' has no @tilelang.jit decorator";
  }
  Settings s{jit.out_idx,     jit.workspace_idx,     jit.pass_configs,     jit.target,
             jit.out_idx_loc, jit.workspace_idx_loc, jit.pass_configs_loc, jit.target_loc};
  return TraceEntry(req, *prim->func, s, def_loc, &tracer, diag);
}

// A PRIM_FUNC request: no factory runs here and no module level exists; the prim_func and
// what it reads come from the client (client_values.h), its settings from the request.
std::optional<FrontendResult> RunPrimFunc(const FrontendRequest& req, HostBudget* budget,
                                          SourceManager* sources, DiagnosticEngine* diag) {
  if (req.files.empty() || req.functions.empty()) {
    diag->Error(SourceLoc{}) << "a prim_func request needs its files and its function table";
    return std::nullopt;
  }
  std::vector<uint32_t> ids;
  for (const SourceFile& f : req.files) ids.push_back(sources->AddFile(f.name, f.text));
  Module none;
  none.file_id = ids[0];
  ModuleEnv env(&none, sources);
  env.set_budget(budget);
  env.set_unbound_hint(" (the client sent no value for it)");
  Tracer tracer(&env, diag);
  ClientResolver resolver(&tracer, ids);
  auto fns = resolver.Resolve(req.functions);
  if (!fns) return std::nullopt;
  const FunctionValue& prim = *(*fns)[0].func;
  const SourceLoc def_loc = tracer.DefKeywordLoc(*prim.def);
  if (prim.kind != FunctionKind::kPrimFunc) {
    diag->Error(def_loc) << "function '" << req.functions[0].qualname << "' is not a @T.prim_func";
    return std::nullopt;
  }
  Settings s;
  for (SourceLoc* l : {&s.out_loc, &s.ws_loc, &s.pc_loc, &s.target_loc}) *l = def_loc;
  return TraceEntry(req, prim, s, def_loc, &tracer, diag);
}

std::optional<FrontendResult> RunTileIr(const FrontendRequest& req, uint32_t file,
                                        SourceManager* sources, DiagnosticEngine* diag) {
  auto kernel = ir::ParseTileIr(*sources, file, diag);
  if (!kernel.ok()) return std::nullopt;
  FrontendResult r;
  SourceLoc where{file, 1, 1};
  Settings s;
  s.out_idx = IndexValue(kernel->out_idx);
  s.workspace_idx = IndexValue(kernel->workspace_idx);
  int num_params = static_cast<int>(kernel->params.size());
  if (!Finish(req, s, num_params, where, diag, &r)) return std::nullopt;
  if (r.out_idx != kernel->out_idx || r.workspace_idx != kernel->workspace_idx) {
    diag->Error(where) << "out_idx and workspace_idx of Tile IR input are fixed by its params "
                          "and cannot be overridden";
    return std::nullopt;
  }
  r.kernel = std::move(*kernel);
  return r;
}

void Classify(const ir::Stmt& s, bool* cube, bool* vector) {
  if (s == nullptr) return;
  switch (s->kind) {
    case ir::StmtKind::kSeq:
      for (const ir::Stmt& c : ir::As<ir::SeqNode>(s).stmts) Classify(c, cube, vector);
      return;
    case ir::StmtKind::kKernel:
      return Classify(ir::As<ir::KernelNode>(s).body, cube, vector);
    case ir::StmtKind::kFor: {
      const auto& f = ir::As<ir::ForNode>(s);
      if (f.for_kind == ir::ForKind::kParallel) *vector = true;
      return Classify(f.body, cube, vector);
    }
    case ir::StmtKind::kIf:
      Classify(ir::As<ir::IfNode>(s).then_body, cube, vector);
      return Classify(ir::As<ir::IfNode>(s).else_body, cube, vector);
    case ir::StmtKind::kLet:
      return Classify(ir::As<ir::LetNode>(s).body, cube, vector);
    case ir::StmtKind::kCoreScope: {
      const auto& c = ir::As<ir::CoreScopeNode>(s);
      (c.core == ir::CoreKind::kCube ? *cube : *vector) = true;
      return Classify(c.body, cube, vector);
    }
    case ir::StmtKind::kTileOp: {
      const auto& op = ir::As<ir::TileOpNode>(s);
      if (op.op == ir::TileOpCode::kGemmV0 || op.op == ir::TileOpCode::kMma) {
        *cube = true;
      } else if (op.op != ir::TileOpCode::kCopy) {
        *vector = true;
      } else {
        for (const ir::Operand& o : op.args) {
          const auto* r = std::get_if<ir::Region>(&o);
          if (r == nullptr) continue;
          ir::MemScope sc = r->buffer->scope;
          if (sc == ir::MemScope::kUB) *vector = true;
          if (sc == ir::MemScope::kL1 || sc == ir::MemScope::kL0A || sc == ir::MemScope::kL0B ||
              sc == ir::MemScope::kL0C || sc == ir::MemScope::kFragment) {
            *cube = true;
          }
        }
      }
      return;
    }
    default:
      return;
  }
}

}  // namespace

std::string_view KernelKindName(KernelKind k) {
  switch (k) {
    case KernelKind::kCubeOnly:
      return "cube";
    case KernelKind::kVectorOnly:
      return "vector";
    case KernelKind::kMixed:
      return "mixed";
  }
  return "?";
}

KernelKind ClassifyKernel(const ir::Kernel& kernel) {
  bool cube = false, vector = false;
  Classify(kernel.body, &cube, &vector);
  if (cube && vector) return KernelKind::kMixed;
  return cube ? KernelKind::kCubeOnly : KernelKind::kVectorOnly;
}

Result<FrontendResult> RunFrontend(const FrontendRequest& request, SourceManager* sources,
                                   DiagnosticEngine* diag) {
  // The request's first file gets the next id; errors with no better place point at its top.
  const uint32_t file = static_cast<uint32_t>(sources->file_count()) + 1;
  std::optional<FrontendResult> r;
  HostBudget budget(request.limits, request.deadline, request.cancelled);
  try {
    HostBudget::Active active(&budget);
    if (request.format == SourceFormat::kPrimFunc) {
      r = RunPrimFunc(request, &budget, sources, diag);
    } else {
      sources->AddFile(request.file_name, request.source);
      r = request.format == SourceFormat::kTileIr
              ? RunTileIr(request, file, sources, diag)
              : RunTileLang(request, file, &budget, sources, diag);
    }
    if (r && !diag->has_errors()) {
      Status verified = ir::Verify(r->kernel, nullptr);
      if (!verified.ok()) {
        diag->Error(r->kernel.loc)
            << "internal error: the traced IR does not verify: " << verified.message();
      }
      r->kind = ClassifyKernel(r->kernel);
      for (const ir::Stmt& s : ir::StmtIdTable(r->kernel)) r->source_map.push_back(s->loc);
      r->ir_text = ir::PrintKernel(r->kernel);
      r->ir_hash = ir::IrHash(r->kernel);
    }
    budget.Report(Top(*sources, file), diag);  // an exhaustion no later step reported
  } catch (const InternalError& e) {
    diag->Error(Top(*sources, file)) << "internal error: " << e.what();
  } catch (const std::bad_alloc&) {
    diag->Error(Top(*sources, file)) << "the frontend ran out of memory (the factory's values "
                                        "held at most "
                                     << budget.peak_bytes() << " bytes)";
  }
  if (diag->has_errors() || !r) {
    if (!diag->has_errors()) diag->Error(Top(*sources, file)) << "compile failed";
    // Stopped by time, not by the kernel: callers must not remember it as the kernel's error.
    if (budget.stopped_by_time()) return DeadlineExceeded(diag->ToStatus().message());
    return diag->ToStatus();
  }
  return std::move(*r);
}

std::string FrontendCacheKey(const FrontendResult& result) {
  return FrontendCacheKey(result, kFrontendVersion);
}

std::string FrontendCacheKey(const FrontendResult& result, std::string_view compiler_fingerprint) {
  compiler::KeyInputs in;
  in.compiler_fingerprint = std::string(compiler_fingerprint);
  const target::NpuTarget* desc = target::FindTarget(result.target);
  TILEJIT_CHECK(desc != nullptr) << "unresolved target " << result.target;
  in.target_hash = target::TargetHash(*desc);
  in.ir_hash = result.ir_hash;
  in.pass_configs = result.normalized_configs;
  in.out_idx = result.out_idx;
  in.workspace_idx = result.workspace_idx;
  return compiler::ComputeCacheKey(in);
}

}  // namespace tilejit::frontend
