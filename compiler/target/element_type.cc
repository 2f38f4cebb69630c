// SPDX-License-Identifier: Apache-2.0
#include "compiler/target/element_type.h"

#include <array>

namespace tilejit::target {
namespace {

struct ElementTypeInfo {
  ElementType type;
  std::string_view name;
  int bits;
};

constexpr std::array<ElementTypeInfo, kNumElementTypes> kElementTypes = {{
    {ElementType::kBool, "bool", 8},
    {ElementType::kInt8, "int8", 8},
    {ElementType::kInt16, "int16", 16},
    {ElementType::kInt32, "int32", 32},
    {ElementType::kInt64, "int64", 64},
    {ElementType::kUInt8, "uint8", 8},
    {ElementType::kUInt16, "uint16", 16},
    {ElementType::kUInt32, "uint32", 32},
    {ElementType::kUInt64, "uint64", 64},
    {ElementType::kFloat16, "float16", 16},
    {ElementType::kBFloat16, "bfloat16", 16},
    {ElementType::kFloat32, "float32", 32},
}};

}  // namespace

std::string_view ElementTypeName(ElementType t) {
  return kElementTypes[static_cast<size_t>(t)].name;
}

std::optional<ElementType> ParseElementType(std::string_view name) {
  for (const ElementTypeInfo& info : kElementTypes) {
    if (info.name == name) return info.type;
  }
  return std::nullopt;
}

int ElementTypeBits(ElementType t) { return kElementTypes[static_cast<size_t>(t)].bits; }

int ElementTypeBytes(ElementType t) { return ElementTypeBits(t) / 8; }

bool IsFloatElement(ElementType t) {
  return t == ElementType::kFloat16 || t == ElementType::kBFloat16 || t == ElementType::kFloat32;
}

bool IsIntElement(ElementType t) { return !IsFloatElement(t) && t != ElementType::kBool; }

}  // namespace tilejit::target
