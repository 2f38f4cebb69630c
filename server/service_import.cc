// SPDX-License-Identifier: Apache-2.0
// Import: an entry enters the store only if this daemon, compiling the canonical IR and pass
// configs the binary embeds (its .tilejit.source section), gets the entry's key and exactly
// its bytes. Codegen is deterministic, so an honest export always passes, and a binary that
// was altered, or filed under another kernel's key, never does: an admin token alone cannot
// make every later caller run a crafted binary. With a cluster key, an entry signed by a node
// holding it is taken without the recompile: the signature vouches for it as it does for the
// Redis tier's values; a signature that does not verify refuses the entry.
//
// The recompile runs on the compile pool under the same bounds as any compile, so an import
// costs what compiling its kernels costs. Entries already present are not recompiled: they
// store nothing.
#include <spdlog/spdlog.h>

#include <span>
#include <sstream>
#include <utility>

#include "compiler/target/binary.h"
#include "server/handle.h"
#include "server/service.h"

namespace tilejit::server {
namespace {

// "key=true\n..." (NormalizedPassConfigs::canonical) back into request configs.
Result<frontend::NamedValues> ConfigsFromCanonical(const std::string& text) {
  frontend::NamedValues out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    const std::string value = eq == std::string::npos ? "" : line.substr(eq + 1);
    if (value != "true" && value != "false") {
      return InvalidArgument("its embedded pass config line '" + line.substr(0, 80) +
                             "' is not key=true or key=false");
    }
    out.emplace_back(line.substr(0, eq), frontend::Value::Bool(value == "true"));
  }
  return out;
}

// `binary` with the parameter names of `metadata`. Parameter names are labels outside the cache
// key (the canonical IR numbers parameters; two sources that differ only in their names
// share one kernel), so a recompile from the IR cannot know them and takes the entry's.
Result<std::vector<uint8_t>> WithParamNames(const std::vector<uint8_t>& binary,
                                            const target::KernelMetadata& metadata) {
  TILEJIT_ASSIGN_OR_RETURN(target::KernelBinary b, target::ReadKernelBinary(binary));
  if (b.metadata.params.size() == metadata.params.size()) {
    for (size_t i = 0; i < metadata.params.size(); ++i) {
      b.metadata.params[i].name = metadata.params[i].name;
    }
  }
  return target::WriteKernelBinary(b);
}

}  // namespace

Result<std::pair<size_t, size_t>> CompileService::Import(const std::vector<ImportEntry>& entries,
                                                         const CallContext& ctx) {
  return Counted("Import", ImportKernels(entries, ctx));
}

Result<std::pair<size_t, size_t>> CompileService::ImportKernels(
    const std::vector<ImportEntry>& entries, const CallContext& ctx) {
  // Check everything first, so a bad bundle imports nothing.
  std::vector<std::shared_ptr<KernelRecord>> records;
  size_t present = 0;
  for (const auto& [key, binary, signature] : entries) {
    if (!IsHexDigest(key)) return InvalidArgument("bundle entry has a malformed key");
    std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(binary.data()), binary.size());
    Result<target::KernelBinary> decoded = target::ReadKernelBinary(bytes);
    if (!decoded.ok()) {
      return InvalidArgument("bundle entry " + key.substr(0, 16) +
                             " is not a valid kernel binary: " + decoded.status().message());
    }
    if (!decoded->metadata.cache_key.empty() && decoded->metadata.cache_key != key) {
      return Refused(key, "it holds a binary compiled for another key");
    }
    if (store_->Get(key).ok()) {
      ++present;
      continue;
    }
    if (options_.signer != nullptr && !signature.empty()) {
      if (!options_.signer->Verify(key, binary, signature)) {
        return Refused(key, "its cluster signature does not verify under this daemon's keys");
      }
      signed_imports_->Inc();  // vouched for by a node holding the cluster key
    } else {
      TILEJIT_RETURN_IF_ERROR(
          VerifyByRecompiling(key, binary, decoded->source, decoded->metadata, ctx));
    }
    auto record = std::make_shared<KernelRecord>();
    record->key = key;
    record->binary = binary;
    record->metadata = decoded->metadata;
    records.push_back(std::move(record));
  }
  size_t imported = 0;
  for (auto& record : records) {
    if (store_->Get(record->key).ok()) {
      ++present;
      continue;
    }
    TILEJIT_RETURN_IF_ERROR(store_->Put(std::move(record)));
    ++imported;
  }
  spdlog::info("import: {} kernels imported, {} already present", imported, present);
  return std::make_pair(imported, present);
}

