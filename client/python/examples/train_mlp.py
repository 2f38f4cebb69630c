# SPDX-License-Identifier: Apache-2.0
"""Train a two-layer MLP whose GEMMs run through tilejit (issue 13, acceptance 4).

The model y = relu(x @ W1) @ W2 on synthetic regression data, trained with SGD on the MSE
loss. Every matrix product of the forward and the backward pass is a tilejit kernel, called
from a torch.autograd.Function (fp16 operands, fp32 accumulation, on the simulated NPU
through the local runtime); beside it the same model, same initial weights and data, on
torch.matmul in fp32. The kernels are warmed up first with one BatchCompile; the script
prints the cold-compile and hit timings and both loss curves, and exits 1 if the final losses
differ by more than 1%.

    PYTHONPATH=client/python:build/python python3 client/python/examples/train_mlp.py \
        [--steps 20] [--batch 256] [--din 128] [--hidden 256] [--dout 64]

With no TILEJIT_SERVER and nothing on localhost:50051 the package starts the user's private
tilejitd (README, "The Python package").
"""
import argparse
import sys
import time

import torch

import tilejit as tilelang
import tilejit.language as T

PASS_CONFIGS = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
}
BLOCK = 64  # every dimension of the model is a multiple of it


@tilelang.jit(out_idx=[-1], pass_configs=PASS_CONFIGS)
def gemm(M, N, K, block_M=BLOCK, block_N=BLOCK, block_K=BLOCK):
    """C = A @ B: A (M, K) and B (K, N) float16, C (M, N) float32 (Developer mode)."""
    n_num = N // block_N

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float")):
        with T.Kernel((M // block_M) * n_num, is_npu=True) as (cid, _):
            bx = cid // n_num
            by = cid % n_num
            a = T.alloc_shared((block_M, block_K), "float16")
            b = T.alloc_shared((block_K, block_N), "float16")
            c = T.alloc_fragment((block_M, block_N), "float")
            for k in T.serial(T.ceildiv(K, block_K)):
                T.copy(A[bx * block_M, k * block_K], a)
                T.copy(B[k * block_K, by * block_N], b)
                T.gemm_v0(a, b, c, init=(k == 0))
            T.copy(c, C[bx * block_M, by * block_N])

    return main


def matmul(a, b):
    """a @ b through the tilejit kernel of its shape (a memo hit after the warm-up)."""
    (m, k), (_, n) = a.shape, b.shape
    return gemm(m, n, k)(a.half().contiguous(), b.half().contiguous())


class TileMatmul(torch.autograd.Function):
    """a @ b with a tilejit GEMM forward and two tilejit GEMMs backward."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return matmul(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (matmul(grad, b.t()) if need_a else None,
                matmul(a.t(), grad) if need_b else None)


def shapes(batch, din, hidden, dout):
    """The (M, N, K) of every GEMM of one training step."""
    return sorted({(batch, hidden, din), (batch, dout, hidden),     # forward
                   (batch, hidden, dout), (hidden, dout, batch),    # layer 2 backward
                   (din, hidden, batch)})                           # layer 1 backward


def train(steps, x, y, w1, w2, mm, lr):
    w1, w2 = w1.clone().requires_grad_(), w2.clone().requires_grad_()
    losses = []
    for _ in range(steps):
        h = torch.relu(mm(x, w1))
        loss = torch.mean((mm(h, w2) - y) ** 2)
        w1.grad = w2.grad = None
        loss.backward()
        with torch.no_grad():
            w1 -= lr * w1.grad
            w2 -= lr * w2.grad
        losses.append(loss.item())
    return losses


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--din", type=int, default=128)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--dout", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.05)
    args = p.parse_args(argv)
    dims = (args.batch, args.din, args.hidden, args.dout)
    if any(d % BLOCK for d in dims):
        p.error(f"every dimension must be a multiple of {BLOCK}")

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(args.batch, args.din, generator=gen)
    teacher = torch.randn(args.din, args.dout, generator=gen) / args.din ** 0.5
    y = torch.tanh(x @ teacher)
    w1 = torch.randn(args.din, args.hidden, generator=gen) / args.din ** 0.5
    w2 = torch.randn(args.hidden, args.dout, generator=gen) / args.hidden ** 0.5

    gemms = [(gemm, s) for s in shapes(*dims)]
    cold = _timed(lambda: tilelang.batch_compile(gemms))
    tilelang.cache.disable_cache()  # this process forgets them: the daemon answers again
    daemon_hit = _timed(lambda: tilelang.batch_compile(gemms))
    tilelang.cache.enable_cache()
    local_hit = _timed(lambda: tilelang.batch_compile(gemms))
    memo_hit = _timed(lambda: [gemm(*s) for _ in range(100) for _, s in gemms]) / 100 / len(gemms)
    print(f"warm-up, {len(gemms)} GEMM kernels in one BatchCompile: {cold * 1e3:.1f} ms cold "
          f"(a daemon that has never seen them); {daemon_hit * 1e3:.1f} ms from the daemon's "
          f"cache (binaries fetched again); {local_hit * 1e3:.1f} ms with the binaries in the "
          "local cache")
    print(f"hit: calling a factory again with the same arguments: {memo_hit * 1e6:.1f} us")

    t0 = time.perf_counter()
    ours = train(args.steps, x, y, w1, w2, TileMatmul.apply, args.lr)
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = train(args.steps, x, y, w1, w2, torch.matmul, args.lr)
    t_ref = time.perf_counter() - t0
    launches = 5 * args.steps  # two forward GEMMs; backward: two for W2 and h, one for W1
    print(f"training {args.steps} steps: tilejit {t_ours:.2f} s ({launches} kernel launches on "
          f"the simulated NPU), torch.matmul {t_ref:.3f} s")
    print("step  loss(tilejit)  loss(torch.matmul)")
    for i in range(args.steps):
        if i < 3 or i == args.steps - 1 or i % max(1, args.steps // 5) == 0:
            print(f"{i:4d}  {ours[i]:13.6f}  {ref[i]:18.6f}")
    rel = abs(ours[-1] - ref[-1]) / abs(ref[-1])
    verdict = "within" if rel <= 0.01 else "NOT within"
    print(f"final loss: tilejit {ours[-1]:.6f}, torch.matmul {ref[-1]:.6f}: "
          f"{rel * 100:.3f}% apart ({verdict} 1%)")
    return 0 if rel <= 0.01 and ours[-1] < ours[0] else 1


if __name__ == "__main__":
    sys.exit(main())
