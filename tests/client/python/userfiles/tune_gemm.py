# A GEMM under @tilelang.autotune (test_autotune_e2e.py): the tile sizes are tuned; skip_k drops
# the last K steps, so a configuration with skip_k=1 is faster and wrong (ref_prog catches it);
# 256 x 256 tiles do not fit the 910B's L0C (the compiler refuses them).
import numpy as np
import torch

import tilejit as tilelang
import tilejit.language as T

M = N = K = 256

pass_configs = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
}

CONFIGS = [
    {"block_M": 64, "block_N": 64, "K_L1": 64},
    {"block_M": 128, "block_N": 128, "K_L1": 64},
    {"block_M": 128, "block_N": 128, "K_L1": 64, "skip_k": 1},
    {"block_M": 256, "block_N": 256, "K_L1": 128},
    {"block_M": 64, "block_N": 128, "K_L1": 128},
    {"block_M": 128, "block_N": 64, "K_L1": 128},
]


def supply_prog(params):
    g = torch.Generator().manual_seed(0)
    return [((torch.randint(-64, 65, tuple(p.shape), generator=g)) / 64.0).half()
            for p in params]


def ref_prog(A, B):
    return (A.float() @ B.float()).half()


def make(configs=CONFIGS, **tune):
    @tilelang.autotune(configs=configs, ref_prog=ref_prog, supply_prog=supply_prog, **tune)
    @tilelang.jit(out_idx=[-1], pass_configs=pass_configs)
    def matmul(M, N, K, block_M=None, block_N=None, K_L1=None, skip_k=0, dtype="float16",
               accum_dtype="float"):
        m_num = M // block_M
        n_num = N // block_N

        @T.prim_func
        def main(
                A: T.Tensor((M, K), dtype),
                B: T.Tensor((K, N), dtype),
                C: T.Tensor((M, N), dtype),
        ):
            with T.Kernel(m_num * n_num, is_npu=True) as (cid, _):
                bx = cid // n_num
                by = cid % n_num
                A_L1 = T.alloc_shared((block_M, K_L1), dtype)
                B_L1 = T.alloc_shared((K_L1, block_N), dtype)
                C_L0 = T.alloc_fragment((block_M, block_N), accum_dtype)
                for k in T.serial(T.ceildiv(K, K_L1) - skip_k):
                    T.copy(A[bx * block_M, k * K_L1], A_L1)
                    T.copy(B[k * K_L1, by * block_N], B_L1)
                    T.gemm_v0(A_L1, B_L1, C_L0, init=(k == 0))
                T.copy(C_L0, C[bx * block_M, by * block_N])

        return main

    return matmul


def reference(a, b):
    return (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
