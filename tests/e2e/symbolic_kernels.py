# SPDX-License-Identifier: Apache-2.0
"""The T.symbolic kernels of tests/testdata/symbolic with their shapes and NumPy references,
shared by the offline test (symbolic_test.py) and the daemon's (service/symbolic_test.py).

Each Spec names a factory and its untuned arguments; `inputs(rng, size)` makes the inputs of
one launch (size is the value of the kernel's first symbol; a second symbol takes a value
from its own list so that both vary), and `reference(*inputs)` the expected output."""
import dataclasses
import os
from typing import Callable

import numpy as np

DATA = os.environ.get("TILEJIT_SYMBOLIC_DIR", "tests/testdata/symbolic")

# The values of the first symbol each kernel runs at (issue 15, acceptance 1).
SIZES = (1, 7, 64, 200, 1000, 4096)
# The other symbol of the two-symbol kernels (gemm_mn's N, batched's Bt), paired with SIZES.
SECOND = (200, 33, 64, 7, 48, 16)


@dataclasses.dataclass
class Spec:
    name: str
    file: str
    entry: str
    args: tuple
    inputs: Callable
    reference: Callable
    atol: float
    rtol: float

    @property
    def path(self):
        return os.path.join(DATA, self.file)


def _gemm(a, b):
    return (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)


def _half(rng, *shape):
    return rng.uniform(-1, 1, shape).astype(np.float16)


SPECS = [
    Spec("rowwise", "rowwise_scale.py", "scale_rows", (32, 64),
         lambda rng, m: [rng.standard_normal((m, 32)).astype(np.float32)],
         lambda a: a * 2, 0.0, 0.0),
    Spec("batched", "batched_scale.py", "scale_batched", (32, 64),
         lambda rng, m: [rng.standard_normal((SECOND[SIZES.index(m)], m, 32)).astype(np.float32)],
         lambda a: a * 3, 0.0, 0.0),
    Spec("gemm_m", "gemm_developer_m.py", "matmul", (128, 128, 128, 128, 64),
         lambda rng, m: [_half(rng, m, 128), _half(rng, 128, 128)], _gemm, 0.05, 0.01),
    Spec("gemm_mn", "gemm_developer_mn.py", "matmul", (128, 128, 128, 64),
         lambda rng, m: [_half(rng, m, 128), _half(rng, 128, SECOND[SIZES.index(m)])], _gemm,
         0.05, 0.01),
]


def cli_args(spec):
    out = [spec.path, "--entry", spec.entry]
    for a in spec.args:
        out += ["--arg", str(a)]
    return out


def save_inputs(spec, size, folder, seed=0):
    """Writes the inputs of one launch as in0.npy, in1.npy, ...; returns (paths, arrays)."""
    arrays = spec.inputs(np.random.default_rng(seed + size), size)
    paths = []
    for i, a in enumerate(arrays):
        p = os.path.join(folder, f"in{i}.npy")
        np.save(p, a)
        paths.append(p)
    return paths, arrays
