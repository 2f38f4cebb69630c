# SPDX-License-Identifier: Apache-2.0
"""Kernels of the sort family (T.tile.sort32, merge_sort, sort, topk) in Developer mode with
the four switches on, so the compiler places the scratch and orders every step."""
import tilejit as tilelang
import tilejit.language as T

PASS_CONFIGS = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


def _aligned(n):
    return (n + 31) // 32 * 32


@tilelang.jit(out_idx=[-1], pass_configs=PASS_CONFIGS)
def sort(n, dtype):
    """B = the first n elements of A as (value, index) pairs in descending order, padded with
    (-inf, index) pairs up to n rounded up to 32."""
    cols = _aligned(n)

    @T.prim_func
    def main(A: T.Tensor((1, n), dtype), B: T.Tensor((1, 2 * cols), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_shared((1, cols), dtype)
            b = T.alloc_shared((1, 2 * cols), dtype)
            T.copy(A[0, 0], a)
            T.tile.sort(b, a, n)
            T.copy(b, B)

    return main


@tilelang.jit(out_idx=[-1], pass_configs=PASS_CONFIGS)
def topk(n, k, dtype):
    """B = the k largest of A's n elements as (value, index) pairs, largest first."""
    cols = _aligned(n)

    @T.prim_func
    def main(A: T.Tensor((1, n), dtype), B: T.Tensor((1, 2 * k), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_shared((1, cols), dtype)
            b = T.alloc_shared((1, 2 * k), dtype)
            T.copy(A[0, 0], a)
            T.tile.topk(b, a, k, n)
            T.copy(b, B)

    return main


@tilelang.jit(out_idx=[-1], pass_configs=PASS_CONFIGS)
def sort32(rows, cols, dtype):
    """C = each group of 32 of A's elements sorted descending into proposals with B's indices:
    (value, index bits) for float32, (value, 0, index low, index high) halves for float16."""
    per = 4 if dtype == "float16" else 2

    @T.prim_func
    def main(A: T.Tensor((rows, cols), dtype), B: T.Tensor((rows, cols), "uint32"),
             C: T.Tensor((rows, per * cols), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_shared((rows, cols), dtype)
            b = T.alloc_shared((rows, cols), "uint32")
            c = T.alloc_shared((rows, per * cols), dtype)
            T.copy(A, a)
            T.copy(B, b)
            T.tile.sort32(c, a, b)
            T.copy(c, C)

    return main


@tilelang.jit(out_idx=[-1], pass_configs=PASS_CONFIGS)
def merge_sort(lengths):
    """Out = the descending (value, index) pair lists In0, In1, .. (lengths[i] pairs each)
    merged; the inputs past len(lengths) are unused."""
    ways, total = len(lengths), sum(lengths)
    L = [2 * x for x in lengths] + [2 * lengths[-1]] * (4 - ways)

    @T.prim_func
    def main(In0: T.Tensor((L[0],), "float32"), In1: T.Tensor((L[1],), "float32"),
             In2: T.Tensor((L[2],), "float32"), In3: T.Tensor((L[3],), "float32"),
             Out: T.Tensor((2 * total,), "float32")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            s0 = T.alloc_shared((L[0],), "float32")
            s1 = T.alloc_shared((L[1],), "float32")
            s2 = T.alloc_shared((L[2],), "float32")
            s3 = T.alloc_shared((L[3],), "float32")
            out = T.alloc_shared((2 * total,), "float32")
            T.copy(In0, s0)
            T.copy(In1, s1)
            T.copy(In2, s2)
            T.copy(In3, s3)
            if ways == 2:
                T.tile.merge_sort(out, s0, s1)
            elif ways == 3:
                T.tile.merge_sort(out, s0, s1, s2)
            else:
                T.tile.merge_sort(out, s0, s1, s2, s3)
            T.copy(out, Out)

    return main
