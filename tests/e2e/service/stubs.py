# SPDX-License-Identifier: Apache-2.0
"""Python messages and call helpers for tilejit.v1 and grpc.health.v1, made at test time.

Debian ships python3-grpcio but no grpc_tools, so the messages are generated
with protoc --python_out (PROTOC; TILEJIT_PROTO_DIR and HEALTH_PROTO_DIR name
the .proto roots) into a temporary folder, and each RPC is a plain
channel.unary_unary call with the generated serializers.
"""
import importlib
import importlib.util
import os
import subprocess
import sys
import tempfile

PROTOC = os.environ.get("PROTOC", "protoc")
PROTO_DIR = os.environ.get("TILEJIT_PROTO_DIR", "proto")
HEALTH_DIR = os.environ.get("HEALTH_PROTO_DIR", "/usr/share/grpc-proto")

_out = tempfile.mkdtemp(prefix="tilejit-pb2-")
subprocess.run([PROTOC, f"-I{PROTO_DIR}", f"-I{HEALTH_DIR}", "-I/usr/include",
                f"--python_out={_out}", "tilejit/v1/tilejit.proto",
                "grpc/health/v1/health.proto"], check=True)
for pkg in ("tilejit", "tilejit/v1", "grpc", "grpc/health", "grpc/health/v1"):
    open(os.path.join(_out, pkg, "__init__.py"), "a").close()
# The generated "grpc" package would shadow grpcio: load it under its own path only.
sys.path.insert(0, _out)
tj = importlib.import_module("tilejit.v1.tilejit_pb2")
sys.path.remove(_out)
_health_spec = importlib.util.spec_from_file_location(
    "tilejit_health_pb2", os.path.join(_out, "grpc/health/v1/health_pb2.py"))
health = importlib.util.module_from_spec(_health_spec)
_health_spec.loader.exec_module(health)

_METHODS = {
    "Compile": (tj.CompileRequest, tj.CompileResponse),
    "GetKernel": (tj.GetKernelRequest, tj.GetKernelResponse),
    "Launch": (tj.LaunchRequest, tj.LaunchResponse),
    "Stats": (tj.StatsRequest, tj.StatsResponse),
    "List": (tj.ListRequest, tj.ListResponse),
    "BatchCompile": (tj.BatchCompileRequest, tj.BatchCompileResponse),
    "Evict": (tj.EvictRequest, tj.EvictResponse),
    "Pin": (tj.PinRequest, tj.PinResponse),
    "Unpin": (tj.PinRequest, tj.PinResponse),
    "Export": (tj.ExportRequest, tj.ExportResponse),
    "Import": (tj.ImportRequest, tj.ImportResponse),
}


class Stub:
    """tilejit.v1.TileJit over a grpc.Channel: stub.Compile(request, timeout=...)."""

    def __init__(self, channel):
        for name, (req, resp) in _METHODS.items():
            setattr(self, name, channel.unary_unary(
                f"/tilejit.v1.TileJit/{name}", request_serializer=req.SerializeToString,
                response_deserializer=resp.FromString))
        self.HealthCheck = channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=health.HealthCheckRequest.SerializeToString,
            response_deserializer=health.HealthCheckResponse.FromString)


def typed(value):
    """A Python int/float/bool/str as a tilejit.v1.TypedValue."""
    t = tj.TypedValue()
    if isinstance(value, bool):
        t.bool_value = value
    elif isinstance(value, int):
        t.int_value = value
    elif isinstance(value, float):
        t.float_value = value
    else:
        t.string_value = str(value)
    return t
