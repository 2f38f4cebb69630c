// SPDX-License-Identifier: Apache-2.0
// Matrix arithmetic of the cube unit on row-major fp32 operands, done by the host BLAS
// (OpenBLAS). The device accumulates in fp32 in an unspecified order, so any BLAS summation
// order is within the contract (DESIGN.md section 5).
//
// Thread-safe: the BLAS is put in single-threaded mode once (one BLAS thread per simulator
// thread), and calls from several host threads run concurrently.
#pragma once

#include <cstdint>

namespace tilejit::runner::sim {

// c[m x n] (+)= a[m x k] * b[k x n]; leading dimensions in elements. accumulate=false
// overwrites c. b_transposed: `b` holds B^T (n x k, leading dimension ldb).
void GemmF32(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
             int64_t ldb, float* c, int64_t ldc, bool accumulate, bool b_transposed = false);

}  // namespace tilejit::runner::sim
