// SPDX-License-Identifier: Apache-2.0
#include "server/proto_convert.h"

#include <string>
#include <utility>

namespace tilejit::server {
namespace {

constexpr size_t kMaxIndices = 4096;
constexpr size_t kMaxTargetName = 64;

Result<std::optional<std::vector<int>>> Indices(const google::protobuf::RepeatedField<int32_t>& in,
                                                bool set, std::string_view field) {
  if (in.empty() && !set) return std::optional<std::vector<int>>();
  if (static_cast<size_t>(in.size()) > kMaxIndices) {
    return InvalidArgument(std::string(field) + " has more than " + std::to_string(kMaxIndices) +
                           " entries");
  }
  return std::optional<std::vector<int>>(std::vector<int>(in.begin(), in.end()));
}

Status CheckTarget(const std::string& target) {
  if (target.size() > kMaxTargetName) return InvalidArgument("target name is too long");
  for (char c : target) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) {
      return InvalidArgument("target name may hold only letters, digits, '_', '-' and '.'");
    }
  }
  return Status::Ok();
}

v1::Severity SeverityToProto(Severity s) {
  switch (s) {
    case Severity::kNote:
      return v1::NOTE;
    case Severity::kWarning:
      return v1::WARNING;
    case Severity::kError:
      return v1::ERROR;
  }
  return v1::SEVERITY_UNSPECIFIED;
}

std::string FindingKindSnake(runner::FindingKind kind) {
  return std::string(runner::FindingKindName(kind));
}

}  // namespace

Result<frontend::FrontendRequest> RequestFromProto(const v1::CompileRequest& in,
                                                   const ValueLimits& limits,
                                                   CompileOptions* options) {
  frontend::FrontendRequest r;
  r.source = in.source();
  r.file_name = in.file_name().empty() ? "<source>" : in.file_name();
  switch (in.format()) {
    case v1::TILELANG:
      r.format = frontend::SourceFormat::kTileLang;
      break;
    case v1::TILE_IR:
      r.format = frontend::SourceFormat::kTileIr;
      break;
    case v1::PRIM_FUNC:
      r.format = frontend::SourceFormat::kPrimFunc;
      break;
    default:
      return InvalidArgument("format " + std::to_string(in.format()) +
                             " is unknown (TILELANG, TILE_IR or PRIM_FUNC)");
  }
  r.entry = in.entry();
  if (in.args_size() > 0 && in.typed_args_size() > 0) {
    return InvalidArgument("give either args or typed_args, not both");
  }
  ValueBudget budget(limits);
  if (r.format == frontend::SourceFormat::kPrimFunc) {
    TILEJIT_RETURN_IF_ERROR(budget.ClientTable(in, &r));
  } else if (in.files_size() > 0 || in.functions_size() > 0) {
    return InvalidArgument("files and functions belong to PRIM_FUNC requests");
  }
  for (int i = 0; i < in.args_size(); ++i) {
    TILEJIT_ASSIGN_OR_RETURN(frontend::Value v,
                             budget.FromJson(in.args(i), "args[" + std::to_string(i) + "]"));
    r.args.push_back(std::move(v));
  }
  for (int i = 0; i < in.typed_args_size(); ++i) {
    TILEJIT_ASSIGN_OR_RETURN(
        frontend::Value v,
        budget.FromTyped(in.typed_args(i), "typed_args[" + std::to_string(i) + "]"));
    r.args.push_back(std::move(v));
  }
  TILEJIT_ASSIGN_OR_RETURN(r.kwargs, budget.Named(in.kwargs(), in.typed_kwargs(), "kwargs"));
  TILEJIT_ASSIGN_OR_RETURN(r.globals, budget.Named(in.globals(), in.typed_globals(), "globals"));
  TILEJIT_ASSIGN_OR_RETURN(
      r.pass_configs, budget.Named(in.pass_configs(), in.typed_pass_configs(), "pass_configs"));
  TILEJIT_ASSIGN_OR_RETURN(r.out_idx, Indices(in.out_idx(), in.out_idx_set(), "out_idx"));
  TILEJIT_ASSIGN_OR_RETURN(r.workspace_idx,
                           Indices(in.workspace_idx(), in.workspace_idx_set(), "workspace_idx"));
  if (!in.target().empty()) {
    TILEJIT_RETURN_IF_ERROR(CheckTarget(in.target()));
    r.target = in.target();
  }
  options->include_binary = in.include_binary();
  options->include_ir = in.include_ir();
  options->include_source_map = in.include_source_map();
  if (in.print_after_size() > 64) return InvalidArgument("print_after names more than 64 passes");
  for (const std::string& pass : in.print_after()) {
    if (pass.size() > 64) return InvalidArgument("print_after: pass name too long");
    options->print_after.push_back(pass);
  }
  return r;
}