Status CompileService::Refused(const std::string& key, const std::string& why) {
  import_refusals_->Inc();
  spdlog::warn("import: entry {} refused: {}", key.substr(0, 16), why);
  return InvalidArgument("bundle entry " + key.substr(0, 16) + " refused: " + why +
                         "; nothing was imported");
}

Status CompileService::VerifyByRecompiling(const std::string& key, const std::string& binary,
                                           const target::KernelSource& source,
                                           const target::KernelMetadata& metadata,
                                           const CallContext& ctx) {
  if (source.ir_text.empty()) {
    return Refused(key, "it embeds no canonical IR to compile it again from");
  }
  frontend::FrontendRequest request;
  request.format = frontend::SourceFormat::kTileIr;
  request.source = source.ir_text;
  request.file_name = "import-" + key.substr(0, 16) + ".tir";
  request.target = metadata.target;
  Result<frontend::NamedValues> configs = ConfigsFromCanonical(source.pass_configs);
  if (!configs.ok()) return Refused(key, configs.status().message());
  request.pass_configs = *std::move(configs);
  if (Status valid = ValidateRequest(request); !valid.ok()) {
    return Refused(key, "its embedded IR is not a valid request: " + valid.message());
  }
  const SpecializeOutcome spec =
      SpecializeOnPool(std::move(request), "import:" + key, /*remember=*/false, ctx);
  if (EndedByTheCall(spec.status)) return spec.status;  // not the entry's fault: not counted
  if (!spec.status.ok()) {
    return Refused(key, "its embedded IR does not compile here: " + spec.status.message());
  }
  if (spec.key != key) return Refused(key, "its embedded IR compiles to another key");
  LowerOutcome lowered = LowerOnPool(spec, ctx);
  if (EndedByTheCall(lowered.status)) return lowered.status;
  if (!lowered.status.ok()) {
    return Refused(key, "its embedded IR does not compile here: " + lowered.status.message());
  }
  Result<std::vector<uint8_t>> ours = WithParamNames(lowered.binary, metadata);
  if (!ours.ok()) return Internal("import: the recompiled binary: " + ours.status().message());
  if (std::string_view(reinterpret_cast<const char*>(ours->data()), ours->size()) != binary) {
    return Refused(key, "compiling its embedded IR here gives a different binary");
  }
  return Status::Ok();
}

LowerOutcome CompileService::LowerOnPool(const SpecializeOutcome& spec, const CallContext& ctx) {
  auto run = std::make_shared<Handoff<LowerOutcome>>();
  LowerOptions lower;
  const SteadyTime limit =
      std::chrono::steady_clock::now() + std::chrono::seconds(options_.compile_max_seconds);
  lower.interrupt = [run, limit] {
    if (run->abandoned()) return Cancelled("the caller gave up");
    if (std::chrono::steady_clock::now() >= limit) {
      return DeadlineExceeded("the compile ran past --compile-max-seconds");
    }
    return Status::Ok();
  };
  auto job = [backend = backend_.get(), run, spec, lower] {
    LowerOutcome out;
    try {
      out = backend->Lower(spec, lower);
    } catch (const std::exception& e) {
      out.status = Internal(std::string("back end failed: ") + e.what());
    }
    run->Put(std::move(out));
  };
  LowerOutcome out;
  if (Result<size_t> queued = pool_.Submit(std::move(job)); !queued.ok()) {
    out.status = queued.status();
    return out;
  }
  if (Status waited = run->Wait(ctx.deadline, ctx.cancelled, "the recompile", &out); !waited.ok()) {
    out = LowerOutcome{};
    out.status = std::move(waited);
  }
  return out;
}

}  // namespace tilejit::server
