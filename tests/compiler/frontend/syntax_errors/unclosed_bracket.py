import tilelang.language as T


def ok():
    return 1
# expected-error@+1:7: '(' was never closed
T.copy(A[0], B[0]
