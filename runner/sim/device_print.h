// SPDX-License-Identifier: Apache-2.0
// The text of device-side printing (T.printf, T.dump_tensor; docs/isa.md, "Device printing"):
// pure functions from a print record of the kernel metadata and the values the core passed to
// the text it prints. The simulator prefixes each line with its block and core.
//
// Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "compiler/target/kernel_metadata.h"

namespace tilejit::runner::sim {

// One printf argument: a register's value and the type the compiler gave it (an integer type,
// or float32 as fp32 bits in the low 32 bits).
struct PrintArg {
  int64_t bits = 0;
  target::ElementType type = target::ElementType::kInt64;
};

// C printf semantics for %d %i %u %x %X %o %c %e %E %f %F %g %G %p and %% with flags, width
// and precision (length modifiers are accepted and ignored: every integer is 64-bit). An
// integer conversion of a float argument prints it truncated toward zero, a float conversion of
// an integer its value. A conversion with no argument left prints "<missing>"; arguments left
// over are ignored; an unknown conversion is printed as written.
std::string FormatPrintf(std::string_view format, std::span<const PrintArg> args);

// `record.count` elements of `record.dtype` from `bytes` (exactly count * element size), as
//   dump desc=<desc> <memory> <dtype>[<count>] at <address>:
// and then rows of the shape's last dim (one row without a shape); a shape larger than the
// count shows the missing elements as "-", a smaller one shows only its own elements.
std::string FormatDump(const target::PrintRecord& record, uint64_t address,
                       std::span<const uint8_t> bytes);

}  // namespace tilejit::runner::sim
