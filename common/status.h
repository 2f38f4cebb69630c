// SPDX-License-Identifier: Apache-2.0
// Status: the outcome of an operation that can fail, as a value (no exceptions cross module
// boundaries). A Status is cheap to copy when OK (no allocation) and carries a code plus a
// human-readable message otherwise. Thread-compatible: distinct objects may be used from
// distinct threads; one object must not be mutated concurrently.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace tilejit {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // malformed request or input (not a user-kernel compile error)
  kCompileError,     // the user's kernel has errors; details are in diagnostics
  kNotFound,
  kAlreadyExists,
  kResourceExhausted,
  kDeadlineExceeded,
  kCancelled,
  kUnavailable,
  kCorruption,        // stored or received bytes failed validation
  kInternal,          // a bug in tilejit (an internal check failed)
  kUnauthenticated,   // the caller presented no valid credentials (tilejitd's tokens)
  kPermissionDenied,  // the caller's credentials do not allow the call
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "INVALID_ARGUMENT: message" or "OK".
  std::string ToString() const;

  // Returns a copy whose message is prefixed by `context: `.
  Status WithContext(std::string_view context) const;

  bool operator==(const Status& other) const = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

std::ostream& operator<<(std::ostream& os, const Status& status);

// Constructors for the common codes.
Status InvalidArgument(std::string message);
Status CompileError(std::string message);
Status NotFound(std::string message);
Status ResourceExhausted(std::string message);
Status DeadlineExceeded(std::string message);
Status Cancelled(std::string message);
Status Unavailable(std::string message);
Status Corruption(std::string message);
Status Internal(std::string message);

}  // namespace tilejit

// Evaluates `expr` (a Status or Result) and returns its status from the enclosing function if
// it is not OK.
#define TILEJIT_RETURN_IF_ERROR(expr)                                              \
  do {                                                                             \
    const ::tilejit::Status tilejit_status_ = ::tilejit::internal::ToStatus(expr); \
    if (!tilejit_status_.ok()) return tilejit_status_;                             \
  } while (0)

namespace tilejit::internal {
inline const Status& ToStatus(const Status& s) { return s; }
}  // namespace tilejit::internal
