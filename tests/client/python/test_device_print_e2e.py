# SPDX-License-Identifier: Apache-2.0
"""Device printing (T.printf, T.dump_tensor): the text comes back with the launch, local and
through the daemon, in program order per core with block and core ids, and the call writes
it to stdout. Semantics: TileLang-Ascend's examples/print (README and elementwise_print.py)
and AscendC's printf / DumpTensor; tilejit's choices are in docs/isa.md, "Device printing"."""
import sys

import numpy as np
import pytest
import tilejit

from conftest import HERE

sys.path.insert(0, HERE + "/userfiles")
import device_print  # noqa: E402

pytestmark = pytest.mark.timeout(300)


def _row(values):
    return " ".join(f"{v:g}" for v in values)


def _expected(x):
    """The text of add_one_and_print on x ([4, 16] float16)."""
    lines = []
    for core, vid in (("aiv0", 0), ("aiv1", 1)):
        p = f"[block 0 {core}] "
        rows = x[2 * vid:2 * vid + 2]
        lines += [p + "X before the launch:",
                  p + "dump desc=111 gm float16[64] at ADDR:"]
        lines += [p + "  " + _row(r) for r in x]
        lines += [p + f"core cid=0 vid={vid} scale=0.50 100%",
                  p + "dump desc=222 ub float16[32] at ADDR:"]
        lines += [p + "  " + _row(r) for r in rows]
        lines += [p + "dump desc=333 ub float16[4] at ADDR:",
                  p + "  " + _row(rows[0, :4] + 1)]
    return "\n".join(lines) + "\n"


def _addresses_masked(text):
    import re
    return re.sub(r" at \d+:", " at ADDR:", text)


@pytest.mark.parametrize("launch", ["local", "remote"])
def test_printf_and_dumps_come_back_in_program_order_per_core(tilejitd, monkeypatch, capsys,
                                                             launch):
    monkeypatch.setenv("TILEJIT_CHECK", "1")
    monkeypatch.setenv("TILEJIT_LAUNCH", launch)
    x = (np.arange(64).reshape(4, 16) % 7 - 3).astype(np.float16)
    tilejit.cache.disable_cache()
    try:
        kernel = device_print.add_one_and_print()
    finally:
        tilejit.cache.enable_cache()
    np.testing.assert_array_equal(kernel(x), x + 1)
    want = _expected(x)
    assert _addresses_masked(kernel.last_launch.device_output) == want
    assert _addresses_masked(capsys.readouterr().out) == want


def test_an_l1_dump_shows_the_fractal_order(tilejitd, capsys):
    """L1 holds a [16, 16] float16 tile as one 16 x 16 fractal of 16-element rows (zN: row r
    of the fractal is row r of the tile), so its first 16 elements are row 0."""
    x = np.arange(256, dtype=np.float16).reshape(16, 16)
    kernel = device_print.dump_l1()
    np.testing.assert_array_equal(kernel(x), x)
    out = kernel.last_launch.device_output
    assert out.startswith("[block 0 aic] dump desc=7 l1 float16[16] at 0:\n")
    assert out.endswith("[block 0 aic]   " + _row(x[0]) + "\n")


def test_bad_print_calls_are_located_errors(tilejitd):
    with pytest.raises(tilejit.CompileError, match=r"device_print.py:\d+:\d+: error: T.printf got "
                       r"2 argument\(s\) for the 1 conversion\(s\)"):
        device_print.printf_with_too_many_values()
    with pytest.raises(tilejit.CompileError, match=r"dump_size 16 must be in 1..8"):
        device_print.dump_past_the_buffer()
