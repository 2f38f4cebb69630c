# SPDX-License-Identifier: Apache-2.0
# Element-wise T.tile operations and reductions, one kernel per operation: each vector core
# takes half the rows (test_tile_ops_e2e.py). The operations are passed to the prim_func as
# values, as upstream's operator tests do.
import tilejit as tilelang
import tilejit.language as T

UNARY = {
    "exp": T.tile.exp, "ln": T.tile.ln, "sqrt": T.tile.sqrt, "rsqrt": T.tile.rsqrt,
    "reciprocal": T.tile.reciprocal, "abs": T.tile.abs, "relu": T.tile.relu,
    "sigmoid": T.tile.sigmoid, "silu": T.tile.silu, "sin": T.tile.sin, "cos": T.tile.cos,
    "bitwise_not": T.tile.bitwise_not,
}
BINARY = {
    "add": T.tile.add, "sub": T.tile.sub, "mul": T.tile.mul, "div": T.tile.div,
    "max": T.tile.max, "min": T.tile.min, "pow": T.tile.pow, "leaky_relu": T.tile.leaky_relu,
    "bitwise_and": T.tile.bitwise_and, "bitwise_or": T.tile.bitwise_or,
    "bitwise_xor": T.tile.bitwise_xor, "bitwise_lshift": T.tile.bitwise_lshift,
    "bitwise_rshift": T.tile.bitwise_rshift,
}
REDUCE = {"sum": T.reduce_sum, "max": T.reduce_max, "min": T.reduce_min}


@tilelang.jit(out_idx=[-1])
def unary(M, N, dtype, name):
    op = UNARY[name]
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.barrier_all()
                op(a, a)
                T.barrier_all()
                T.copy(a, B[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def binary(M, N, dtype, name, scalar=None):
    op = BINARY[name]
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            b = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.copy(B[vid * sub, 0], b)
                T.barrier_all()
                if scalar is None:
                    op(a, a, b)
                else:
                    op(a, a, scalar)
                T.barrier_all()
                T.copy(a, C[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def reduce_rows(M, N, dtype, name):
    op = REDUCE[name]
    sub = M // 2

    @T.prim_func
    def main(A: T.Buffer((M, N), dtype), B: T.Buffer((M,), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            r = T.alloc_ub((sub,), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.barrier_all()
                op(a, r, dim=-1)
                T.barrier_all()
                T.copy(r, B[vid * sub])

    return main


MATH = {"exp": T.exp, "log": T.log, "sqrt": T.sqrt, "rsqrt": T.rsqrt, "abs": T.abs}


@tilelang.jit(out_idx=[-1])
def parallel_math(M, N, dtype, name):
    f = MATH[name]
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.barrier_all()
                for i, j in T.Parallel(sub, N):
                    a[i, j] = f(a[i, j])
                T.barrier_all()
                T.copy(a, B[vid * sub, 0])

    return main


@tilelang.jit(out_idx=[-1])
def transpose(M, N, dtype):
    """B = A^T: vector core vid transposes rows [vid * M/2, (vid + 1) * M/2) of A into the
    same columns of B."""
    sub = M // 2

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((N, M), dtype)):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((sub, N), dtype)
            t = T.alloc_ub((N, sub), dtype)
            with T.Scope("V"):
                T.copy(A[vid * sub, 0], a)
                T.barrier_all()
                T.tile.transpose(t, a)
                T.barrier_all()
                T.copy(t, B[0, vid * sub])

    return main
