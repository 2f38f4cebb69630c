// SPDX-License-Identifier: Apache-2.0
// Internal invariant checks. TILEJIT_CHECK is for bugs in tilejit only, never for user
// mistakes (those are diagnostics). A failed check throws InternalError carrying the file,
// line, condition and streamed message; the compiler entry point and the device launch catch
// it exactly once and turn it into an internal Status, so a bad kernel cannot take a daemon
// down.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace tilejit {

class InternalError : public std::runtime_error {
 public:
  explicit InternalError(const std::string& what) : std::runtime_error(what) {}
};

namespace internal {

// Collects the streamed message and throws from its destructor (which is noexcept(false)).
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition) {
    stream_ << file << ":" << line << ": internal check failed: " << condition;
  }
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  [[noreturn]] ~CheckFailure() noexcept(false) { throw InternalError(stream_.str()); }

  template <typename T>
  CheckFailure& operator<<(const T& value) {
    if (!has_message_) {
      stream_ << ": ";
      has_message_ = true;
    }
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
  bool has_message_ = false;
};

// Lets `TILEJIT_CHECK(c) << x;` be one expression of type void.
struct Voidify {
  void operator&(const CheckFailure&) {}
};

}  // namespace internal
}  // namespace tilejit

#define TILEJIT_CHECK(cond)                 \
  (cond) ? (void)0                          \
         : ::tilejit::internal::Voidify() & \
               ::tilejit::internal::CheckFailure(__FILE__, __LINE__, #cond)

#define TILEJIT_UNREACHABLE() TILEJIT_CHECK(false) << "unreachable"
