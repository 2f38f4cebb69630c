# SPDX-License-Identifier: Apache-2.0
# GM -> L1 copies spliced into one L1 tile (test_l1_splice_e2e.py). The semantics follow
# TileLang-Ascend's copy_gm_to_l1 as its testing/python/language/
# test_tilelang_ascend_language_gm_to_l1.py describes it: the copy at the tile's base clears the
# whole tile when it fills only part of it, later copies write only their own rows, so a
# splice may end at any row and rows no copy writes read as zero.
import tilejit as tilelang
import tilejit.language as T

_DEVELOPER = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


@tilelang.jit(out_idx=[-1], pass_configs=_DEVELOPER)
def scores_of_spliced_keys(M, N, D, splits, dtype="float16"):
    """S = Q @ K^T where K's rows come from len(splits) tensors copied one after another into
    rows [0, s0), [s0, s0 + s1), ... of one [N, D] L1 tile; rows past their sum stay zero. A
    third split of 0 copies nothing (its tensor has one unused row)."""
    rows = [max(s, 1) for s in splits]
    bounds = [0]
    for s in splits:
        bounds.append(bounds[-1] + s)

    @T.prim_func
    def main(Q: T.Tensor((M, D), dtype), K0: T.Tensor((rows[0], D), dtype),
             K1: T.Tensor((rows[1], D), dtype), K2: T.Tensor((rows[2], D), dtype),
             S: T.Tensor((M, N), "float")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            q_l1 = T.alloc_L1((M, D), dtype)
            k_l1 = T.alloc_L1((N, D), dtype)
            s_l0c = T.alloc_L0C((M, N), "float")
            T.copy(Q, q_l1)
            T.copy(K0[0:splits[0], :], k_l1[0:bounds[1], :])
            T.copy(K1[0:splits[1], :], k_l1[bounds[1]:bounds[2], :])
            if splits[2] > 0:
                T.copy(K2[0:splits[2], :], k_l1[bounds[2]:bounds[3], :])
            T.gemm_v0(q_l1, k_l1, s_l0c, transpose_B=True, init=True)
            T.copy(s_l0c, S)

    return main
