# SPDX-License-Identifier: Apache-2.0
"""Kernels of the raw repeat form (T.tile.block_reduce_*, wholereduce*, gatherb): the author's
repeats, mask and strides address one-dimensional UB tiles from their first element."""
import tilejit as tilelang
import tilejit.language as T

REDUCE = {
    "block_reduce_sum": T.tile.block_reduce_sum, "block_reduce_max": T.tile.block_reduce_max,
    "block_reduce_min": T.tile.block_reduce_min, "wholereducesum": T.tile.wholereducesum,
    "wholereducemax": T.tile.wholereducemax, "wholereducemin": T.tile.wholereducemin,
}


@tilelang.jit(out_idx=[-1])
def raw_reduce(name, dtype, L, O, repeat, mask, dst_rep, src_blk, src_rep, order=None):
    """B (O elements, 0 where the reduction writes nothing) = REDUCE[name] over A (L)."""
    op = REDUCE[name]
    block = name.startswith("block")

    @T.prim_func
    def main(A: T.Tensor((L,), dtype), B: T.Tensor((O,), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((L,), dtype)
            b = T.alloc_ub((O,), dtype)
            with T.Scope("V"):
                if vid == 0:
                    T.copy(A, a)
                    T.tile.fill(b, 0)
                    T.barrier_all()
                    if block:
                        op(b, a, repeat, mask, dst_rep, src_blk, src_rep)
                    elif order is None:
                        op(b, a, mask, repeat, dst_rep, src_blk, src_rep)
                    else:
                        op(b, a, mask, repeat, dst_rep, src_blk, src_rep, order)
                    T.barrier_all()
                    T.copy(b, B)

    return main


@tilelang.jit(out_idx=[-1])
def gatherb(dtype, L, blocks, dst_blk, dst_rep, O):
    """C (O elements) = the 32-byte blocks of A (L) at the byte offsets in B (blocks), block
    8r + k of C at (r * dst_rep + k * dst_blk) * 32 bytes; 0 elsewhere."""

    @T.prim_func
    def main(A: T.Tensor((L,), dtype), B: T.Tensor((blocks,), "uint32"), C: T.Tensor((O,), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((L,), dtype)
            b = T.alloc_ub((blocks,), "uint32")
            c = T.alloc_ub((O,), dtype)
            with T.Scope("V"):
                if vid == 0:
                    T.copy(A, a)
                    T.copy(B, b)
                    T.tile.fill(c, 0)
                    T.barrier_all()
                    T.tile.gatherb(c, a, b, blocks // 8, dst_blk, dst_rep)
                    T.barrier_all()
                    T.copy(c, C)

    return main
