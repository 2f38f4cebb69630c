import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M // 2, N), dtype)
            # expected-error@+1:27: a buffer slice cannot have a step
            T.copy(A[0:64:2, :], a)
    return main
