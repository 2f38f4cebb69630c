# SPDX-License-Identifier: Apache-2.0
"""tilelang.jit, tilelang.compile and the per-process kernel memo.

    @tilelang.jit(out_idx=[-1], pass_configs={...})
    def matmul(M, N, K, ...):       # a factory: plain Python, run on every call
        @T.prim_func
        def main(A: T.Tensor((M, K), dtype), ...): ...
        return main

    kernel = matmul(1024, 1024, 1024)       # runs the factory, compiles (or memo hit)
    kernel = tilelang.compile(factory(...), out_idx=[-1])

The factory runs in CPython on every call, as in TileLang; what is memoised is the *request*:
the encoded prim_func (its files, the function table with every closure value and global it
reads) plus the settings. So a changed closure value or global is a new request and never a
stale kernel, while an unchanged one costs the factory run and the encoding walk (the code
analyses and file snapshots behind it are cached per code object).
"""
import re
import threading
import warnings

from . import _closure, _localcache, _wire
from ._kernel import Kernel
from ._passconfig import key_string
from ._prim import PrimFunc
from .errors import CompileError, Diagnostic

_SEVERITY = {0: "error", 1: "note", 2: "warning", 3: "error"}
_NO_TARGET = (None, "", "auto", "ascendc", "pto")  # TileLang's codegen choices: our default
_UNSENT = re.compile(r"name '([A-Za-z_][A-Za-z0-9_]*)' is not defined \(the client sent no value")


class CompileWarning(UserWarning):
    """A warning of the daemon about a kernel (located in the user's file)."""


class Settings:
    """The decorator's (or compile()'s) settings, normalised; `key` is hashable."""
    __slots__ = ("out_idx", "workspace_idx", "pass_configs", "target", "key")

    def __init__(self, out_idx=None, workspace_idx=None, pass_configs=None, target=None):
        self.out_idx = _indices(out_idx, "out_idx")
        self.workspace_idx = _indices(workspace_idx, "workspace_idx")
        configs = []
        for k, v in (pass_configs or {}).items():
            name = key_string(k)
            configs.append((name, _closure.encode_constant(v, name)))
        self.pass_configs = tuple(sorted(configs))
        if target is not None and not isinstance(target, str):
            raise TypeError(f"target must be a string, not {type(target).__name__}")
        self.target = "" if target in _NO_TARGET else target
        self.key = (self.out_idx, self.workspace_idx, self.pass_configs, self.target)


def _indices(v, name):
    if v is None:
        return None
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,)
    if isinstance(v, (list, tuple)) and all(isinstance(i, int) and not isinstance(i, bool)
                                            for i in v):
        return tuple(int(i) for i in v)
    raise TypeError(f"{name} must be an int or a list of ints, not {v!r}")


_memo = {}
_memo_lock = threading.Lock()
_memo_enabled = [True]


def _diagnostics(response):
    def convert(d):
        return Diagnostic(_SEVERITY.get(d.severity, "error"), d.file, d.line, d.column,
                          d.message, d.rendered, [convert(n) for n in d.notes])
    return [convert(d) for d in response.diagnostics]


def _explain_unsent(diags, unsupported):
    """Diagnostics about names the client left out because they hold TileLang objects tilejit
    does not provide (Encoded.unsupported) say what those names were."""
    out = []
    for d in diags:
        m = _UNSENT.search(d.message)
        qualname = unsupported.get(m.group(1)) if m else None
        if qualname:
            note = f"; '{m.group(1)}' is {qualname}, which tilejit does not provide"
            first, _, rest = d.rendered.partition("\n")
            d = Diagnostic(d.severity, d.file, d.line, d.column, d.message + note,
                           first + note + ("\n" + rest if rest else ""), d.notes)
        out.append(d)
    return out


def _kernel_of(response, request, prim, encoded):
    diags = _diagnostics(response)
    if not response.ok:
        if encoded.unsupported:
            diags = _explain_unsent(diags, encoded.unsupported)
        raise CompileError(response.error or "compile failed", diags)
    for d in diags:
        if d.severity == "warning":
            warnings.warn(str(d), CompileWarning, stacklevel=4)
    kernel = Kernel(response, request, prim, [(f.name, f.text) for f in encoded.files])
    return kernel


def _prepare(prim, settings):
    if not isinstance(prim, PrimFunc):
        raise TypeError(f"expected a @T.prim_func, got {type(prim).__name__}")
    encoded = _closure.encode(prim)
    return encoded, (encoded.key, settings.key)


def compile_prim(prim, settings):
    """The Kernel of a PrimFunc under Settings: the memo's, or compiled by the daemon."""
    encoded, key = _prepare(prim, settings)
    if _memo_enabled[0]:
        kernel = _memo.get(key)
        if kernel is not None:
            return kernel
    from . import _client
    request = _wire.compile_request(encoded, settings)
    kernel = _kernel_of(_client.call("Compile", request), request, prim, encoded)
    return _remember(key, kernel)


