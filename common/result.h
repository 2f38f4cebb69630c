// SPDX-License-Identifier: Apache-2.0
// Result<T>: either a value of type T or a non-OK Status. Accessing value() on an error is a
// programming error and aborts via TILEJIT_CHECK. Thread-compatible like Status.
#pragma once

#include <optional>
#include <utility>

#include "common/check.h"
#include "common/status.h"

namespace tilejit {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    TILEJIT_CHECK(!status_.ok()) << "Result constructed from an OK status without a value";
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  const T& value() const& {
    TILEJIT_CHECK(ok()) << "Result::value() on error: " << status_.ToString();
    return *value_;
  }
  T& value() & {
    TILEJIT_CHECK(ok()) << "Result::value() on error: " << status_.ToString();
    return *value_;
  }
  T&& value() && {
    TILEJIT_CHECK(ok()) << "Result::value() on error: " << status_.ToString();
    return std::move(*value_);
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

namespace internal {
template <typename T>
const Status& ToStatus(const Result<T>& r) {
  return r.status();
}
}  // namespace internal

}  // namespace tilejit

#define TILEJIT_CONCAT_INNER_(a, b) a##b
#define TILEJIT_CONCAT_(a, b) TILEJIT_CONCAT_INNER_(a, b)

// TILEJIT_ASSIGN_OR_RETURN(auto x, Foo()); binds the value of a Result or returns its status.
#define TILEJIT_ASSIGN_OR_RETURN(lhs, expr) \
  TILEJIT_ASSIGN_OR_RETURN_IMPL_(TILEJIT_CONCAT_(tilejit_result_, __LINE__), lhs, expr)
#define TILEJIT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()
