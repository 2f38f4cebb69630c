// SPDX-License-Identifier: Apache-2.0
// Tensors of a tuning (tune.h): seeded random inputs of a kernel's declared input shapes, and
// the comparison of a candidate's outputs with the reference outputs. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "compiler/target/kernel_metadata.h"
#include "runner/npy.h"

namespace tilejit::server {

// One array per input parameter of `metadata` (ABI order), each element a multiple of 1/64 in
// [-1, 1] (exact in every float type; integers get -4..4, bools 0/1), from a generator seeded
// with `seed`: equal shapes and seeds give equal bytes. Symbolic dims or more than `max_bytes`
// in all are kInvalidArgument (the caller must then send inputs).
Result<std::vector<runner::NpyArray>> GenerateInputs(const target::KernelMetadata& metadata,
                                                     uint64_t seed, uint64_t max_bytes);

// Empty when every output matches its reference (numpy.allclose: |got - want| <= atol +
// rtol * |want|, NaN matching nothing); otherwise why not: a count or shape mismatch, or the
// first differing element and how many differ.
std::string CompareOutputs(const std::vector<runner::NpyArray>& outputs,
                           const std::vector<runner::NpyArray>& reference, double atol,
                           double rtol);

// The elements of `a` as doubles (every ElementType; float16 and bfloat16 decoded exactly).
std::vector<double> ToDoubles(const runner::NpyArray& a);

}  // namespace tilejit::server
