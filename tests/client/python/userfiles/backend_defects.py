# SPDX-License-Identifier: Apache-2.0
"""Kernels that reproduce back-end defects found by running TileLang-Ascend's examples
(test_backend_defects_e2e.py): each is the smallest kernel with the shape of the failing
example."""
import tilejit as tilelang
import tilejit.language as T


@tilelang.jit(out_idx=[-1])
def attention_scores_then_values(M=32, N=64, D=512):
    """O = fp16(Q K^T) V in one block, Expert mode, as upstream's flash attention with head dim
    512 (examples/pipeline/flash_attn_bshd_pipeline.py): Q K^T's B operand fills L0B alone
    (512 x 64 float16 = 64 KiB), and so does P V's (64 x 512), one gemm after the other."""

    @T.prim_func
    def main(Q: T.Tensor((M, D), "float16"), K: T.Tensor((N, D), "float16"),
             V: T.Tensor((N, D), "float16"), O: T.Tensor((M, D), "float")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            q = T.alloc_L1((M, D), "float16")
            k = T.alloc_L1((N, D), "float16")
            v = T.alloc_L1((N, D), "float16")
            p = T.alloc_L1((M, N), "float16")
            s = T.alloc_L0C((M, N), "float")
            o = T.alloc_L0C((M, D), "float")
            with T.Scope("C"):
                T.copy(Q, q)
                T.copy(K, k)
                T.copy(V, v)
                T.barrier_all()
                T.gemm_v0(q, k, s, transpose_B=True, init=True)
                T.barrier_all()
                T.copy(s, p)
                T.barrier_all()
                T.gemm_v0(p, v, o, init=True)
                T.barrier_all()
                T.copy(o, O)

    return main
