// SPDX-License-Identifier: Apache-2.0
#include "server/proto_tune.h"

#include <string>

#include "server/proto_convert.h"

namespace tilejit::server {
namespace {

Result<std::vector<runner::NpyArray>> Tensors(
    const google::protobuf::RepeatedPtrField<v1::Tensor>& in, const std::string& field) {
  if (static_cast<size_t>(in.size()) > kMaxTuneTensors) {
    return InvalidArgument(field + " holds at most " + std::to_string(kMaxTuneTensors) +
                           " tensors");
  }
  std::vector<runner::NpyArray> out;
  for (int i = 0; i < in.size(); ++i) {
    TILEJIT_ASSIGN_OR_RETURN(runner::NpyArray a,
                             TensorFromProto(in[i], field + "[" + std::to_string(i) + "]"));
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

Result<TuneCall> TuneFromProto(const v1::TuneRequest& in, const ValueLimits& limits) {
  TuneCall call;
  CompileOptions ignored;
  if (static_cast<size_t>(in.configs_size()) > kMaxTuneConfigs ||
      static_cast<size_t>(in.candidate_kernels_size()) > kMaxTuneConfigs) {
    return InvalidArgument("configs and candidate_kernels hold at most " +
                           std::to_string(kMaxTuneConfigs) + " configurations");
  }
  if (in.candidate_kernels_size() == 0) {
    TILEJIT_ASSIGN_OR_RETURN(call.request, RequestFromProto(in.kernel(), limits, &ignored));
  }
  for (const v1::CompileRequest& k : in.candidate_kernels()) {
    TILEJIT_ASSIGN_OR_RETURN(frontend::FrontendRequest r, RequestFromProto(k, limits, &ignored));
    call.candidates.push_back(std::move(r));
  }
  ValueBudget budget(limits);
  const google::protobuf::Struct no_json;
  for (int i = 0; i < in.configs_size(); ++i) {
    TILEJIT_ASSIGN_OR_RETURN(
        frontend::NamedValues values,
        budget.Named(no_json, in.configs(i).values(), "configs[" + std::to_string(i) + "]"));
    call.configs.push_back(std::move(values));
  }
  TILEJIT_ASSIGN_OR_RETURN(call.inputs, Tensors(in.inputs(), "inputs"));
  TILEJIT_ASSIGN_OR_RETURN(call.reference, Tensors(in.reference(), "reference"));
  call.seed = in.seed();
  if (in.tolerances_set()) {
    call.atol = in.atol();
    call.rtol = in.rtol();
  }
  call.max_seconds = in.max_seconds();
  call.instruction_budget = in.instruction_budget();
  return call;
}

void TuneCandidateToProto(const TuneCandidate& in, v1::TuneCandidate* out) {
  out->set_index(static_cast<int32_t>(in.index));
  out->set_compiled(in.compiled);
  out->set_ran(in.ran);
  out->set_checked(in.checked);
  out->set_cycles(in.cycles);
  out->set_on_chip_bytes(in.on_chip_bytes);
  out->set_handle(in.handle);
  out->set_request_digest(in.request_digest);
  out->set_reason(in.reason);
}

void TuneReplyToProto(const TuneReply& in, v1::TuneResponse* out) {
  out->set_ok(in.ok);
  out->set_error(in.error);
  out->set_decision_key(in.decision_key);
  out->set_from_cache(in.from_cache);
  out->set_best(in.best);
  out->set_best_handle(in.best_handle);
  for (const TuneCandidate& c : in.candidates) TuneCandidateToProto(c, out->add_candidates());
}

void TuneEventToProto(const TuneEvent& in, v1::TuneEvent* out) {
  v1::TuneEvent::Candidate* c = out->mutable_candidate();
  switch (in.kind) {
    case TuneEvent::Kind::kCompiled:
      c->set_stage(v1::TuneEvent::COMPILED);
      break;
    case TuneEvent::Kind::kMeasured:
      c->set_stage(v1::TuneEvent::MEASURED);
      break;
    case TuneEvent::Kind::kRuledOut:
      c->set_stage(v1::TuneEvent::RULED_OUT);
      break;
  }
  TuneCandidateToProto(in.candidate, c->mutable_candidate());
}

}  // namespace tilejit::server
