// SPDX-License-Identifier: Apache-2.0
// gRPC takes PEM text and only parses it when a handshake starts, where a bad file shows as a
// refused listen or an UNAVAILABLE call with no file named; OpenSSL parses it here first.
#include "common/tls_files.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <memory>

namespace tilejit {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;

// A passphrase callback that has none: an encrypted key is refused instead of OpenSSL's
// default, which would prompt on the terminal.
int NoPassphrase(char*, int, int, void*) { return -1; }

Result<std::string> ReadPem(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument(std::string("cannot read the ") + what + " file " + path);
  std::string text(kMaxPemFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxPemFileBytes) {
    return InvalidArgument(std::string("the ") + what + " file " + path + " is larger than " +
                           std::to_string(kMaxPemFileBytes) + " bytes");
  }
  return text;
}

BioPtr MemoryBio(const std::string& pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// The first certificate of `pem`, or null.
X509Ptr FirstCertificate(const std::string& pem) {
  BioPtr bio = MemoryBio(pem);
  return X509Ptr(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
}

Result<std::string> ReadCertificates(const std::string& path, const char* what) {
  TILEJIT_ASSIGN_OR_RETURN(std::string pem, ReadPem(path, what));
  if (!FirstCertificate(pem)) {
    ERR_clear_error();
    return InvalidArgument(std::string("the ") + what + " file " + path +
                           " holds no PEM certificate");
  }
  return pem;
}

}  // namespace

Result<TlsPem> LoadTlsFiles(const TlsFiles& files) {
  if (files.cert.empty() != files.key.empty()) {
    return InvalidArgument(files.cert.empty() ? "a TLS key needs its certificate"
                                              : "a TLS certificate needs its private key");
  }
  TlsPem out;
  if (!files.ca.empty()) {
    TILEJIT_ASSIGN_OR_RETURN(out.ca, ReadCertificates(files.ca, "TLS CA certificate"));
  }
  if (files.cert.empty()) return out;
  TILEJIT_ASSIGN_OR_RETURN(out.cert, ReadCertificates(files.cert, "TLS certificate"));
  TILEJIT_ASSIGN_OR_RETURN(out.key, ReadPem(files.key, "TLS private key"));
  BioPtr bio = MemoryBio(out.key);
  KeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr) : nullptr);
  if (!key) {
    ERR_clear_error();
    return InvalidArgument("the TLS private key file " + files.key +
                           " holds no unencrypted PEM private key");
  }
  X509Ptr leaf = FirstCertificate(out.cert);
  if (X509_check_private_key(leaf.get(), key.get()) != 1) {
    ERR_clear_error();
    return InvalidArgument("the TLS private key " + files.key + " is not the key of the " +
                           "certificate in " + files.cert);
  }
  return out;
}

}  // namespace tilejit
