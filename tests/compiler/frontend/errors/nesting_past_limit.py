import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def kernel(M=64, N=64, dtype="float"):
    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(2, is_npu=True) as (cid, vid):
            a = T.alloc_ub((M, N), dtype)
            if cid > 0:
                if cid > 1:
                    if cid > 2:
                        if cid > 3:
                            if cid > 4:
                                if cid > 5:
                                    if cid > 6:
                                        if cid > 7:
                                            if cid > 8:
                                                if cid > 9:
                                                    if cid > 10:
                                                        if cid > 11:
                                                            if cid > 12:
                                                                if cid > 13:
                                                                    if cid > 14:
                                                                        if cid > 15:
                                                                            if cid > 16:
                                                                                if cid > 17:
                                                                                    if cid > 18:
                                                                                        if cid > 19:
                                                                                            if cid > 20:
                                                                                                if cid > 21:
                                                                                                    if cid > 22:
                                                                                                        if cid > 23:
                                                                                                            if cid > 24:
                                                                                                                if cid > 25:
                                                                                                                    if cid > 26:
                                                                                                                        if cid > 27:
                                                                                                                            if cid > 28:
                                                                                                                                if cid > 29:
                                                                                                                                    if cid > 30:
                                                                                                                                        if cid > 31:
                                                                                                                                            if cid > 32:
                                                                                                                                                if cid > 33:
                                                                                                                                                    if cid > 34:
                                                                                                                                                        if cid > 35:
                                                                                                                                                            if cid > 36:
                                                                                                                                                                if cid > 37:
                                                                                                                                                                    if cid > 38:
                                                                                                                                                                        if cid > 39:
                                                                                                                                                                            if cid > 40:
                                                                                                                                                                                if cid > 41:
                                                                                                                                                                                    if cid > 42:
                                                                                                                                                                                        if cid > 43:
                                                                                                                                                                                            if cid > 44:
                                                                                                                                                                                                if cid > 45:
                                                                                                                                                                                                    if cid > 46:
                                                                                                                                                                                                        if cid > 47:
                                                                                                                                                                                                            if cid > 48:
                                                                                                                                                                                                                if cid > 49:
                                                                                                                                                                                                                    if cid > 50:
                                                                                                                                                                                                                        if cid > 51:
                                                                                                                                                                                                                            if cid > 52:
                                                                                                                                                                                                                                if cid > 53:
                                                                                                                                                                                                                                    if cid > 54:
                                                                                                                                                                                                                                        if cid > 55:
                                                                                                                                                                                                                                            if cid > 56:
                                                                                                                                                                                                                                                if cid > 57:
                                                                                                                                                                                                                                                    if cid > 58:
                                                                                                                                                                                                                                                        if cid > 59:
                                                                                                                                                                                                                                                            if cid > 60:
                                                                                                                                                                                                                                                                if cid > 61:
                                                                                                                                                                                                                                                                    if cid > 62:
                                                                                                                                                                                                                                                                        # expected-error@+1:265: statements nested too deeply (limit 64)
                                                                                                                                                                                                                                                                        if cid > 63:
                                                                                                                                                                                                                                                                            if cid > 64:
                                                                                                                                                                                                                                                                                if cid > 65:
                                                                                                                                                                                                                                                                                    T.copy(A, a)
    return main
