// SPDX-License-Identifier: Apache-2.0
// OpenBLAS's own thread pool would compete with the simulator's block threads on a small
// machine, so it is limited to one thread before the first call.
#include "runner/sim/gemm.h"

#include <cblas.h>

#include <mutex>

namespace tilejit::runner::sim {

void GemmF32(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
             int64_t ldb, float* c, int64_t ldc, bool accumulate, bool b_transposed) {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
  if (m == 0 || n == 0) return;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, b_transposed ? CblasTrans : CblasNoTrans,
              static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f, a,
              static_cast<int>(lda), b, static_cast<int>(ldb), accumulate ? 1.0f : 0.0f, c,
              static_cast<int>(ldc));
}

}  // namespace tilejit::runner::sim
