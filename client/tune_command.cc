// SPDX-License-Identifier: Apache-2.0
// `tilejit tune`: the daemon's Tune over a kernel file and a list of configurations, with a
// line on stderr per candidate event as it streams in, then the table and the choice.
#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "client/cli_values.h"
#include "client/service_request.h"
#include "client/service_util.h"

namespace tilejit::client {
namespace {

// "K=V,K=V" as a TuneConfig; `text` is echoed in errors.
Result<v1::TuneConfig> ParseTry(const std::string& text) {
  v1::TuneConfig config;
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ',')) {
    auto nv = ParseNamedValue(part);
    if (!nv) return InvalidArgument("a configuration is K=V,K=V; got '" + text + "'");
    TILEJIT_ASSIGN_OR_RETURN(v1::TypedValue v, ToTypedValue(nv->second));
    (*config.mutable_values())[nv->first] = std::move(v);
  }
  if (config.values().empty()) return InvalidArgument("an empty configuration");
  return config;
}

Result<std::vector<std::string>> ConfigLines(const TuneCommandOptions& o) {
  std::vector<std::string> lines = o.tries;
  if (o.configs_file.empty()) return lines;
  std::ifstream in(o.configs_file);
  if (!in) return InvalidArgument("cannot read '" + o.configs_file + "'");
  for (std::string line; std::getline(in, line);) {
    line.erase(0, line.find_first_not_of(" \t"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

Status AddTensors(const std::vector<std::string>& files,
                  google::protobuf::RepeatedPtrField<v1::Tensor>* out) {
  for (const std::string& f : files) {
    TILEJIT_ASSIGN_OR_RETURN(runner::NpyArray a, runner::ReadNpyFile(f));
    *out->Add() = TensorFromNpy(a);
  }
  return Status::Ok();
}

Result<v1::TuneRequest> BuildTuneRequest(const TuneCommandOptions& o,
                                         std::vector<std::string>* lines) {
  TILEJIT_ASSIGN_OR_RETURN(KernelSpec spec, KernelSpecFromOptions(o.kernel));
  v1::TuneRequest req;
  *req.mutable_kernel() = BuildCompileRequest(spec);
  TILEJIT_ASSIGN_OR_RETURN(*lines, ConfigLines(o));
  if (lines->empty()) return InvalidArgument("no configuration: give --try K=V,... or --configs");
  for (const std::string& line : *lines) {
    TILEJIT_ASSIGN_OR_RETURN(*req.add_configs(), ParseTry(line));
  }
  TILEJIT_RETURN_IF_ERROR(AddTensors(o.inputs, req.mutable_inputs()));
  TILEJIT_RETURN_IF_ERROR(AddTensors(o.reference, req.mutable_reference()));
  if (!o.reference.empty() && o.inputs.empty()) {
    return InvalidArgument("--ref needs the --in inputs it was computed from");
  }
  if (o.atol || o.rtol) {
    req.set_tolerances_set(true);
    req.set_atol(o.atol.value_or(1e-2));
    req.set_rtol(o.rtol.value_or(1e-2));
  }
  req.set_seed(o.seed);
  req.set_max_seconds(o.budget_seconds);
  return req;
}

std::string Outcome(const v1::TuneCandidate& c) {
  if (!c.reason().empty()) return c.reason();
  return c.checked() ? "ok (matches the reference)" : "ok";
}

void PrintTable(const v1::TuneResponse& r, const std::vector<std::string>& lines) {
  size_t width = 8;
  for (const std::string& l : lines) width = std::max(width, l.size() + 2);
  std::cout << std::left << std::setw(4) << "#" << std::setw(width) << "config" << std::setw(12)
            << "cycles" << std::setw(10) << "on-chip"
            << "result\n";
  for (const v1::TuneCandidate& c : r.candidates()) {
    const std::string mark = c.index() == r.best() ? "*" : " ";
    std::cout << std::setw(4) << (mark + std::to_string(c.index())) << std::setw(width)
              << lines[c.index()] << std::setw(12) << (c.ran() ? std::to_string(c.cycles()) : "-")
              << std::setw(10) << (c.compiled() ? std::to_string(c.on_chip_bytes()) : "-")
              << Outcome(c) << "\n";
  }
  if (!r.ok()) {
    std::cout << "no choice: " << r.error() << "\n";
    return;
  }
  const v1::TuneCandidate& best = r.candidates(r.best());
  std::cout << "best: " << r.best() << " " << lines[r.best()] << " (" << best.cycles()
            << " cycles) " << r.best_handle() << (r.from_cache() ? " [cached decision]" : "")
            << "\n";
}

const char* StageName(v1::TuneEvent::Stage s) {
  switch (s) {
    case v1::TuneEvent::COMPILED:
      return "compiled";
    case v1::TuneEvent::MEASURED:
      return "measured";
    case v1::TuneEvent::RULED_OUT:
      return "ruled out";
    default:
      return "?";
  }
}

}  // namespace

int TuneCommand(const DaemonOptions& d, const TuneCommandOptions& o) {
  std::vector<std::string> lines;
  Result<v1::TuneRequest> req = BuildTuneRequest(o, &lines);
  if (!req.ok()) return ReportError(req.status());
  auto client = OpenClient(d);
  if (!client) return kExitUsage;
  auto on_event = [](const v1::TuneEvent::Candidate& e) {
    std::cerr << "[" << e.candidate().index() << "] " << StageName(e.stage());
    if (e.stage() == v1::TuneEvent::MEASURED) std::cerr << ": " << e.candidate().cycles();
    std::cerr << "\n";
  };
  // The tuning's own budget (plus slack for the reply; without --budget, the daemon's default
  // of 30 minutes), never less than --timeout.
  const double budget = o.budget_seconds > 0 ? o.budget_seconds : 1800;
  const double seconds = std::max<double>(d.timeout_seconds, budget + 30.0);
  Result<v1::TuneResponse> r = (*client)->Tune(
      *req, on_event, std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
  if (!r.ok()) return ReportError(r.status());
  if (o.json) {
    std::cout << ToJson(*r);
  } else {
    PrintTable(*r, lines);
  }
  return r->ok() ? kExitOk : kExitErrors;
}

}  // namespace tilejit::client
