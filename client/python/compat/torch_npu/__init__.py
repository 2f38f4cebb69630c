# SPDX-License-Identifier: Apache-2.0
"""`import torch_npu` for scripts written for Ascend: installs tilejit's simulated npu.

Importing this module calls tilejit.npu.install(), which makes `tensor.npu()`,
`device="npu"` and `torch.npu.*` work on a CPU-only torch 1.13. Only the device is emulated:
torch_npu's own operators (torch_npu.npu_rotary_mul, npu_fusion_attention, ...) are not, and
using one raises an AttributeError that names it. See docs/python_npu.md.
"""

import os
import sys

try:
    import tilejit.npu as _tilejit_npu
except ImportError:
    # compat/ sits inside client/python, which holds the tilejit package.
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    import tilejit.npu as _tilejit_npu

npu = _tilejit_npu.install()

__version__ = "0.0+tilejit.simulated"


def __getattr__(name):
    raise AttributeError(
        f"torch_npu.{name} is not supported on the simulated npu (tilejit): only the npu "
        "device is emulated, not torch_npu's operators; see docs/python_npu.md"
    )
