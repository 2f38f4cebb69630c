// SPDX-License-Identifier: Apache-2.0
#include "client/service_util.h"

#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <fstream>
#include <iostream>

namespace tilejit::client {

int ReportError(const Status& status) {
  std::cerr << "tilejit: " << status << "\n";
  return kExitUsage;
}

std::optional<std::unique_ptr<Client>> OpenClient(const DaemonOptions& d) {
  ClientOptions options;
  if (!d.server.empty()) options.address = d.server;
  options.token = d.token;
  options.tls = d.tls;
  if (!(d.timeout_seconds > 0) || d.timeout_seconds > 1e6) {
    ReportError(InvalidArgument("--timeout must be a positive number of seconds"));
    return std::nullopt;
  }
  options.deadline = std::chrono::milliseconds(std::llround(d.timeout_seconds * 1000));
  Result<std::unique_ptr<Client>> c = Client::Connect(options);
  if (!c.ok()) {
    ReportError(c.status());
    return std::nullopt;
  }
  return std::move(c).value();
}

bool WriteFileBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::cerr << "tilejit: cannot write '" << path << "'\n";
    return false;
  }
  return true;
}

bool LooksLikeHandle(const std::string& text) {
  if (!text.starts_with("tj1_") || text.size() == 4) return false;
  for (size_t i = 4; i < text.size(); ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

std::string ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  std::string out;
  if (!google::protobuf::util::MessageToJsonString(message, &out, options).ok()) {
    return message.DebugString();
  }
  return out;
}

}  // namespace tilejit::client
