# SPDX-License-Identifier: Apache-2.0
# Calls the macro of unsupported_macro.py (test_api_e2e.py).
import tilejit as tilelang
import tilejit.language as T
from unsupported_macro import copy_laid_out


@tilelang.jit(out_idx=[-1])
def laid_out(M, N):

    @T.prim_func
    def main(A: T.Tensor((M, N), "float"), B: T.Tensor((M, N), "float")):
        with T.Kernel(M // 16, is_npu=True) as (cid, vid):
            a = T.alloc_ub((8, N), "float")
            with T.Scope("V"):
                copy_laid_out(A[cid * 16 + vid * 8, 0], a)
                T.copy(a, B[cid * 16 + vid * 8, 0])

    return main
