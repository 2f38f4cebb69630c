// SPDX-License-Identifier: Apache-2.0
// Why the format is parsed here rather than handed to snprintf whole: the arguments are 64-bit
// registers whose C type the format decides, and a kernel's format is untrusted input. Each
// conversion is rebuilt from its parsed parts (flags, width, precision, one conversion char)
// and given an argument of exactly the type that conversion expects.
#include "runner/sim/device_print.h"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "runner/sim/half.h"

namespace tilejit::runner::sim {
namespace {

using target::ElementType;

constexpr size_t kMaxWidth = 256;  // width and precision beyond this are clipped
// Shapes may promise more elements than were dumped ("-"); never print more than a dump holds.
constexpr int64_t kMaxDumpShown = target::kMaxDumpCount;

bool IsFloat(ElementType t) {
  return t == ElementType::kFloat16 || t == ElementType::kBFloat16 || t == ElementType::kFloat32;
}

double AsDouble(const PrintArg& a) {
  if (IsFloat(a.type)) return std::bit_cast<float>(static_cast<uint32_t>(a.bits));
  return static_cast<double>(a.bits);
}

int64_t AsInt(const PrintArg& a) {
  if (!IsFloat(a.type)) return a.bits;
  const double d = AsDouble(a);
  return d != d || d >= 9.2e18 || d <= -9.2e18 ? 0 : static_cast<int64_t>(d);
}

// One conversion spec after '%': flags, width and precision as written (clipped), and the
// conversion character; `length` is how many characters of the format it spans.
struct Spec {
  std::string flags;
  std::string width, precision;
  bool has_precision = false;
  char conv = 0;
  size_t length = 0;
};

std::string Digits(std::string_view s, size_t* i) {
  std::string out;
  while (*i < s.size() && s[*i] >= '0' && s[*i] <= '9') out += s[(*i)++];
  if (out.size() > 3 || (!out.empty() && std::stoul(out) > kMaxWidth)) {
    out = std::to_string(kMaxWidth);
  }
  return out;
}

Spec ParseSpec(std::string_view s) {  // s starts after the '%'
  Spec spec;
  size_t i = 0;
  while (i < s.size() && std::strchr("-+ #0", s[i]) != nullptr) spec.flags += s[i++];
  spec.width = Digits(s, &i);
  if (i < s.size() && s[i] == '.') {
    ++i;
    spec.has_precision = true;
    spec.precision = Digits(s, &i);
  }
  while (i < s.size() && std::strchr("hlLqjzt", s[i]) != nullptr) ++i;
  spec.conv = i < s.size() ? s[i++] : 0;
  spec.length = i;
  return spec;
}

std::string Convert(const Spec& spec, const PrintArg& arg) {
  std::string fmt = "%" + spec.flags + spec.width;
  if (spec.has_precision) fmt += "." + spec.precision;
  char buf[2 * kMaxWidth + 64];
  switch (spec.conv) {
    case 'd':
    case 'i':
      fmt += PRId64;
      std::snprintf(buf, sizeof(buf), fmt.c_str(), AsInt(arg));
      break;
    case 'u':
    case 'x':
    case 'X':
    case 'o':
      fmt += spec.conv == 'u'   ? PRIu64
             : spec.conv == 'o' ? PRIo64
             : spec.conv == 'x' ? PRIx64
                                : PRIX64;
      std::snprintf(buf, sizeof(buf), fmt.c_str(), static_cast<uint64_t>(AsInt(arg)));
      break;
    case 'p':
      fmt += "#" PRIx64;
      std::snprintf(buf, sizeof(buf), fmt.c_str(), static_cast<uint64_t>(AsInt(arg)));
      break;
    case 'c':
      fmt += 'c';
      std::snprintf(buf, sizeof(buf), fmt.c_str(), static_cast<int>(AsInt(arg) & 0x7f));
      break;
    default:  // e E f F g G
      fmt += spec.conv;
      std::snprintf(buf, sizeof(buf), fmt.c_str(), AsDouble(arg));
      break;
  }
  return buf;
}

std::string Element(const uint8_t* p, ElementType t) {
  auto load = [p]<typename T>(T) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  };
  char buf[64];
  switch (t) {
    case ElementType::kFloat16:
      std::snprintf(buf, sizeof(buf), "%g", HalfToFloat(load(uint16_t{})));
      return buf;
    case ElementType::kBFloat16:
      std::snprintf(buf, sizeof(buf), "%g",
                    std::bit_cast<float>(static_cast<uint32_t>(load(uint16_t{})) << 16));
      return buf;
    case ElementType::kFloat32:
      std::snprintf(buf, sizeof(buf), "%g", load(float{}));
      return buf;
    case ElementType::kBool:
    case ElementType::kUInt8:
      return std::to_string(load(uint8_t{}));
    case ElementType::kInt8:
      return std::to_string(load(int8_t{}));
    case ElementType::kInt16:
      return std::to_string(load(int16_t{}));
    case ElementType::kUInt16:
      return std::to_string(load(uint16_t{}));
    case ElementType::kInt32:
      return std::to_string(load(int32_t{}));
    case ElementType::kUInt32:
      return std::to_string(load(uint32_t{}));
    case ElementType::kInt64:
      return std::to_string(load(int64_t{}));
    case ElementType::kUInt64:
      return std::to_string(load(uint64_t{}));
  }
  return "?";
}

}  // namespace

std::string FormatPrintf(std::string_view format, std::span<const PrintArg> args) {
  std::string out;
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    const Spec spec = ParseSpec(format.substr(i + 1));
    const std::string_view written = format.substr(i, spec.length + 1);
    i += spec.length;
    if (spec.conv == '%') {
      out += '%';
    } else if (spec.conv == 0 || std::strchr("diuxXocpeEfFgG", spec.conv) == nullptr) {
      out += written;
    } else if (next >= args.size()) {
      out += "<missing>";
    } else {
      out += Convert(spec, args[next++]);
    }
  }
  return out;
}

std::string FormatDump(const target::PrintRecord& record, uint64_t address,
                       std::span<const uint8_t> bytes) {
  const int64_t size = target::ElementTypeBytes(record.dtype);
  std::string out = "dump desc=" + std::to_string(record.desc) + " " + record.memory + " " +
                    std::string(target::ElementTypeName(record.dtype)) + "[" +
                    std::to_string(record.count) + "] at " + std::to_string(address) + ":\n";
  int64_t total = record.count, row = record.count;
  if (!record.shape.empty()) {
    total = 1;
    for (int64_t d : record.shape) total = std::min(total * d, kMaxDumpShown);  // d <= 2^20
    row = record.shape.back();
  }
  total = std::min(total, kMaxDumpShown);
  for (int64_t i = 0; i < total; ++i) {
    out += i % row == 0 ? "  " : " ";
    out += i < record.count && static_cast<size_t>((i + 1) * size) <= bytes.size()
               ? Element(bytes.data() + i * size, record.dtype)
               : "-";
    if ((i + 1) % row == 0 || i + 1 == total) out += "\n";
  }
  return out;
}

}  // namespace tilejit::runner::sim
