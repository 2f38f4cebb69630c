# SPDX-License-Identifier: Apache-2.0
"""Kernels that print on the device (test_device_print_e2e.py), in the forms of
TileLang-Ascend's examples/print/elementwise_print.py: T.printf with numbers and strings,
T.dump_tensor of GM (outside the launch), UB and L1 buffers with and without shape_info."""
import tilejit as tilelang
import tilejit.language as T


@tilelang.jit(out_idx=[-1])
def add_one_and_print(M=4, N=16, scale=0.5):
    """Y = X + 1 on the two vector cores (rows split by vid), printing as it goes."""

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((M, N), "float16")):
        T.printf("X before the launch:\n")
        T.dump_tensor(X, 111, M * N, (M, N))
        with T.Kernel(1, is_npu=True) as (cid, vid):
            x = T.alloc_ub((M // 2, N), "float16")
            with T.Scope("V"):
                T.printf("%s cid=%d vid=%d scale=%.2f 100%%\n", "core", cid, vid, scale)
                T.copy(X[vid * M // 2, 0], x)
                T.dump_tensor(x, 222, M // 2 * N, (M // 2, N))
                T.barrier_all()
                T.tile.add(x, x, 1.0)
                T.barrier_all()
                T.copy(x, Y[vid * M // 2, 0])
                T.dump_tensor(x, 333, 4)

    return main


@tilelang.jit(out_idx=[-1])
def dump_l1(M=16, N=16):
    """The cube dumps an L1 tile (fractal order) while copying X to Y through it."""

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((M, N), "float16")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_L1((M, N), "float16")
            with T.Scope("C"):
                T.copy(X, a)
                T.dump_tensor(a, 7, 16)
                T.barrier_all()
                T.copy(a, Y)

    return main


@tilelang.jit(out_idx=[-1])
def printf_with_too_many_values(N=16):
    @T.prim_func
    def main(X: T.Tensor((N,), "float16"), Y: T.Tensor((N,), "float16")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            x = T.alloc_ub((N,), "float16")
            T.printf("%d\n", cid, vid)
            T.copy(X, x)
            T.copy(x, Y)

    return main


@tilelang.jit(out_idx=[-1])
def dump_past_the_buffer(N=16):
    @T.prim_func
    def main(X: T.Tensor((N,), "float16"), Y: T.Tensor((N,), "float16")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            x = T.alloc_ub((N,), "float16")
            T.copy(X, x)
            T.dump_tensor(x[8], 1, 16)
            T.copy(x, Y)

    return main
