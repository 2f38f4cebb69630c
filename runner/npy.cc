// SPDX-License-Identifier: Apache-2.0
// The header is a Python dict literal; rather than a general Python parser, a small cursor
// accepts exactly the grammar NumPy writes (and hand-written variants with other spacing or
// key order): string keys, string / bool / int-tuple values, optional trailing commas.
#include "runner/npy.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <string_view>

namespace tilejit::runner {
namespace {

using target::ElementType;

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kMaxHeader = 1 << 20;

struct Descr {
  std::string_view text;
  ElementType type;
};
constexpr Descr kDescrs[] = {
    {"b1", ElementType::kBool},    {"i1", ElementType::kInt8},    {"i2", ElementType::kInt16},
    {"i4", ElementType::kInt32},   {"i8", ElementType::kInt64},   {"u1", ElementType::kUInt8},
    {"u2", ElementType::kUInt16},  {"u4", ElementType::kUInt32},  {"u8", ElementType::kUInt64},
    {"f2", ElementType::kFloat16}, {"f4", ElementType::kFloat32}, {"V2", ElementType::kBFloat16},
};

// Element sizes, local so that the runner needs only the enum from kernel_metadata.h.
int ElemBytes(ElementType t) {
  switch (t) {
    case ElementType::kBool:
    case ElementType::kInt8:
    case ElementType::kUInt8:
      return 1;
    case ElementType::kInt16:
    case ElementType::kUInt16:
    case ElementType::kFloat16:
    case ElementType::kBFloat16:
      return 2;
    case ElementType::kInt32:
    case ElementType::kUInt32:
    case ElementType::kFloat32:
      return 4;
    case ElementType::kInt64:
    case ElementType::kUInt64:
      return 8;
  }
  return 1;
}

Result<ElementType> ParseDescr(std::string_view d) {
  if (d.size() != 3) return InvalidArgument("npy: unsupported descr '" + std::string(d) + "'");
  const char order = d[0];
  for (const Descr& x : kDescrs) {
    if (d.substr(1) != x.text) continue;
    const bool one_byte = ElemBytes(x.type) == 1;
    if (order == '<' || order == '=' || (one_byte && (order == '|' || order == '>')) ||
        (order == '|' && x.type == ElementType::kBFloat16)) {
      return x.type;
    }
    return InvalidArgument("npy: big-endian or unknown byte order in descr '" + std::string(d) +
                           "' (only little-endian is supported)");
  }
  return InvalidArgument("npy: unsupported descr '" + std::string(d) + "'");
}

std::string DescrOf(ElementType t) {
  for (const Descr& x : kDescrs) {
    if (x.type != t) continue;
    if (t == ElementType::kBFloat16) return "<u2";
    return std::string(ElemBytes(t) == 1 ? "|" : "<") + std::string(x.text);
  }
  return "";
}

class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  void SkipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t')) ++i_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  std::optional<std::string> String() {
    SkipSpace();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) return std::nullopt;
    const char q = s_[i_++];
    const size_t end = s_.find(q, i_);
    if (end == std::string_view::npos) return std::nullopt;
    std::string out(s_.substr(i_, end - i_));
    i_ = end + 1;
    return out;
  }
  std::optional<bool> Bool() {
    SkipSpace();
    for (auto [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      const size_t n = std::strlen(word);
      if (s_.substr(i_, n) == word) {
        i_ += n;
        return value;
      }
    }
    return std::nullopt;
  }
  std::optional<int64_t> Int() {
    SkipSpace();
    int64_t v = 0;
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) return std::nullopt;
      v = v * 10 + (s_[i_++] - '0');
    }
    if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 long suffix
    if (i_ == start) return std::nullopt;
    return v;
  }
  std::optional<std::vector<int64_t>> Tuple() {
    if (!Eat('(')) return std::nullopt;
    std::vector<int64_t> dims;
    while (!Eat(')')) {
      auto d = Int();
      if (!d || dims.size() >= 32) return std::nullopt;
      dims.push_back(*d);
      if (!Eat(',')) {
        if (!Eat(')')) return std::nullopt;
        break;
      }
    }
    return dims;
  }
  bool AtEnd() {
    SkipSpace();
    return i_ == s_.size();
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortran;
  std::optional<std::vector<int64_t>> shape;
};

