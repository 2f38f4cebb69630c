# SPDX-License-Identifier: Apache-2.0
"""tilejit's simulated NPU as torch's `npu` device, for torch 1.13 (CPU build).

    import tilejit.npu
    tilejit.npu.install()          # or: import torch_npu  (client/python/compat on the path)
    a = torch.randn(64, 64).half().npu()
    b = torch.softmax(a, -1)       # float16 on the npu, computed in float32 where CPU lacks it
    torch.npu.synchronize()

install() is opt-in and idempotent. It replaces torch.device (so "npu" parses), wraps torch's
factories and Tensor.to / Tensor.new_* / nn.Module.to / nn.Module.cpu, adds Tensor.npu,
Tensor.is_npu, nn.Module.npu, the torch.npu namespace, torch.set_default_device /
torch.get_default_device where missing, and torch.uint16/uint32/uint64 where missing (aliases
of int16/int32/int64). Calls that do not involve the npu behave as before. Mechanism, limits
and the unsupported list: docs/python_npu.md.
"""

import torch

from ._device import NPU0, NpuDevice
from ._tensor import NpuTensor, plain, to_npu

__all__ = ["install", "is_installed", "NpuTensor", "NpuDevice", "NPU0", "plain", "to_npu"]

_installed = []


def install():
    """Makes the simulated npu available as torch's `npu` device (idempotent)."""
    if _installed:
        return torch.npu
    from . import _api, _device, _patch

    _device.install_device_type()
    _patch.install_patches()
    _api.install_namespace()
    _installed.append(True)
    return torch.npu


def is_installed():
    return bool(_installed)
