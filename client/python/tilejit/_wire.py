# SPDX-License-Identifier: Apache-2.0
"""The generated wire modules (tilejit.v1.tilejit_pb2 and the health service), and the
CompileRequest of an encoded prim_func.

The modules are generated at build time into the build tree's python/tilejit folder, which
tilejit/__init__.py adds to the package's __path__ (client/python/CMakeLists.txt explains
why). They are imported on first use, so `import tilejit` costs no gRPC import.
"""
import threading

_lock = threading.Lock()
_mods = None


def modules():
    """(tilejit_pb2, health_pb2): the generated messages."""
    global _mods
    if _mods is None:
        with _lock:
            if _mods is None:
                try:
                    from .v1 import tilejit_pb2
                    from .health.v1 import health_pb2
                except ImportError as e:
                    raise ImportError(
                        "tilejit's generated wire modules (tilejit.v1.tilejit_pb2) are missing: "
                        "put the build tree's python folder on PYTHONPATH beside client/python "
                        "(`bash deploy/run.sh` prints the line) after building the "
                        f"tilejit_python_wire target ({e})") from None
                _mods = (tilejit_pb2, health_pb2)
    return _mods


def _typed(pb, e, out):
    """Fills a TypedValue from a constant encoding."""
    tag = e[0]
    if tag == "n":
        out.none = True
    elif tag == "b":
        out.bool_value = e[1]
    elif tag == "i":
        out.int_value = e[1]
    elif tag == "f":
        out.float_value = float.fromhex(e[1])
    elif tag == "s":
        out.string_value = e[1]
    else:
        target = out.list_value if tag == "l" else out.tuple_value
        target.SetInParent()
        for x in e[1]:
            _typed(pb, x, target.values.add())


def _client_value(pb, e, out):
    tag = e[0]
    if tag in ("n", "b", "i", "f", "s"):
        _typed(pb, e, out.constant)
    elif tag == "m":
        out.module = e[1]
    elif tag == "B":
        out.builtin = e[1]
    elif tag == "F":
        out.function = e[1]
    elif tag == "S":
        out.symbol = e[1]
    elif tag == "E":
        out.symbol_expr.op = e[1]
        for x in e[2]:
            _client_value(pb, x, out.symbol_expr.operands.add())
    elif tag in ("l", "t"):
        target = out.list_value if tag == "l" else out.tuple_value
        target.SetInParent()
        for x in e[1]:
            _client_value(pb, x, target.values.add())
    elif tag == "d":
        target = out.dict_value
        target.SetInParent()
        for k, v in e[1]:
            _client_value(pb, k, target.keys.add())
            _client_value(pb, v, target.values.add())
    else:
        raise AssertionError(f"unknown encoding {tag!r}")


_KINDS = {"PLAIN": 0, "MACRO": 1, "PRIM_FUNC": 2}


def compile_request(encoded, settings, include_ir=False, print_after=()):
    """The CompileRequest (format PRIM_FUNC) of an Encoded prim_func with Settings."""
    pb, _ = modules()
    req = pb.CompileRequest(format=pb.PRIM_FUNC, include_source_map=True,
                            include_ir=include_ir)
    for snap in encoded.files:
        req.files.add(name=snap.name, text=snap.text)
    for (file, line, column, qualname, kind, closure, defaults, kwdefaults) in encoded.table:
        f = req.functions.add(file=file, line=line, column=column, qualname=qualname,
                              kind=_KINDS[kind])
        for name, e in closure:
            _client_value(pb, e, f.closure[name])
        for e in defaults:
            _client_value(pb, e, f.defaults.add())
        for name, e in kwdefaults:
            _client_value(pb, e, f.kwdefaults[name])
    if settings.out_idx is not None:
        req.out_idx.extend(settings.out_idx)
        req.out_idx_set = True
    if settings.workspace_idx is not None:
        req.workspace_idx.extend(settings.workspace_idx)
        req.workspace_idx_set = True
    for key, e in settings.pass_configs:
        _typed(pb, e, req.typed_pass_configs[key])
    if settings.target:
        req.target = settings.target
    req.print_after.extend(print_after)
    return req


def clone(request, include_ir=False, print_after=(), include_binary=False):
    """A copy of a CompileRequest asking for the IR text, the IR after passes or the binary."""
    pb, _ = modules()
    out = pb.CompileRequest()
    out.CopyFrom(request)
    out.include_ir = include_ir
    out.include_binary = include_binary
    del out.print_after[:]
    out.print_after.extend(print_after)
    return out
