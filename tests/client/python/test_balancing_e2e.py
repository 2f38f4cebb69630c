# SPDX-License-Identifier: Apache-2.0
"""Client-side balancing in the Python package (issue 17): an address list spreads compiles
over every daemon in it; a list it cannot resolve is refused naming the entry, as in the C++
client (client.h, ChannelTargetFor).
"""
import os
import sys

import numpy as np
import pytest

from conftest import HERE, Daemon

sys.path.insert(0, os.path.join(HERE, "userfiles"))

import tilejit as tilelang  # noqa: E402
from tilejit import _client  # noqa: E402
import closures  # noqa: E402

pytestmark = pytest.mark.timeout(180)


def test_channel_target_reads_addresses_as_the_cpp_client_does():
    assert _client.channel_target("localhost:50051") == ("localhost:50051", False)
    assert _client.channel_target("unix:/run/t.sock") == ("unix:/run/t.sock", False)
    assert _client.channel_target("dns:///tj.ns.svc:50051") == ("dns:///tj.ns.svc:50051", True)
    assert _client.channel_target("10.0.0.1:1,10.0.0.2:2") == ("ipv4:10.0.0.1:1,10.0.0.2:2", True)
    assert _client.channel_target("[::1]:1,[::2]:2") == ("ipv6:[::1]:1,[::2]:2", True)
    for bad in ("", "a:1,b:2", "10.0.0.1:1,[::1]:2", "10.0.0.1:1,", "10.0.0.1:x,10.0.0.2:1"):
        with pytest.raises(ValueError):
            _client.channel_target(bad)
    with pytest.raises(ValueError, match="'host-b:2'.*dns:///"):
        _client.channel_target("10.0.0.1:1,host-b:2")


def test_an_address_list_spreads_compiles_over_every_daemon(tmp_path):
    for n in "ab":
        (tmp_path / n).mkdir()
    nodes = [Daemon(str(tmp_path / n), tcp=True) for n in "ab"]
    try:
        tilelang.connect(",".join(d.address for d in nodes))
        a = np.random.default_rng(0).standard_normal((64, 128)).astype(np.float32)
        for m in (64, 128, 192, 256, 320, 384, 448, 512):
            x = np.resize(a, (m, 128)).astype(np.float32)
            kernel = tilelang.compile(closures.plain_factory(m, 128), out_idx=[1])
            np.testing.assert_allclose(kernel(x), np.exp(x), rtol=1e-5, atol=1e-6)
        for d in nodes:
            assert "tier=compiled" in d.log(), f"no compile reached {d.address}"
    finally:
        for d in nodes:
            d.stop()
