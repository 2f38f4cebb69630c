// SPDX-License-Identifier: Apache-2.0
#include "server/request_digest.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "common/sha256.h"

namespace tilejit::server {
namespace {

// Bump when the set or encoding of digest fields changes (old memo entries then miss).
constexpr std::string_view kDigestVersion = "tilejit-request-digest/2";

void HashNamed(Sha256& h, std::string_view tag, frontend::NamedValues values, bool sort) {
  if (sort) {
    std::stable_sort(values.begin(), values.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  h.UpdateField(tag);
  h.UpdateField(std::to_string(values.size()));
  for (const auto& [name, value] : values) {
    h.UpdateField(name);
    h.UpdateField(frontend::TypedText(value));
  }
}

void HashIndices(Sha256& h, std::string_view tag, const std::optional<std::vector<int>>& idx) {
  h.UpdateField(tag);
  if (!idx) {
    h.UpdateField("unset");
    return;
  }
  std::string text = "set:";
  for (int i : *idx) text += std::to_string(i) + ",";
  h.UpdateField(text);
}

}  // namespace

std::string RequestDigest(const frontend::FrontendRequest& request,
                          std::string_view compiler_fingerprint) {
  Sha256 h;
  h.UpdateField(kDigestVersion);
  h.UpdateField(compiler_fingerprint);
  h.UpdateField(request.source);
  h.UpdateField(request.file_name);
  switch (request.format) {
    case frontend::SourceFormat::kTileLang:
      h.UpdateField("tilelang");
      break;
    case frontend::SourceFormat::kTileIr:
      h.UpdateField("tile_ir");
      break;
    case frontend::SourceFormat::kPrimFunc:
      h.UpdateField("prim_func");
      break;
  }
  h.UpdateField(std::to_string(request.files.size()));
  for (const frontend::SourceFile& f : request.files) {
    h.UpdateField(f.name);
    h.UpdateField(f.text);
  }
  h.UpdateField(frontend::ClientTableText(request.functions));
  h.UpdateField(request.entry);
  h.UpdateField(std::to_string(request.args.size()));
  for (const frontend::Value& v : request.args) h.UpdateField(frontend::TypedText(v));
  HashNamed(h, "kwargs", request.kwargs, /*sort=*/true);
  HashNamed(h, "globals", request.globals, /*sort=*/true);
  HashNamed(h, "pass_configs", request.pass_configs, /*sort=*/false);
  HashIndices(h, "out_idx", request.out_idx);
  HashIndices(h, "workspace_idx", request.workspace_idx);
  h.UpdateField(request.target ? "target:" + *request.target : "target:default");
  return ToHex(h.Finish());
}

}  // namespace tilejit::server
