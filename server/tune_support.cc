// SPDX-License-Identifier: Apache-2.0
// The pure parts of a tuning (tune.h): validation, the decision key, candidate requests,
// ranking, the decision's text form, and the in-memory decision store.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "common/sha256.h"
#include "compiler/target/npu_target.h"
#include "runner/device.h"
#include "server/request_digest.h"
#include "server/tune.h"

namespace tilejit::server {
namespace {

// Bump when the key's fields or the decision's encoding change (old decisions then miss).
constexpr std::string_view kDecisionVersion = "tilejit-tune-decision/1";

Status ValidateConfig(size_t n, const frontend::NamedValues& config) {
  const std::string where = "configs[" + std::to_string(n) + "]";
  if (config.empty()) return InvalidArgument(where + " is empty");
  if (config.size() > kMaxTuneConfigKeys) {
    return InvalidArgument(where + " has " + std::to_string(config.size()) +
                           " values; the limit is " + std::to_string(kMaxTuneConfigKeys));
  }
  for (const auto& [name, value] : config) {
    if (name.empty() || name.size() > 256) return InvalidArgument(where + " has a bad name");
    if (!value.IsConstant() || frontend::TypedText(value).size() > kMaxTuneValueBytes) {
      return InvalidArgument(where + "." + name + " must be a constant of at most " +
                             std::to_string(kMaxTuneValueBytes) + " bytes");
    }
  }
  return Status::Ok();
}

void HashShapes(Sha256& h, std::string_view tag, const std::vector<runner::NpyArray>& arrays) {
  h.UpdateField(tag);
  h.UpdateField(std::to_string(arrays.size()));
  for (const runner::NpyArray& a : arrays) {
    std::string text(target::ElementTypeName(a.dtype));
    for (int64_t d : a.shape) text += "," + std::to_string(d);
    h.UpdateField(text);
  }
}

void HashData(Sha256& h, const std::vector<runner::NpyArray>& arrays) {
  for (const runner::NpyArray& a : arrays) {
    h.UpdateField(std::string_view(reinterpret_cast<const char*>(a.data.data()), a.data.size()));
  }
}

nlohmann::json CandidateJson(const TuneCandidate& c) {
  return {{"index", c.index},     {"compiled", c.compiled},     {"ran", c.ran},
          {"checked", c.checked}, {"cycles", c.cycles},         {"on_chip", c.on_chip_bytes},
          {"handle", c.handle},   {"digest", c.request_digest}, {"reason", c.reason}};
}

TuneCandidate CandidateFrom(const nlohmann::json& j) {
  TuneCandidate c;
  c.index = j.at("index").get<size_t>();
  c.compiled = j.at("compiled").get<bool>();
  c.ran = j.at("ran").get<bool>();
  c.checked = j.at("checked").get<bool>();
  c.cycles = j.at("cycles").get<uint64_t>();
  c.on_chip_bytes = j.at("on_chip").get<int64_t>();
  c.handle = j.at("handle").get<std::string>();
  c.request_digest = j.at("digest").get<std::string>();
  c.reason = j.at("reason").get<std::string>();
  return c;
}

}  // namespace

Status ValidateTuneCall(const TuneCall& call) {
  if (call.configs.empty()) return InvalidArgument("configs is empty: nothing to tune");
  if (call.configs.size() > kMaxTuneConfigs) {
    return InvalidArgument("configs has " + std::to_string(call.configs.size()) +
                           " entries; the limit is " + std::to_string(kMaxTuneConfigs));
  }
  for (size_t i = 0; i < call.configs.size(); ++i) {
    TILEJIT_RETURN_IF_ERROR(ValidateConfig(i, call.configs[i]));
  }
  if (!call.candidates.empty() && call.candidates.size() != call.configs.size()) {
    return InvalidArgument("candidates has " + std::to_string(call.candidates.size()) +
                           " requests for " + std::to_string(call.configs.size()) +
                           " configurations");
  }
  if (call.inputs.size() > kMaxTuneTensors || call.reference.size() > kMaxTuneTensors) {
    return InvalidArgument("at most " + std::to_string(kMaxTuneTensors) +
                           " inputs and reference outputs");
  }
  auto bad = [](double t) { return !std::isfinite(t) || t < 0; };
  if (bad(call.atol) || bad(call.rtol)) {
    return InvalidArgument("atol and rtol must be finite and >= 0");
  }
  if (call.max_seconds < 0) return InvalidArgument("max_seconds must be >= 0");
  return Status::Ok();
}

std::string TuneDecisionKey(const TuneCall& call, std::string_view compiler_fingerprint) {
  Sha256 h;
  h.UpdateField(kDecisionVersion);
  h.UpdateField(std::to_string(call.candidates.size()));
  if (call.candidates.empty()) h.UpdateField(RequestDigest(call.request, compiler_fingerprint));
  for (const frontend::FrontendRequest& r : call.candidates) {
    h.UpdateField(RequestDigest(r, compiler_fingerprint));
  }
  h.UpdateField(std::to_string(call.configs.size()));
  for (frontend::NamedValues config : call.configs) {  // order-free within a configuration
    std::stable_sort(config.begin(), config.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    h.UpdateField(std::to_string(config.size()));
    for (const auto& [name, value] : config) {
      h.UpdateField(name);
      h.UpdateField(frontend::TypedText(value));
    }
  }
  HashShapes(h, "inputs", call.inputs);
  h.UpdateField(call.inputs.empty() ? "seed:" + std::to_string(call.seed) : "given");
  HashShapes(h, "reference", call.reference);
  if (!call.reference.empty()) {
    // Which candidates pass the check depends on the data: a caller with other (or bogus)
    // reference outputs must not share, or poison, another caller's decision.
    h.UpdateField(std::to_string(call.atol) + "," + std::to_string(call.rtol));
    HashData(h, call.inputs);
    HashData(h, call.reference);
  }
  const frontend::FrontendRequest& first =
      call.candidates.empty() ? call.request : call.candidates[0];
  const target::NpuTarget* t =
      target::FindTarget(first.target.value_or(std::string(frontend::kDefaultTarget)));
  h.UpdateField(t ? target::TargetHash(*t) : "unknown-target");
  h.UpdateField(runner::kTimingModelVersion);
  return ToHex(h.Finish());
}

frontend::FrontendRequest CandidateRequest(const TuneCall& call, size_t index) {
  if (!call.candidates.empty()) return call.candidates[index];
  frontend::FrontendRequest r = call.request;
  for (const auto& [name, value] : call.configs[index]) {
    auto it = std::find_if(r.kwargs.begin(), r.kwargs.end(),
                           [&](const auto& kv) { return kv.first == name; });
    if (it != r.kwargs.end()) {
      it->second = value;
    } else {
      r.kwargs.emplace_back(name, value);
    }
  }
  return r;
}

int PickBest(const std::vector<TuneCandidate>& candidates) {
  int best = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const TuneCandidate& c = candidates[i];
    if (!c.eligible()) continue;
    if (best >= 0) {
      const TuneCandidate& b = candidates[best];
      if (c.cycles > b.cycles) continue;
      if (c.cycles == b.cycles && c.on_chip_bytes >= b.on_chip_bytes) continue;
    }
    best = static_cast<int>(i);
  }
  return best;
}

std::string EncodeDecision(const TuneReply& reply) {
  nlohmann::json rows = nlohmann::json::array();
  for (const TuneCandidate& c : reply.candidates) rows.push_back(CandidateJson(c));
  nlohmann::json j = {{"version", kDecisionVersion},
                      {"ok", reply.ok},
                      {"error", reply.error},
                      {"best", reply.best},
                      {"candidates", rows}};
  return j.dump();
}

Result<TuneReply> DecodeDecision(std::string_view text, size_t config_count) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Corruption("a tune decision is not JSON");
  try {
    if (j.at("version").get<std::string>() != kDecisionVersion) {
      return Corruption("a tune decision of another version");
    }
    TuneReply reply;
    reply.ok = j.at("ok").get<bool>();
    reply.error = j.at("error").get<std::string>();
    reply.best = j.at("best").get<int>();
    for (const nlohmann::json& row : j.at("candidates")) {
      reply.candidates.push_back(CandidateFrom(row));
      if (reply.candidates.back().index != reply.candidates.size() - 1) {
        return Corruption("a tune decision's candidates are out of order");
      }
    }
    if (reply.candidates.size() != config_count || reply.best >= static_cast<int>(config_count) ||
        reply.best < -1) {
      return Corruption("a tune decision disagrees with its configurations");
    }
    if (reply.best >= 0) reply.best_handle = reply.candidates[reply.best].handle;
    return reply;
  } catch (const nlohmann::json::exception& e) {
    return Corruption(std::string("a malformed tune decision: ") + e.what());
  }
}

std::string ConfigText(const frontend::NamedValues& config) {
  std::string out;
  for (const auto& [name, value] : config) {
    out += (out.empty() ? "" : ", ") + name + "=" + frontend::Repr(value);
  }
  return out;
}

Result<std::optional<std::string>> MemoryDecisionStore::Get(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = decisions_.find(std::string(key));
  if (it == decisions_.end()) return std::optional<std::string>();
  return std::optional<std::string>(it->second);
}

Status MemoryDecisionStore::Put(std::string_view key, std::string_view decision) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = decisions_.insert_or_assign(std::string(key), std::string(decision));
  if (inserted) order_.push_back(it->first);
  while (order_.size() > capacity_) {
    decisions_.erase(order_.front());
    order_.erase(order_.begin());
  }
  return Status::Ok();
}

}  // namespace tilejit::server