void DiagnosticToProto(const DiagnosticInfo& in, v1::Diagnostic* out) {
  out->set_severity(SeverityToProto(in.severity));
  out->set_file(in.file);
  out->set_line(in.line);
  out->set_column(in.column);
  out->set_message(in.message);
  out->set_rendered(in.rendered);
  for (const DiagnosticInfo& note : in.notes) DiagnosticToProto(note, out->add_notes());
}

void MetadataToProto(const target::KernelMetadata& in, v1::KernelMetadata* out) {
  out->set_format_version(in.format_version);
  out->set_kernel_name(in.kernel_name);
  out->set_target(in.target);
  out->set_compiler_fingerprint(in.compiler_fingerprint);
  out->set_cache_key(in.cache_key);
  for (const target::KernelParam& p : in.params) {
    v1::KernelParam* q = out->add_params();
    q->set_name(p.name);
    for (int64_t d : p.shape) q->add_shape(d);
    q->set_dtype(std::string(target::ElementTypeName(p.dtype)));
    q->set_role(std::string(target::ParamRoleName(p.role)));
    q->set_compiler_workspace(p.compiler_workspace);
    q->set_workspace_bytes_per_block(p.workspace_bytes_per_block);
    for (int s : p.dim_symbols) q->add_dim_symbols(s);
  }
  for (const target::KernelSymbol& s : in.symbols) {
    v1::KernelSymbol* q = out->add_symbols();
    q->set_name(s.name);
    q->set_max(s.max);
  }
  for (const std::string& token : in.grid) out->add_grid(token);
  for (int i : in.out_idx) out->add_out_idx(i);
  for (int i : in.workspace_idx) out->add_workspace_idx(i);
  out->set_block_count(in.block_count);
  out->set_core_mix(std::string(target::CoreMixName(in.core_mix)));
  out->set_vector_cores_per_block(in.vector_cores_per_block);
  v1::OnChipUsage* u = out->mutable_on_chip();
  u->set_l1(in.on_chip.l1);
  u->set_l0a(in.on_chip.l0a);
  u->set_l0b(in.on_chip.l0b);
  u->set_l0c(in.on_chip.l0c);
  u->set_ub(in.on_chip.ub);
}

void ReplyToProto(const CompileReply& in, v1::CompileResponse* out) {
  out->set_ok(in.ok);
  out->set_error(in.error);
  out->set_handle(in.handle);
  out->set_key(in.key);
  out->set_request_digest(in.request_digest);
  if (in.has_metadata) MetadataToProto(in.metadata, out->mutable_metadata());
  for (const DiagnosticInfo& d : in.diagnostics) DiagnosticToProto(d, out->add_diagnostics());
  for (const std::string& k : in.ignored_config_keys) out->add_ignored_config_keys(k);
  out->set_tier(in.tier);
  for (const PhaseTiming& t : in.timings) {
    v1::PhaseTiming* p = out->add_timings();
    p->set_phase(t.phase);
    p->set_millis(t.millis);
  }
  out->set_binary(in.binary);
  out->set_ir_text(in.ir_text);
  for (const SourcePos& p : in.source_map) {
    v1::SourcePosition* q = out->add_source_map();
    q->set_file(p.file);
    q->set_line(p.line);
    q->set_column(p.column);
  }
  for (const auto& [pass, ir] : in.ir_dumps) {
    v1::IrDump* d = out->add_ir_dumps();
    d->set_pass(pass);
    d->set_ir(ir);
  }
}

