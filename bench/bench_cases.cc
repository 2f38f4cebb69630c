// SPDX-License-Identifier: Apache-2.0
#include "bench/bench_cases.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tilejit::bench {
namespace {

frontend::Value ToValue(const nlohmann::json& j) {
  if (j.is_boolean()) return frontend::Value::Bool(j.get<bool>());
  if (j.is_number_integer()) return frontend::Value::Int(j.get<int64_t>());
  if (j.is_number()) return frontend::Value::Float(j.get<double>());
  return frontend::Value::Str(j.get<std::string>());
}

}  // namespace

std::string ReadBenchFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

Result<std::vector<BenchCase>> LoadBenchCases(const std::string& kernels_dir) {
  const std::string path = kernels_dir + "/cases.json";
  nlohmann::json j = nlohmann::json::parse(ReadBenchFile(path), nullptr, false);
  if (j.is_discarded() || !j.contains("cases")) {
    return InvalidArgument("cannot read the cases of " + path);
  }
  std::vector<BenchCase> cases;
  for (const nlohmann::json& c : j["cases"]) {
    BenchCase bc{c.value("file", ""), c.value("entry", ""), {}};
    for (const nlohmann::json& a : c.value("args", nlohmann::json::array()))
      bc.args.push_back(ToValue(a));
    cases.push_back(std::move(bc));
  }
  return cases;
}

}  // namespace tilejit::bench
