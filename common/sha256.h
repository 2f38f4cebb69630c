// SPDX-License-Identifier: Apache-2.0
// SHA-256 over OpenSSL's EVP interface. Sha256 is an incremental hasher for one thread;
// the free functions are thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tilejit {

using Digest = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  Sha256& Update(const void* data, size_t size);
  Sha256& Update(std::string_view bytes) { return Update(bytes.data(), bytes.size()); }
  // Appends a length-prefixed field, so that ("ab","c") and ("a","bc") hash differently.
  Sha256& UpdateField(std::string_view bytes);
  // Finishes the hash; the object must not be updated afterwards.
  Digest Finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

Digest Sha256Digest(std::string_view bytes);
std::string ToHex(const Digest& digest);
std::string Sha256Hex(std::string_view bytes);

}  // namespace tilejit
