# SPDX-License-Identifier: Apache-2.0
"""Kernels that hand tiles of a grid to a fixed number of cores (T.Persistent, T.use_swizzle,
as upstream's examples/gemm/example_gemm_persistent.py and example_gemm_intrinsic.py do):
each tile of A gets 1 added into B, and Order[tile] records which task (wave * cores + cid)
visited it, so a test can check the tile order against the definition."""
import tilejit as tilelang
import tilejit.language as T

ROWS, COLS = 8, 8  # one tile


@tilelang.jit(out_idx=[1, 2])
def persistent(grid_m, grid_n, cores, group_size):
    M, N = grid_m * ROWS, grid_n * COLS

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32"),
             Order: T.Tensor((grid_m, grid_n), "int32")):
        with T.Kernel(cores, is_npu=True) as (cid, vid):
            t = T.alloc_ub((ROWS, COLS), "float32")
            with T.Scope("V"):
                if vid == 0:
                    for bx, by in T.Persistent([grid_m, grid_n], cores, cid, group_size):
                        T.copy(A[bx * ROWS:(bx + 1) * ROWS, by * COLS:(by + 1) * COLS], t)
                        T.barrier_all()
                        T.tile.add(t, t, 1.0)
                        T.barrier_all()
                        T.copy(t, B[bx * ROWS:(bx + 1) * ROWS, by * COLS:(by + 1) * COLS])
                        Order[bx, by] = cid
                        T.barrier_all()

    return main


@tilelang.jit(out_idx=[1, 2])
def swizzled(grid_m, grid_n, cores, off, direction):
    M, N = grid_m * ROWS, grid_n * COLS
    tiles = grid_m * grid_n

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32"),
             Order: T.Tensor((grid_m, grid_n), "int32")):
        with T.Kernel(cores, is_npu=True) as (cid, vid):
            t = T.alloc_ub((ROWS, COLS), "float32")
            with T.Scope("V"):
                if vid == 0:
                    for i in T.serial(T.ceildiv(tiles, cores)):
                        task = i * cores + cid
                        if task < tiles:
                            tile = T.use_swizzle(task, M, N, 64, ROWS, COLS, off=off,
                                                 dir=direction)
                            bx = tile // grid_n
                            by = tile % grid_n
                            T.copy(A[bx * ROWS:(bx + 1) * ROWS, by * COLS:(by + 1) * COLS], t)
                            T.barrier_all()
                            T.tile.add(t, t, 1.0)
                            T.barrier_all()
                            T.copy(t, B[bx * ROWS:(bx + 1) * ROWS, by * COLS:(by + 1) * COLS])
                            Order[bx, by] = task
                            T.barrier_all()

    return main
