// SPDX-License-Identifier: Apache-2.0
// Refusing at once (rather than queueing the call) keeps the limit a bound on threads held:
// a queued call would hold its transport thread while it waits.
#include "server/admission.h"

namespace tilejit::server {

Result<Admission::Ticket> Admission::Enter(const std::string& caller, const char** refused_by) {
  std::lock_guard<std::mutex> lock(mu_);
  int& mine = per_caller_[caller];
  const char* limit = nullptr;
  std::string why;
  if (mine >= max_per_caller_) {
    limit = "caller";
    why = "this caller already has " + std::to_string(mine) +
          " Compile/Launch calls in progress, the limit per caller (--max-calls-per-caller)";
  } else if (total_ >= max_calls_) {
    limit = "all";
    why = "the daemon already has " + std::to_string(total_) +
          " Compile/Launch calls in progress, its limit (--max-rpc-threads less the threads kept "
          "for health and admin calls)";
  }
  if (limit != nullptr) {
    if (mine == 0) per_caller_.erase(caller);
    if (refused_by != nullptr) *refused_by = limit;
    return ResourceExhausted(why + "; retry later");
  }
  ++mine;
  ++total_;
  return Ticket(this, caller);
}

void Admission::Leave(const std::string& caller) {
  std::lock_guard<std::mutex> lock(mu_);
  --total_;
  auto it = per_caller_.find(caller);
  if (it != per_caller_.end() && --it->second == 0) per_caller_.erase(it);
}

int Admission::in_progress() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

}  // namespace tilejit::server
