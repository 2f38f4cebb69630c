# SPDX-License-Identifier: Apache-2.0
# A vector kernel whose prim_func closes over a lambda, a T.* builtin, an IntEnum member, a
# macro imported from a second file and a module-level global (test_api_e2e.py).
import enum

import tilejit as tilelang
import tilejit.language as T
from helper_macros import add_into


class Op(enum.IntEnum):
    ADD = 1
    ADD_TWICE = 2


SCALE = 2.0  # read by the kernel: changing it must change the kernel


@tilelang.jit(out_idx=[-1])
def make_vec(M, N, op_mode, block_M=16):
    add = T.tile.add
    rows = lambda n: n // 2  # noqa: E731 (a lambda on purpose)
    mode = op_mode

    @T.prim_func
    def main(A: T.Tensor((M, N), "float"), B: T.Tensor((M, N), "float"),
             C: T.Tensor((M, N), "float")):
        with T.Kernel(M // block_M, is_npu=True) as (cid, vid):
            sub = rows(block_M)
            a = T.alloc_ub((sub, N), "float")
            b = T.alloc_ub((sub, N), "float")
            row = cid * block_M + vid * sub
            with T.Scope("V"):
                T.copy(A[row, 0], a)
                T.copy(B[row, 0], b)
                T.barrier_all()
                add_into(a, b)
                if mode == 2:
                    add(a, a, b)
                    T.barrier_all()
                T.tile.mul(a, a, SCALE)
                T.barrier_all()
                T.copy(a, C[row, 0])

    return main


def plain_factory(M, N):
    """Not decorated: its prim_func goes to tilelang.compile."""

    @T.prim_func
    def main(A: T.Tensor((M, N), "float"), B: T.Tensor((M, N), "float")):
        with T.Kernel(M // 16, is_npu=True) as (cid, vid):
            a = T.alloc_ub((8, N), "float")
            with T.Scope("V"):
                T.copy(A[cid * 16 + vid * 8, 0], a)
                T.barrier_all()
                T.tile.exp(a, a)
                T.barrier_all()
                T.copy(a, B[cid * 16 + vid * 8, 0])

    return main
