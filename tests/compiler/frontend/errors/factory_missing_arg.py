import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
# expected-error@+1:1: kernel() missing required argument 'M'
def kernel(M, N):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float"), B: T.Tensor((M, N), "float")):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), "float")
            T.copy(A, a)
    return main
