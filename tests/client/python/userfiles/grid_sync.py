# SPDX-License-Identifier: Apache-2.0
# T.sync_all between blocks (test_sync_all_e2e.py): what one block writes to GM before the
# rendezvous, every block reads after it. Upstream's xattention merges per-core results so.
import tilejit as tilelang
import tilejit.language as T


@tilelang.jit(out_idx=[1], workspace_idx=[2])
def row_sums_everywhere(n, N, sync=True):
    """Block b sums row b of X into W[b]; after T.sync_all every block copies all of W into
    row b of Y, so Y[b, j] = sum(X[j])."""

    @T.prim_func
    def main(X: T.Tensor((n, N), "float"), Y: T.Tensor((n, n), "float"),
             W: T.Tensor((n,), "float")):
        with T.Kernel(n, is_npu=True) as (cid, vid):
            x = T.alloc_ub((1, N), "float")
            s = T.alloc_ub((1,), "float")
            w = T.alloc_ub((n,), "float")
            with T.Scope("V"):
                if vid == 0:
                    T.copy(X[cid, :], x)
                    T.barrier_all()
                    T.reduce_sum(x, s, dim=-1)
                    T.barrier_all()
                    T.copy(s, W[cid:cid + 1])
                    T.barrier_all()
                if sync:
                    T.sync_all()
                if vid == 0:
                    T.copy(W, w)
                    T.barrier_all()
                    T.copy(w, Y[cid, :])

    return main