def _remember(key, kernel):
    if kernel.launch_mode != "remote":
        kernel.module()  # fetch (or find locally) and load the binary now, not at first call
    if _memo_enabled[0]:
        with _memo_lock:
            kernel = _memo.setdefault(key, kernel)
    return kernel


class JitFunction:
    """A @tilelang.jit factory: calling it runs the factory and returns its Kernel."""

    def __init__(self, func, settings):
        if isinstance(func, PrimFunc):
            raise TypeError("@tilelang.jit applies to a factory that returns a @T.prim_func, "
                            "not to a prim_func itself (use tilelang.compile(prim_func))")
        if not callable(func):
            raise TypeError(f"@tilelang.jit needs a function, not {type(func).__name__}")
        self.func, self.settings = func, settings
        self.__wrapped__ = func
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(self, attr, getattr(func, attr, None))

    def prim_func(self, *args, **kwargs):
        prim = self.func(*args, **kwargs)
        if not isinstance(prim, PrimFunc):
            raise TypeError(f"@tilelang.jit factory '{self.__qualname__}' returned "
                            f"{type(prim).__name__}; it must return a @T.prim_func")
        return prim

    def __call__(self, *args, **kwargs):
        return compile_prim(self.prim_func(*args, **kwargs), self.settings)

    def __repr__(self):
        return f"<tilelang.jit {self.__qualname__}>"


_JIT_OPTIONS = ("target_host", "platform", "execution_backend", "verbose", "debug_root_path")


def jit(func=None, *, out_idx=None, workspace_idx=None, target="auto", pass_configs=None,
        **options):
    """@tilelang.jit, bare or with settings (out_idx, workspace_idx, pass_configs, target;
    TileLang's target_host, platform, execution_backend, verbose and debug_root_path are
    accepted and have no effect)."""
    unknown = sorted(set(options) - set(_JIT_OPTIONS))
    if unknown:
        raise TypeError(f"tilelang.jit() got unexpected keyword argument(s) {unknown}")
    settings = Settings(out_idx, workspace_idx, pass_configs, target)
    if func is None:
        return lambda f: JitFunction(f, settings)
    return JitFunction(func, settings)


def compile(func, out_idx=None, target="auto", pass_configs=None, workspace_idx=None,
            **options):  # noqa: A001 (TileLang's name)
    """tilelang.compile(prim_func, out_idx=..., pass_configs=..., target=...): the Kernel of a
    prim_func made by calling a plain factory."""
    unknown = sorted(set(options) - set(_JIT_OPTIONS))
    if unknown:
        raise TypeError(f"tilelang.compile() got unexpected keyword argument(s) {unknown}")
    return compile_prim(func, Settings(out_idx, workspace_idx, pass_configs, target))


def batch_compile(items, out_idx=None, pass_configs=None, target="auto", workspace_idx=None):
    """Kernels for many prim_funcs in one BatchCompile RPC (warming up): each item is a
    (jit_function, args) or (jit_function, args, kwargs) tuple, or a PrimFunc compiled with
    the settings given here. Memo hits are not sent; returns the Kernels in item order."""
    from . import _client
    pb, _ = _wire.modules()
    jobs = []
    for item in items:
        if isinstance(item, PrimFunc):
            prim, settings = item, Settings(out_idx, workspace_idx, pass_configs, target)
        else:
            fn, args, kwargs = (tuple(item) + ({},))[:3]
            if not isinstance(fn, JitFunction):
                raise TypeError(f"batch_compile items are PrimFuncs or (jit_function, args[, "
                                f"kwargs]) tuples, not {item!r}")
            prim, settings = fn.prim_func(*args, **kwargs), fn.settings
        encoded, key = _prepare(prim, settings)
        hit = _memo.get(key) if _memo_enabled[0] else None
        jobs.append([prim, settings, encoded, key, hit])
    missing = [j for j in jobs if j[4] is None]
    if missing:
        requests = [_wire.compile_request(j[2], j[1]) for j in missing]
        reply = _client.call("BatchCompile", pb.BatchCompileRequest(requests=requests))
        for job, request, item in zip(missing, requests, reply.items):
            if item.status.code != 0:
                raise CompileError(f"BatchCompile item failed: {item.status.message}")
            job[4] = _remember(job[3], _kernel_of(item.response, request, job[0], job[2]))
    return [j[4] for j in jobs]


def clear_cache():
    """Forgets this process's kernels and empties the local binary cache (never the
    daemon's cache)."""
    with _memo_lock:
        _memo.clear()
    _localcache.clear()


def set_cache_enabled(enabled):
    _memo_enabled[0] = bool(enabled)
    _localcache.set_enabled(enabled)
    if not enabled:
        with _memo_lock:
            _memo.clear()


def is_cache_enabled():
    return _memo_enabled[0]