Result<Header> ParseHeader(std::string_view text) {
  Cursor c(text);
  Header h;
  if (!c.Eat('{')) return InvalidArgument("npy: header is not a dict");
  while (!c.Eat('}')) {
    auto key = c.String();
    if (!key || !c.Eat(':')) return InvalidArgument("npy: malformed header dict");
    if (*key == "descr") {
      h.descr = c.String();
      if (!h.descr)
        return InvalidArgument(
            "npy: descr must be a string (structured dtypes "
            "are not supported)");
    } else if (*key == "fortran_order") {
      h.fortran = c.Bool();
      if (!h.fortran) return InvalidArgument("npy: fortran_order must be True or False");
    } else if (*key == "shape") {
      h.shape = c.Tuple();
      if (!h.shape) return InvalidArgument("npy: shape must be a tuple of integers");
    } else {
      return InvalidArgument("npy: unknown header key '" + *key + "'");
    }
    if (!c.Eat(',')) {
      if (!c.Eat('}')) return InvalidArgument("npy: malformed header dict");
      break;
    }
  }
  if (!c.AtEnd()) return InvalidArgument("npy: trailing characters after the header dict");
  if (!h.descr || !h.fortran || !h.shape) {
    return InvalidArgument("npy: header lacks descr, fortran_order or shape");
  }
  return h;
}

uint32_t ReadLe(const uint8_t* p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

int64_t NpyArray::ElementCount() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Result<NpyArray> ParseNpy(std::span<const uint8_t> bytes) {
  if (bytes.size() < kMagicLen + 4 || std::memcmp(bytes.data(), kMagic, kMagicLen) != 0) {
    return InvalidArgument("npy: missing magic string (not a .npy file)");
  }
  const uint8_t major = bytes[6];
  if (major < 1 || major > 3) {
    return InvalidArgument("npy: unsupported format version " + std::to_string(major));
  }
  const int len_bytes = major == 1 ? 2 : 4;
  const size_t prefix = 8 + len_bytes;
  if (bytes.size() < prefix) return InvalidArgument("npy: truncated header length");
  const uint64_t header_len = ReadLe(bytes.data() + 8, len_bytes);
  if (header_len > kMaxHeader || bytes.size() - prefix < header_len) {
    return InvalidArgument("npy: header length " + std::to_string(header_len) +
                           " exceeds the file");
  }
  std::string_view text(reinterpret_cast<const char*>(bytes.data() + prefix), header_len);
  TILEJIT_ASSIGN_OR_RETURN(Header h, ParseHeader(text));
  if (*h.fortran) return InvalidArgument("npy: fortran_order True is not supported (C order only)");
  NpyArray out;
  TILEJIT_ASSIGN_OR_RETURN(out.dtype, ParseDescr(*h.descr));
  out.shape = *h.shape;
  const uint64_t elem = ElemBytes(out.dtype);
  uint64_t total = elem;
  for (int64_t d : out.shape) {
    if (d != 0 && total > (uint64_t{1} << 46) / static_cast<uint64_t>(d)) {
      return InvalidArgument("npy: shape is too large");
    }
    total *= static_cast<uint64_t>(d);
  }
  const uint64_t available = bytes.size() - prefix - header_len;
  if (available != total) {
    return InvalidArgument("npy: data holds " + std::to_string(available) + " bytes, shape needs " +
                           std::to_string(total));
  }
  out.data.assign(bytes.begin() + prefix + header_len, bytes.end());
  return out;
}

Result<std::vector<uint8_t>> SerializeNpy(const NpyArray& a) {
  for (int64_t d : a.shape) {
    if (d < 0) return InvalidArgument("npy: negative dimension");
  }
  const uint64_t expected = static_cast<uint64_t>(a.ElementCount()) * ElemBytes(a.dtype);
  if (a.data.size() != expected) return InvalidArgument("npy: data size disagrees with the shape");
  std::string dict = "{'descr': '" + DescrOf(a.dtype) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < a.shape.size(); ++i) {
    dict += std::to_string(a.shape[i]) + (a.shape.size() == 1      ? ","
                                          : i + 1 < a.shape.size() ? ", "
                                                                   : "");
  }
  dict += "), }";
  const bool v2 = dict.size() + 12 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  size_t total = prefix + dict.size() + 1;
  const size_t pad = (64 - total % 64) % 64;
  dict.append(pad, ' ');
  dict += '\n';
  std::vector<uint8_t> out(kMagic, kMagic + kMagicLen);
  out.push_back(v2 ? 2 : 1);
  out.push_back(0);
  const uint32_t len = static_cast<uint32_t>(dict.size());
  for (int i = 0; i < (v2 ? 4 : 2); ++i) out.push_back(static_cast<uint8_t>(len >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), a.data.begin(), a.data.end());
  return out;
}

Result<NpyArray> ReadNpyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("npy: cannot open '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  auto r = ParseNpy(bytes);
  if (!r.ok()) return r.status().WithContext(path);
  return r;
}

Status WriteNpyFile(const std::string& path, const NpyArray& array) {
  TILEJIT_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, SerializeNpy(array));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return NotFound("npy: cannot create '" + path + "'");
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) return Unavailable("npy: write to '" + path + "' failed");
  return Status::Ok();
}

}  // namespace tilejit::runner
