# args: 64.0
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M, N=64, dtype="float"):
    @T.prim_func
    # expected-error@+1:26: non-constant or non-positive shape: dimension 0 of 'A' is 64.0 (float)
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            T.copy(A, a)
    return main
