"""NumPy references for the Expert-mode test kernels that the shared
reference.py does not cover (inputs in call order; float32 outputs)."""
import numpy as np


def _f(x):
    return np.asarray(x, dtype=np.float32)


def gemm_nn(A, B):
    return [_f(A) @ _f(B)]


def gemm_nt(A, B):
    return [_f(A) @ _f(B).T]


def gemm_tn(A, B):
    return [_f(A).T @ _f(B)]


def gemm_tt(A, B):
    return [_f(A).T @ _f(B).T]
