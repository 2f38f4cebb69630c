// SPDX-License-Identifier: Apache-2.0
// TLS material from PEM files, for tilejitd (--tls-cert, --tls-key, --tls-client-ca) and its
// clients (--tls-ca, --tls-cert, --tls-key). Each file is read with a size cap and checked
// with OpenSSL (the certificates parse, the private key parses and belongs to the
// certificate), so a wrong file is an error naming it when the daemon starts or the client
// connects, not a failed handshake on the first call.
//
//   TlsFiles files{.ca = "ca.pem", .cert = "client.pem", .key = "client.key"};
//   Result<TlsPem> pem = LoadTlsFiles(files);   // pem->ca, pem->cert, pem->key: PEM text
//
// Pure functions of the files' contents; thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "common/result.h"

namespace tilejit {

inline constexpr size_t kMaxPemFileBytes = size_t{1} << 20;

// Paths; an empty path is "not given".
struct TlsFiles {
  std::string ca;    // certificates that sign the peer's certificate
  std::string cert;  // this side's certificate chain (leaf first)
  std::string key;   // the private key of cert's leaf
  bool any() const { return !ca.empty() || !cert.empty() || !key.empty(); }
};

// The files' PEM text (empty for a path not given).
struct TlsPem {
  std::string ca;
  std::string cert;
  std::string key;
};

// Reads and checks the files given. kInvalidArgument naming the file when one cannot be read,
// is larger than kMaxPemFileBytes, holds no certificate (ca, cert) or no private key (key),
// when cert is given without key or key without cert, or when the key is not cert's.
Result<TlsPem> LoadTlsFiles(const TlsFiles& files);

}  // namespace tilejit
