// SPDX-License-Identifier: Apache-2.0
// The element types of tensors and values: the one enum the Tile IR (ir::DType is this type),
// the kernel metadata and the runner share. The ISA's own encoding dtype (isa.h, target::DType)
// is separate: its order is part of the instruction encoding and it has no bool or uint64.
//
// The order of ElementType is not part of any encoding (the binary's metadata stores names).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tilejit::target {

enum class ElementType : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
};
inline constexpr int kNumElementTypes = 12;

// Canonical names: "bool", "int8", ..., "float16", "bfloat16", "float32".
std::string_view ElementTypeName(ElementType t);
// Exact canonical names only (TileLang's aliases are the frontend's, ir::ParseDType); nullopt
// if unknown.
std::optional<ElementType> ParseElementType(std::string_view name);
// Bits of one element (bool: 8) and its storage size in bytes (bool: one byte).
int ElementTypeBits(ElementType t);
int ElementTypeBytes(ElementType t);
bool IsFloatElement(ElementType t);  // float16, bfloat16, float32
bool IsIntElement(ElementType t);    // a signed or unsigned integer (not bool)

}  // namespace tilejit::target
