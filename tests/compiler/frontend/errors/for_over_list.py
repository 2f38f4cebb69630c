import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            # expected-error@+1:22: a kernel loop must iterate over T.serial, T.Pipelined, T.Parallel, T.Persistent or range
            for i in [1, 2]:
                T.copy(A, a)
    return main
