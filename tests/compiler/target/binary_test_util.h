// SPDX-License-Identifier: Apache-2.0
// gtest helpers shared by the kernel-binary and metadata tests (binary_samples.h holds the
// samples themselves and is also used outside gtest, by the fuzzer).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/target/binary.h"

namespace tilejit::target::testing {

// Expects ReadKernelBinary to reject `bytes` with `code` and a message containing `text`.
inline void ExpectRejected(const std::vector<uint8_t>& bytes, StatusCode code,
                           const std::string& text) {
  ASSERT_FALSE(bytes.empty()) << "the test failed to build its image";
  auto r = ReadKernelBinary(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), code) << r.status();
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr(text));
}

// `s` with the first `from` replaced by `to`; a `from` not in `s` fails the test.
inline std::string ReplaceOnce(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' not in " << s;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

}  // namespace tilejit::target::testing
