import tilelang
import tilelang.language as T


# expected-error@+1:12: 
SIZES = {i for i in range(4)}


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    n = len(SIZES)
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            T.copy(A, a)
    return main
