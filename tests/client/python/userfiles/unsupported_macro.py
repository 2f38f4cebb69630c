# SPDX-License-Identifier: Apache-2.0
# A macro whose line 10 holds a construct tilejit does not support (test_api_e2e.py).
import tilejit.language as T


@T.macro
def copy_laid_out(src, dst):
    T.copy(src, dst)
    T.barrier_all()
    T.shmem_put_nbi(dst, src, 16, 1)
