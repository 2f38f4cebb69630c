# SPDX-License-Identifier: Apache-2.0
# Line 17 holds a construct tilejit does not support (test_api_e2e.py asserts the line).
import tilejit as tilelang
import tilejit.language as T


@tilelang.jit(out_idx=[-1])
def swizzled(M, N):

    @T.prim_func
    def main(A: T.Tensor((M, N), "float"), B: T.Tensor((M, N), "float")):
        with T.Kernel(M // 16, is_npu=True) as (cid, vid):
            a = T.alloc_ub((8, N), "float")
            with T.Scope("V"):
                T.copy(A[cid * 16 + vid * 8, 0], a)
                T.barrier_all()
                T.use_swizzle(panel_size=4)
                T.copy(a, B[cid * 16 + vid * 8, 0])

    return main
