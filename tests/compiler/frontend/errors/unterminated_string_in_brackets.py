import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            T.copy(A, a)
            T.copy(a, B)
    return main


# Reported at the quote, as CPython does, not as the bracket that never closes.
# expected-error@+1:11: unterminated string literal
unused = ("abc
later = 1