Result<runner::NpyArray> TensorFromProto(const v1::Tensor& in, std::string_view where) {
  const std::string w(where);
  std::optional<target::ElementType> dtype = target::ParseElementType(in.dtype());
  if (!dtype) {
    return InvalidArgument(w + ": unknown dtype '" + in.dtype().substr(0, 32) +
                           "' (float16, bfloat16, float32, int8, int16, int32, int64, uint8, "
                           "uint16, uint32, uint64, bool)");
  }
  if (in.shape_size() > target::kMaxRank) {
    return InvalidArgument(w + ": rank " + std::to_string(in.shape_size()) + " is over " +
                           std::to_string(target::kMaxRank));
  }
  runner::NpyArray a;
  a.dtype = *dtype;
  uint64_t count = 1;
  for (int64_t d : in.shape()) {
    if (d < 0) return InvalidArgument(w + ": negative dimension " + std::to_string(d));
    if (d != 0 && count > (uint64_t{1} << 40) / static_cast<uint64_t>(d)) {
      return InvalidArgument(w + ": shape is too large");
    }
    count *= static_cast<uint64_t>(d);
    a.shape.push_back(d);
  }
  const uint64_t expected = count * static_cast<uint64_t>(target::ElementTypeBytes(*dtype));
  if (in.data().size() != expected) {
    return InvalidArgument(w + ": data holds " + std::to_string(in.data().size()) +
                           " bytes; shape and dtype need " + std::to_string(expected));
  }
  a.data.assign(in.data().begin(), in.data().end());
  return a;
}

void TensorToProto(const runner::NpyArray& in, v1::Tensor* out) {
  out->set_dtype(std::string(target::ElementTypeName(in.dtype)));
  for (int64_t d : in.shape) out->add_shape(d);
  out->set_data(std::string(in.data.begin(), in.data.end()));
}

Result<LaunchCall> LaunchFromProto(const v1::LaunchRequest& in) {
  LaunchCall call;
  call.handle = in.handle();
  call.request_digest = in.request_digest();
  for (int i = 0; i < in.inputs_size(); ++i) {
    TILEJIT_ASSIGN_OR_RETURN(runner::NpyArray a,
                             TensorFromProto(in.inputs(i), "inputs[" + std::to_string(i) + "]"));
    call.inputs.push_back(std::move(a));
  }
  call.max_gm_bytes = in.max_gm_bytes();
  call.instruction_budget = in.instruction_budget();
  if (in.check_mode().empty() || in.check_mode() == "checked") {
    call.mode = runner::CheckMode::kChecked;
  } else if (in.check_mode() == "fast") {
    call.mode = runner::CheckMode::kFast;
  } else if (in.check_mode() == "perturbed") {
    call.mode = runner::CheckMode::kPerturbed;
  } else {
    return InvalidArgument("check_mode must be \"checked\", \"fast\" or \"perturbed\"");
  }
  call.seed = in.seed() == 0 ? 1 : in.seed();
  return call;
}

void LaunchReplyToProto(const LaunchReply& in, v1::LaunchResponse* out) {
  out->set_ok(in.ok);
  out->set_error(in.error);
  for (const runner::NpyArray& a : in.outputs) TensorToProto(a, out->add_outputs());
  out->set_kernel_cycles(in.report.kernel_cycles);
  out->set_launch_overhead_cycles(in.report.launch_overhead_cycles);
  out->set_waves(in.report.waves);
  out->set_instructions(in.instructions);
  for (const runner::Finding& f : in.report.findings) {
    v1::LaunchFinding* g = out->add_findings();
    g->set_kind(FindingKindSnake(f.kind));
    g->set_block(f.block);
    g->set_message(f.message);
  }
  out->set_findings_suppressed(in.report.findings_suppressed);
  out->set_device_output(in.report.device_output);
  out->set_block_count(in.report.block_count);
  out->set_gm_bytes(in.report.gm_bytes);
  out->set_hbm_bytes(in.report.hbm_bytes);
  out->set_block_bound_cycles(in.report.block_bound_cycles);
  out->set_hbm_bound_waves(in.report.hbm_bound_waves);
  for (const auto& [name, value] : in.report.symbols) {
    v1::LaunchSymbol* sym = out->add_symbols();
    sym->set_name(name);
    sym->set_value(value);
  }
  for (const PhaseTiming& t : in.timings) {
    v1::PhaseTiming* p = out->add_timings();
    p->set_phase(t.phase);
    p->set_millis(t.millis);
  }
}

}  // namespace tilejit::server
