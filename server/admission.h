// SPDX-License-Identifier: Apache-2.0
// Admission: how many Compile and Launch calls may be in progress at once, in all and per
// caller, so that waiting work can never hold every transport thread (health checks, Stats and
// the admin calls always find one) and one caller cannot crowd out the others.
//
//   Result<Admission::Ticket> ticket = admission.Enter(ctx.caller);
//   if (!ticket.ok()) return ticket.status();  // kResourceExhausted naming the limit
//   ...                                        // the call runs; the ticket leaves with it
//
// Thread-safe. A Ticket must not outlive its Admission.
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>

#include "common/result.h"

namespace tilejit::server {

class Admission {
 public:
  // REQUIRES: max_calls >= 1, max_per_caller >= 1.
  Admission(int max_calls, int max_per_caller)
      : max_calls_(max_calls), max_per_caller_(max_per_caller) {}

  // Holds one call's place; movable, released on destruction.
  class Ticket {
   public:
    Ticket(Ticket&& other) noexcept : owner_(other.owner_), caller_(std::move(other.caller_)) {
      other.owner_ = nullptr;
    }
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket() {
      if (owner_ != nullptr) owner_->Leave(caller_);
    }

   private:
    friend class Admission;
    Ticket(Admission* owner, std::string caller) : owner_(owner), caller_(std::move(caller)) {}
    Admission* owner_;
    std::string caller_;
  };

  // A place for one call of `caller` (any string naming who calls; "" is a caller too), or
  // kResourceExhausted when the caller or the daemon is at its limit; `*refused_by` is then
  // "caller" or "all".
  Result<Ticket> Enter(const std::string& caller, const char** refused_by = nullptr);

  int in_progress() const;

 private:
  void Leave(const std::string& caller);

  const int max_calls_;
  const int max_per_caller_;
  mutable std::mutex mu_;
  int total_ = 0;
  std::unordered_map<std::string, int> per_caller_;
};

}  // namespace tilejit::server
