// SPDX-License-Identifier: Apache-2.0
#include "common/sha256.h"

#include <openssl/evp.h>

#include "common/check.h"

namespace tilejit {

struct Sha256::Impl {
  EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {
  impl_->ctx = EVP_MD_CTX_new();
  TILEJIT_CHECK(impl_->ctx != nullptr) << "EVP_MD_CTX_new failed";
  TILEJIT_CHECK(EVP_DigestInit_ex(impl_->ctx, EVP_sha256(), nullptr) == 1);
}

Sha256::~Sha256() { EVP_MD_CTX_free(impl_->ctx); }

Sha256& Sha256::Update(const void* data, size_t size) {
  TILEJIT_CHECK(EVP_DigestUpdate(impl_->ctx, data, size) == 1);
  return *this;
}

Sha256& Sha256::UpdateField(std::string_view bytes) {
  uint64_t n = bytes.size();
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(n >> (8 * i));
  Update(len, sizeof(len));
  return Update(bytes);
}

Digest Sha256::Finish() {
  Digest out{};
  unsigned int size = 0;
  TILEJIT_CHECK(EVP_DigestFinal_ex(impl_->ctx, out.data(), &size) == 1 && size == out.size());
  return out;
}

Digest Sha256Digest(std::string_view bytes) {
  Sha256 h;
  h.Update(bytes);
  return h.Finish();
}

std::string ToHex(const Digest& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(digest.size() * 2);
  for (uint8_t b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

std::string Sha256Hex(std::string_view bytes) { return ToHex(Sha256Digest(bytes)); }

}  // namespace tilejit
