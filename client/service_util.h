// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the CLI's daemon commands (service_commands.cc,
// admin_commands.cc): exit codes, error printing, opening a client, file output, JSON.
// Not thread-safe (write the standard streams).
#pragma once

#include <google/protobuf/message.h>

#include <memory>
#include <optional>
#include <string>

#include "client/client.h"
#include "client/service_commands.h"
#include "common/status.h"

namespace tilejit::client {

inline constexpr int kExitOk = 0;
inline constexpr int kExitErrors = 1;  // kernel errors, findings, NOT_SERVING
inline constexpr int kExitUsage = 2;   // usage, I/O and RPC errors

// Prints "tilejit: <status>" to stderr and returns kExitUsage.
int ReportError(const Status& status);

// A client for d (address default localhost:50051); nullopt after printing the error.
std::optional<std::unique_ptr<Client>> OpenClient(const DaemonOptions& d);

// Writes bytes to path; prints the error and returns false on failure.
bool WriteFileBytes(const std::string& path, const std::string& bytes);

// "tj1_" followed by hex digits: what the daemon's handles look like.
bool LooksLikeHandle(const std::string& text);

// The message as indented JSON (proto field names in lowerCamelCase), newline-terminated.
std::string ToJson(const google::protobuf::Message& message);

}  // namespace tilejit::client
