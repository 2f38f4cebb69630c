# SPDX-License-Identifier: Apache-2.0
# A kernel with no inputs: its one output is filled with `value` (test_api_e2e.py and
# test_compat_e2e.py: what a call with no arguments returns).
import tilejit as tilelang
import tilejit.language as T


@tilelang.jit(out_idx=[-1])
def filled(M, N, value, block_M=16):
    @T.prim_func
    def main(C: T.Tensor((M, N), "float")):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            sub = block_M // 2
            c = T.alloc_ub((sub, N), "float")
            with T.Scope("V"):
                T.tile.fill(c, value)
                T.barrier_all()
                T.copy(c, C[cid * block_M + vid * sub, 0])

    return main
