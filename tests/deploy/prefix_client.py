# SPDX-License-Identifier: Apache-2.0
"""The installed Python package against a daemon, run by install_test.py with nothing but the
prefix's Python folder on PYTHONPATH (python3 -s -P: no user site, not this file's folder).

    prefix_client.py PREFIX KERNEL_FILE          $TILEJIT_SERVER: the daemon, $TILEJIT_LAUNCH

Checks that the package, its wire modules, tilejit_paths and the runtime library it loads all
come from PREFIX; that the daemon's health is SERVING (grpc.health.v1 through the package's
wire modules); then compiles the Expert-mode vec_add of KERNEL_FILE (its import lines changed
to tilejit's) on the daemon, launches it (local: the prefix's libtilejit_runtime.so in this
process; remote: the daemon's simulator) and compares with NumPy.
"""
import importlib.util
import os
import sys

import grpc
import numpy as np

import tilejit
import tilejit_paths
from tilejit import _runtime
from tilejit.health.v1 import health_pb2, health_pb2_grpc
from tilejit.v1 import tilejit_pb2

M, N, BLOCK_M, BLOCK_N = 256, 512, 64, 128


def main(prefix, kernel_file):
    root = os.path.realpath(prefix) + os.sep
    for path in (tilejit.__file__, tilejit_paths.__file__, tilejit_pb2.__file__,
                 health_pb2.__file__, _runtime.library_path(), tilejit_paths.TILEJITD):
        assert os.path.realpath(path).startswith(root), f"{path} is not under {prefix}"

    address = os.environ["TILEJIT_SERVER"]
    with grpc.insecure_channel(address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(),
                                                          timeout=30)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING, reply

    with open(kernel_file) as f:
        text = f.read()
    text = text.replace("import tilelang.language as T", "import tilejit.language as T")
    text = text.replace("import tilelang\n", "import tilejit as tilelang\n")
    path = os.path.join(os.getcwd(), "vec_add_kernel.py")
    with open(path, "w") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location("vec_add_kernel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    tilejit.connect(address)
    kernel = module.vec_add(M, N, BLOCK_M, BLOCK_N)
    rng = np.random.default_rng(5)
    a = rng.standard_normal((M, N)).astype(np.float32)
    b = rng.standard_normal((M, N)).astype(np.float32)
    c = kernel(a, b)
    np.testing.assert_allclose(c, a + b, rtol=1e-6, atol=1e-6)
    mode = os.environ.get("TILEJIT_LAUNCH", "local")
    assert kernel.launch_mode == mode and kernel.last_launch.ok, kernel.last_launch
    print(f"prefix_client: {mode} launch matches NumPy ({kernel.last_launch.cycles} cycles)")


if __name__ == "__main__":
    main(*sys.argv[1:])
