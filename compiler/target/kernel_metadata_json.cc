// SPDX-License-Identifier: Apache-2.0
// The JSON encoding of KernelMetadata. JSON was chosen over a custom binary encoding because a
// well-tested parser (nlohmann) does the tokenising, the section stays human-readable
// (`readelf -p .tilejit.meta`), and field names make it self-describing. Robustness comes from
// strictness: the parser here accepts only the exact canonical text the serialiser produces, so
// every accepted blob has one meaning and one spelling, and the byte-identical round trip is the
// final check.
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "compiler/target/kernel_metadata.h"

namespace tilejit::target {

namespace {

using Json = nlohmann::json;

// The schema nests at most four levels (root -> params -> param -> shape).
constexpr int kMaxJsonDepth = 4;

Json ParamToJson(const KernelParam& p) {
  Json j = Json::object();
  j["name"] = p.name;
  j["shape"] = p.shape;
  j["dtype"] = std::string(ElementTypeName(p.dtype));
  j["role"] = std::string(ParamRoleName(p.role));
  j["compiler_workspace"] = p.compiler_workspace;
  j["workspace_bytes_per_block"] = p.workspace_bytes_per_block;
  j["dim_symbols"] = p.dim_symbols;
  return j;
}

Json PrintToJson(const PrintRecord& r) {
  Json j = Json::object();
  j["kind"] = std::string(PrintKindName(r.kind));
  j["format"] = r.format;
  Json args = Json::array();
  for (ElementType t : r.args) args.push_back(std::string(ElementTypeName(t)));
  j["args"] = std::move(args);
  j["memory"] = r.memory;
  j["dtype"] = std::string(ElementTypeName(r.dtype));
  j["count"] = r.count;
  j["desc"] = r.desc;
  j["shape"] = r.shape;
  return j;
}

Json ToJson(const KernelMetadata& m) {
  Json j = Json::object();
  j["format_version"] = m.format_version;
  j["kernel_name"] = m.kernel_name;
  j["target"] = m.target;
  j["compiler_fingerprint"] = m.compiler_fingerprint;
  j["cache_key"] = m.cache_key;
  Json params = Json::array();
  for (const auto& p : m.params) params.push_back(ParamToJson(p));
  j["params"] = std::move(params);
  j["out_idx"] = m.out_idx;
  j["workspace_idx"] = m.workspace_idx;
  j["block_count"] = m.block_count;
  Json symbols = Json::array();
  for (const auto& sym : m.symbols) symbols.push_back({{"name", sym.name}, {"max", sym.max}});
  j["symbols"] = std::move(symbols);
  j["grid"] = m.grid;
  j["core_mix"] = std::string(CoreMixName(m.core_mix));
  j["vector_cores_per_block"] = m.vector_cores_per_block;
  j["on_chip_bytes"] = {{"l1", m.on_chip.l1},
                        {"l0a", m.on_chip.l0a},
                        {"l0b", m.on_chip.l0b},
                        {"l0c", m.on_chip.l0c},
                        {"ub", m.on_chip.ub}};
  Json prints = Json::array();
  for (const auto& r : m.prints) prints.push_back(PrintToJson(r));
  j["prints"] = std::move(prints);
  return j;
}

// Rejects nesting deeper than the schema before the DOM is built, so hostile input cannot
// make the parser allocate a deep tree.
bool NestingWithin(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

// Reads the fields of one JSON object with type and range checks; Finish() rejects fields
// that were not read (unknown keys).
class ObjectReader {
 public:
  ObjectReader(const Json& j, std::string where) : j_(j), where_(std::move(where)) {}

  Status Int(const char* key, int64_t min, int64_t max, int64_t* out) {
    const Json* v = Find(key);
    if (v == nullptr) return Missing(key);
    bool in_range = false;
    if (v->is_number_unsigned()) {
      const uint64_t u = v->get<uint64_t>();
      in_range = max >= 0 && u <= static_cast<uint64_t>(max);
      if (in_range) *out = static_cast<int64_t>(u);
    } else if (v->is_number_integer()) {
      *out = v->get<int64_t>();
      in_range = true;
    } else {
      return Bad(key, "is not an integer");
    }
    if (!in_range || *out < min || *out > max) return Bad(key, "is out of range");
    return Status::Ok();
  }
  Status Str(const char* key, std::string* out) {
    const Json* v = Find(key);
    if (v == nullptr) return Missing(key);
    if (!v->is_string()) return Bad(key, "is not a string");
    *out = v->get_ref<const std::string&>();
    return Status::Ok();
  }
  Status Bool(const char* key, bool* out) {
    const Json* v = Find(key);
    if (v == nullptr) return Missing(key);
    if (!v->is_boolean()) return Bad(key, "is not a boolean");
    *out = v->get<bool>();
    return Status::Ok();
  }
  Status Array(const char* key, const Json** out) { return Typed(key, true, out); }
  Status Object(const char* key, const Json** out) { return Typed(key, false, out); }

  Status Finish() const {
    if (read_ != j_.size()) return Corruption(where_ + " has unknown fields");
    return Status::Ok();
  }
  const std::string& where() const { return where_; }

 private:
  const Json* Find(const char* key) {
    auto it = j_.find(key);
    if (it == j_.end()) return nullptr;
    ++read_;
    return &*it;
  }
  Status Typed(const char* key, bool array, const Json** out) {
    const Json* v = Find(key);
    if (v == nullptr) return Missing(key);
    if (array ? !v->is_array() : !v->is_object()) {
      return Bad(key, array ? "is not an array" : "is not an object");
    }
    *out = v;
    return Status::Ok();
  }
  Status Missing(const char* key) const {
    return Corruption(where_ + " lacks field '" + key + "'");
  }
  Status Bad(const char* key, const char* what) const {
    return Corruption(where_ + " field '" + key + "' " + what);
  }

  const Json& j_;
  std::string where_;
  size_t read_ = 0;
};

Status IntArray(const Json& arr, const std::string& where, int64_t min, int64_t max,
                std::vector<int64_t>* out) {
  for (const Json& e : arr) {
    int64_t v = 0;
    if (e.is_number_unsigned() && e.get<uint64_t>() <= static_cast<uint64_t>(max)) {
      v = static_cast<int64_t>(e.get<uint64_t>());
    } else if (e.is_number_integer() && !e.is_number_unsigned()) {
      v = e.get<int64_t>();
    } else {
      return Corruption(where + " holds a non-integer or out-of-range element");
    }
    if (v < min || v > max) return Corruption(where + " holds an out-of-range element");
    out->push_back(v);
  }
  return Status::Ok();
}

template <typename E>
Status Enum(ObjectReader& r, const char* key, std::optional<E> (*parse)(std::string_view), E* out) {
  std::string s;
  TILEJIT_RETURN_IF_ERROR(r.Str(key, &s));
  auto e = parse(s);
  if (!e) return Corruption(r.where() + " field '" + key + "' has unknown value '" + s + "'");
  *out = *e;
  return Status::Ok();
}

Status ParamFromJson(const Json& j, size_t index, KernelParam* p) {
  const std::string where = "param " + std::to_string(index);
  if (!j.is_object()) return Corruption(where + " is not an object");
  ObjectReader r(j, where);
  TILEJIT_RETURN_IF_ERROR(r.Str("name", &p->name));
  const Json* shape = nullptr;
  TILEJIT_RETURN_IF_ERROR(r.Array("shape", &shape));
  if (shape->size() > static_cast<size_t>(kMaxRank)) return Corruption(where + " rank too high");
  TILEJIT_RETURN_IF_ERROR(IntArray(*shape, where + " shape", std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::max(), &p->shape));
  TILEJIT_RETURN_IF_ERROR(Enum(r, "dtype", &ParseElementType, &p->dtype));
  TILEJIT_RETURN_IF_ERROR(Enum(r, "role", &ParseParamRole, &p->role));
  TILEJIT_RETURN_IF_ERROR(r.Bool("compiler_workspace", &p->compiler_workspace));
  TILEJIT_RETURN_IF_ERROR(r.Int("workspace_bytes_per_block", std::numeric_limits<int64_t>::min(),
                                std::numeric_limits<int64_t>::max(),
                                &p->workspace_bytes_per_block));
  const Json* dims = nullptr;
  TILEJIT_RETURN_IF_ERROR(r.Array("dim_symbols", &dims));
  if (dims->size() > static_cast<size_t>(kMaxRank)) {
    return Corruption(where + " has too many dim_symbols");
  }
  std::vector<int64_t> values;
  TILEJIT_RETURN_IF_ERROR(IntArray(*dims, where + " dim_symbols", std::numeric_limits<int>::min(),
                                   std::numeric_limits<int>::max(), &values));
  p->dim_symbols.assign(values.begin(), values.end());
  return r.Finish();
}

Status PrintFromJson(const Json& j, size_t index, PrintRecord* p) {
  const std::string where = "print record " + std::to_string(index);
  if (!j.is_object()) return Corruption(where + " is not an object");
  ObjectReader r(j, where);
  TILEJIT_RETURN_IF_ERROR(Enum(r, "kind", &ParsePrintKind, &p->kind));
  TILEJIT_RETURN_IF_ERROR(r.Str("format", &p->format));
  const Json* args = nullptr;
  TILEJIT_RETURN_IF_ERROR(r.Array("args", &args));
  if (args->size() > kMaxPrintArgs) return Corruption(where + " has too many args");
  for (const Json& a : *args) {
    std::optional<ElementType> t =
        a.is_string() ? ParseElementType(a.get<std::string>()) : std::nullopt;
    if (!t) return Corruption(where + " has an argument type that is not a dtype name");
    p->args.push_back(*t);
  }
  TILEJIT_RETURN_IF_ERROR(r.Str("memory", &p->memory));
  TILEJIT_RETURN_IF_ERROR(Enum(r, "dtype", &ParseElementType, &p->dtype));
  TILEJIT_RETURN_IF_ERROR(r.Int("count", 0, kMaxDumpCount, &p->count));
  TILEJIT_RETURN_IF_ERROR(r.Int("desc", std::numeric_limits<int64_t>::min(),
                                std::numeric_limits<int64_t>::max(), &p->desc));
  const Json* shape = nullptr;
  TILEJIT_RETURN_IF_ERROR(r.Array("shape", &shape));
  if (shape->size() > static_cast<size_t>(kMaxRank)) return Corruption(where + " shape too long");
  TILEJIT_RETURN_IF_ERROR(IntArray(*shape, where + " shape", 0, kMaxDumpCount, &p->shape));
  return r.Finish();
}

Status IndexList(ObjectReader& r, const char* key, std::vector<int>* out) {
  const Json* arr = nullptr;
  TILEJIT_RETURN_IF_ERROR(r.Array(key, &arr));
  if (arr->size() > kMaxParams) return Corruption(std::string(key) + " is too long");
  std::vector<int64_t> values;
  TILEJIT_RETURN_IF_ERROR(IntArray(*arr, key, std::numeric_limits<int>::min(),
                                   std::numeric_limits<int>::max(), &values));
  out->assign(values.begin(), values.end());
  return Status::Ok();
}

Status SymbolsFromJson(ObjectReader& root, KernelMetadata* m) {
  const Json* arr = nullptr;
  TILEJIT_RETURN_IF_ERROR(root.Array("symbols", &arr));
  if (arr->size() > kMaxSymbols) return Corruption("metadata has too many symbols");
  for (size_t i = 0; i < arr->size(); ++i) {
    const std::string where = "symbol " + std::to_string(i);
    if (!(*arr)[i].is_object()) return Corruption(where + " is not an object");
    ObjectReader r((*arr)[i], where);
    KernelSymbol& sym = m->symbols.emplace_back();
    TILEJIT_RETURN_IF_ERROR(r.Int("max", std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max(), &sym.max));
    TILEJIT_RETURN_IF_ERROR(r.Str("name", &sym.name));
    TILEJIT_RETURN_IF_ERROR(r.Finish());
  }
  const Json* grid = nullptr;
  TILEJIT_RETURN_IF_ERROR(root.Array("grid", &grid));
  if (grid->size() > kMaxGridTokens) return Corruption("metadata grid has too many tokens");
  for (const Json& t : *grid) {
    if (!t.is_string()) return Corruption("metadata grid holds a non-string token");
    m->grid.push_back(t.get<std::string>());
  }
  return Status::Ok();
}

Status OnChipFromJson(ObjectReader& root, OnChipUsage* u) {
  const Json* j = nullptr;
  TILEJIT_RETURN_IF_ERROR(root.Object("on_chip_bytes", &j));
  ObjectReader r(*j, "on_chip_bytes");
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  TILEJIT_RETURN_IF_ERROR(r.Int("l1", kMin, kMax, &u->l1));
  TILEJIT_RETURN_IF_ERROR(r.Int("l0a", kMin, kMax, &u->l0a));
  TILEJIT_RETURN_IF_ERROR(r.Int("l0b", kMin, kMax, &u->l0b));
  TILEJIT_RETURN_IF_ERROR(r.Int("l0c", kMin, kMax, &u->l0c));
  TILEJIT_RETURN_IF_ERROR(r.Int("ub", kMin, kMax, &u->ub));
  return r.Finish();
}

// Reads every field; semantic checks are left to ValidateKernelMetadata.
Status FromJson(const Json& j, KernelMetadata* m) {
  ObjectReader r(j, "metadata");
  int64_t v = 0;
  TILEJIT_RETURN_IF_ERROR(r.Int("format_version", 0, std::numeric_limits<uint32_t>::max(), &v));
  m->format_version = static_cast<uint32_t>(v);
  if (m->format_version != kKernelBinaryFormatVersion) {
    return InvalidArgument("unsupported kernel binary format version " + std::to_string(v) +
                           " (this build reads version " +
                           std::to_string(kKernelBinaryFormatVersion) + ")");
  }
  TILEJIT_RETURN_IF_ERROR(r.Str("kernel_name", &m->kernel_name));
  TILEJIT_RETURN_IF_ERROR(r.Str("target", &m->target));
  TILEJIT_RETURN_IF_ERROR(r.Str("compiler_fingerprint", &m->compiler_fingerprint));
  TILEJIT_RETURN_IF_ERROR(r.Str("cache_key", &m->cache_key));
  const Json* params = nullptr;
  TILEJIT_RETURN_IF_ERROR(r.Array("params", &params));
  if (params->size() > kMaxParams) return Corruption("metadata has too many params");
  m->params.resize(params->size());
  for (size_t i = 0; i < params->size(); ++i) {
    TILEJIT_RETURN_IF_ERROR(ParamFromJson((*params)[i], i, &m->params[i]));
  }
  TILEJIT_RETURN_IF_ERROR(IndexList(r, "out_idx", &m->out_idx));
  TILEJIT_RETURN_IF_ERROR(IndexList(r, "workspace_idx", &m->workspace_idx));
  TILEJIT_RETURN_IF_ERROR(r.Int("block_count", std::numeric_limits<int64_t>::min(),
                                std::numeric_limits<int64_t>::max(), &m->block_count));
  TILEJIT_RETURN_IF_ERROR(SymbolsFromJson(r, m));
  TILEJIT_RETURN_IF_ERROR(Enum(r, "core_mix", &ParseCoreMix, &m->core_mix));
  TILEJIT_RETURN_IF_ERROR(r.Int("vector_cores_per_block", std::numeric_limits<int>::min(),
                                std::numeric_limits<int>::max(), &v));
  m->vector_cores_per_block = static_cast<int>(v);
  TILEJIT_RETURN_IF_ERROR(OnChipFromJson(r, &m->on_chip));
  const Json* prints = nullptr;
  TILEJIT_RETURN_IF_ERROR(r.Array("prints", &prints));
  if (prints->size() > kMaxPrints) return Corruption("metadata has too many print records");
  m->prints.resize(prints->size());
  for (size_t i = 0; i < prints->size(); ++i) {
    TILEJIT_RETURN_IF_ERROR(PrintFromJson((*prints)[i], i, &m->prints[i]));
  }
  return r.Finish();
}

}  // namespace

Result<std::string> SerializeKernelMetadata(const KernelMetadata& m) {
  TILEJIT_RETURN_IF_ERROR(ValidateKernelMetadata(m));
  // Validated strings are printable ASCII, so dump() cannot meet invalid UTF-8 and throw.
  return ToJson(m).dump();
}

Result<KernelMetadata> ParseKernelMetadata(std::string_view text) {
  if (!NestingWithin(text, kMaxJsonDepth)) {
    return Corruption("metadata nests deeper than its schema");
  }
  Json j;
  try {
    j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  } catch (const Json::exception& e) {  // not expected with allow_exceptions=false; defensive
    return Corruption(std::string("metadata is not valid JSON: ") + e.what());
  }
  if (j.is_discarded()) return Corruption("metadata is not valid JSON");
  if (!j.is_object()) return Corruption("metadata is not a JSON object");
  KernelMetadata m;
  TILEJIT_RETURN_IF_ERROR(FromJson(j, &m));
  const Status valid = ValidateKernelMetadata(m);
  if (!valid.ok()) return Corruption("inconsistent metadata: " + valid.message());
  // Anything that parsed to valid metadata but is spelled differently from the canonical text
  // (whitespace, key order, duplicate keys, number spelling) is rejected: one blob, one form.
  if (ToJson(m).dump() != text) return Corruption("metadata is not in canonical form");
  return m;
}

}  // namespace tilejit::target
