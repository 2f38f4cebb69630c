// SPDX-License-Identifier: Apache-2.0
// NumPy .npy files (format versions 1.0, 2.0 and 3.0), the tensor exchange format of the
// runner (DESIGN.md section 5).
//
// Supported element types (descr): bool '|b1', int8 '|i1', int16 '<i2', int32 '<i4',
// int64 '<i8', uint8 '|u1', uint16 '<u2', uint32 '<u4', uint64 '<u8', float16 '<f2',
// float32 '<f4'. NumPy has no bfloat16: bfloat16 arrays are written as their raw bit patterns
// with descr '<u2' (read them back as uint16 and reinterpret), and a 2-byte void descr
// ('|V2', as produced for extension types such as ml_dtypes.bfloat16) is read as bfloat16.
// Only little-endian data in C order: big-endian data and fortran_order True are rejected.
//
// Parsing never trusts the input: every malformed, truncated or oversized file gives a
// kInvalidArgument Status naming the problem. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/status.h"
#include "compiler/target/kernel_metadata.h"

namespace tilejit::runner {

struct NpyArray {
  target::ElementType dtype = target::ElementType::kFloat32;
  std::vector<int64_t> shape;  // empty = scalar (one element)
  std::vector<uint8_t> data;   // C order, little-endian, ElementCount() * element bytes

  int64_t ElementCount() const;
};

Result<NpyArray> ParseNpy(std::span<const uint8_t> bytes);
// Serialises as format 1.0 (or 2.0 when the header does not fit 1.0's 16-bit length).
// kInvalidArgument if data.size() disagrees with the shape.
Result<std::vector<uint8_t>> SerializeNpy(const NpyArray& array);

Result<NpyArray> ReadNpyFile(const std::string& path);
Status WriteNpyFile(const std::string& path, const NpyArray& array);

}  // namespace tilejit::runner
