// SPDX-License-Identifier: Apache-2.0
// The text form of a launch report, shared by every tool that prints one (tilejit-run,
// `tilejit run`, the daemon's Launch summary): status, cycles, per-block efficiency, per-pipe
// utilisation and findings.
//
// Findings name instructions by their line-table statement id ("line-table stmt 12"); a
// StmtNamer turns an id into something better for the reader (the request's file:line:col, or
// nothing to keep the canonical id). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "runner/device.h"

namespace tilejit::runner {

using StmtNamer = std::function<std::optional<std::string>(uint32_t stmt)>;

// Replaces every "line-table stmt N" in `message` by namer(N) when it gives a name.
std::string NameStmts(std::string_view message, const StmtNamer& namer);

// The report as printed by the tools: the device output first ("device output:" and its
// lines, when the kernel printed), then one line per fact (for a kernel with symbolic dims
// "symbols: M=64 N=8 (2 block(s))" after the status); findings last, one per line as
// "<kind>: <message>" with statement ids named by `namer` (may be empty).
std::string FormatLaunchReport(const LaunchReport& report, const StmtNamer& namer);

// The per-statement cycle profile (needs LaunchOptions::trace): "stmt cycles count" rows.
std::string FormatLineProfile(const LaunchReport& report, const StmtNamer& namer);

}  // namespace tilejit::runner
