# SPDX-License-Identifier: Apache-2.0
"""tilelang.utils.target: which Ascend platform a kernel is for.

determine_platform follows TileLang-Ascend: an explicit "A2", "A3" or "A5" is itself;
"auto" is $TL_PLATFORM, else the name of torch.npu's device (910B -> A2, 910_93 / 910C -> A3,
950 / 910_95 -> A5, another 910 -> A2), else "A3". tilejit's simulated device is a 910B2
(A2) whatever the platform; the target of a compile is its `target` setting.
"""
import os
import sys

PLATFORMS = ("A2", "A3", "A5")


def _from_device_name(name):
    name = name.upper()
    if "950" in name or "910_95" in name:
        return "A5"
    if "910_93" in name or "910C" in name:
        return "A3"
    if "910" in name:
        return "A2"
    return None


def determine_platform(platform="auto"):
    if platform in PLATFORMS:
        return platform
    if platform not in (None, "auto"):
        raise ValueError(f"unknown platform {platform!r} (one of {', '.join(PLATFORMS)} or "
                         "'auto')")
    env = os.environ.get("TL_PLATFORM", "")
    if env in PLATFORMS:
        return env
    torch = sys.modules.get("torch")
    npu = getattr(torch, "npu", None) if torch is not None else None
    try:
        if npu is not None and npu.is_available():
            found = _from_device_name(str(npu.get_device_properties(0).name))
            if found:
                return found
    except Exception:  # a device query that fails means "unknown": the default applies
        pass
    return "A3"
