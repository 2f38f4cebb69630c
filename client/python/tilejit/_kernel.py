# SPDX-License-Identifier: Apache-2.0
"""The compiled kernel object (TileLang's JITKernel): call it on NumPy arrays or torch tensors.

    c = kernel(a, b)        # inputs only: outputs allocated from the metadata, returned in
                            # out_idx order (one output: the tensor itself)
    kernel(a, b, c)         # every parameter: outputs written in place (and returned)

A kernel without out_idx takes every parameter and updates them in place. Arguments are
checked (kind, dtype, shape, contiguity) before anything runs; errors name the parameter.

Launch is local by default: the binary (fetched once by handle into the local binary cache)
runs in this process on the simulated NPU through libtilejit_runtime.so. $TILEJIT_LAUNCH=remote
(or kernel.launch_mode = "remote") runs it on the daemon (the Launch RPC) instead. Checked
mode ($TILEJIT_CHECK=1, or kernel.check_mode = "checked") runs the race detector and the
other checks; any finding raises KernelFindingError naming the user's file and line. The
environment is read when the kernel object is made (its first compile in the process); the
attributes change one kernel.
"""
import os
import sys

from . import _localcache, _runtime, _tensors, _wire
from ._sourcemap import SourceMap
from .errors import CompileError, KernelFindingError

_ROLE = ("input", "output", "workspace")


class KernelParam:
    """One parameter: index, name, shape, dtype (canonical name), role. A T.symbolic dim of
    `shape` is the symbol's name (a str, bound at each launch from the inputs' shapes); the
    other dims are ints."""
    __slots__ = ("index", "name", "shape", "dtype", "role")

    def __init__(self, index, name, shape, dtype, role):
        self.index, self.name, self.shape, self.dtype, self.role = index, name, shape, dtype, role

    @property
    def is_symbolic(self):
        return any(isinstance(d, str) for d in self.shape)

    def bound_shape(self, values):
        """The shape with every symbol replaced by its value in `values` (name -> int; 0 for
        a symbol no input bound, which the argument check then reports)."""
        return tuple(values.get(d, 0) if isinstance(d, str) else d for d in self.shape)

    @property
    def torch_dtype(self):
        import torch
        return getattr(torch, self.dtype)

    def __repr__(self):
        return f"KernelParam({self.name!r}, {self.shape}, {self.dtype}, {self.role})"


def _shape_of(param, symbols):
    """A proto KernelParam's shape with symbol names at its symbolic dims ("blocks" for the
    launch's block count of a compiler workspace)."""
    if not param.dim_symbols:
        return tuple(param.shape)
    return tuple(d if s == -1 else symbols[s] if s >= 0 else "blocks"
                 for d, s in zip(param.shape, param.dim_symbols))


def bind_symbols(kernel_name, params, args):
    """name -> value of every symbol, read from the shapes of the inputs `args` (one per
    input param, in order). Disagreeing inputs are a ValueError naming both parameters (the
    runtime checks again, for every launcher)."""
    values, source = {}, {}
    for param, x in zip(params, args):
        shape = tuple(getattr(x, "shape", ()))
        if len(shape) != len(param.shape):
            continue  # the argument check reports the rank
        for d, (sym, n) in enumerate(zip(param.shape, shape)):
            if not isinstance(sym, str):
                continue
            if sym in values and values[sym] != n:
                first, dim = source[sym]
                raise ValueError(f"kernel '{kernel_name}': symbol {sym} is {values[sym]} from "
                                 f"{first} (dim {dim}) but {n} from {param.name} (dim {d})")
            values.setdefault(sym, n)
            source.setdefault(sym, (param.name, d))
    return values


class KernelMetadata:
    """The kernel's metadata as the daemon returned it (CompileResponse.metadata) plus the
    handle, cache key and request digest."""

    def __init__(self, response):
        m = response.metadata
        self.handle, self.key, self.request_digest = (response.handle, response.key,
                                                      response.request_digest)
        self.kernel_name, self.target = m.kernel_name, m.target
        self.compiler_fingerprint = m.compiler_fingerprint
        self.symbols = tuple(s.name for s in m.symbols)
        self.params = tuple(KernelParam(i, p.name, _shape_of(p, self.symbols), p.dtype, p.role)
                            for i, p in enumerate(m.params))
        self.out_idx, self.workspace_idx = tuple(m.out_idx), tuple(m.workspace_idx)
        self.block_count, self.core_mix = m.block_count, m.core_mix
        self.vector_cores_per_block = m.vector_cores_per_block
        u = m.on_chip
        self.on_chip = {"l1": u.l1, "l0a": u.l0a, "l0b": u.l0b, "l0c": u.l0c, "ub": u.ub}
        self.ignored_config_keys = tuple(response.ignored_config_keys)
        self.tier = response.tier

    def __repr__(self):
        return (f"KernelMetadata({self.kernel_name!r}, handle={self.handle}, "
                f"params={list(self.params)}, blocks={self.block_count}, {self.core_mix})")


def _print_device_output(text):
    """Device prints go where the user's own prints go, as TileLang-Ascend's do."""
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()


class LaunchInfo:
    """What the last launch reported: mode, cycles (kernel_cycles), launch_overhead_cycles,
    waves, instructions, pipe_utilisation ({"aiv0.v": busy share of the block spans}),
    findings ((kind, block, message) with the user's file:line:col), ok, and device_output:
    what T.printf / T.dump_tensor printed ("" if nothing), which the call also wrote to
    sys.stdout."""

    def __init__(self, mode, ok, cycles, overhead, waves, instructions, findings, utilisation,
                 report=None, device_output=""):
        self.mode, self.ok, self.cycles = mode, ok, cycles
        self.launch_overhead_cycles, self.waves, self.instructions = overhead, waves, instructions
        self.findings, self.pipe_utilisation, self.report = findings, utilisation, report
        self.device_output = device_output

    @classmethod
    def from_report(cls, report, source_map):
        span = sum(b.span_cycles for b in report.blocks)
        busy = report.pipe_busy()
        utilisation = {f"{core}.{pipe}": (c / span if span else 0.0)
                       for (core, pipe), c in sorted(busy.items())}
        findings = tuple((f.kind, f.block, source_map.locate(f.message))
                         for f in report.findings)
        return cls(report.mode, report.ok, report.kernel_cycles, report.launch_overhead_cycles,
                   report.waves, report.instructions, findings, utilisation, report,
                   report.device_output)

    def __repr__(self):
        return (f"LaunchInfo({self.mode}, ok={self.ok}, cycles={self.cycles}, "
                f"findings={len(self.findings)})")


class Kernel:
    """A compiled kernel: callable, with metadata, IR, disassembly and launch reports."""

    def __init__(self, response, request, prim_func, files):
        self.metadata = KernelMetadata(response)
        self.handle, self.key = response.handle, response.key
        self.request_digest = response.request_digest
        self.params = self.metadata.params
        self.out_idx, self.workspace_idx = self.metadata.out_idx, self.metadata.workspace_idx
        self.prim_func = prim_func
        self.source_map = SourceMap.from_response(response, files)
        # "fast", "checked" or "perturbed" ($TILEJIT_CHECK=1: "checked"; None: the same rule)
        self.check_mode = _runtime.default_mode()
        # "local" or "remote" ($TILEJIT_LAUNCH)
        self.launch_mode = "remote" if os.environ.get("TILEJIT_LAUNCH") == "remote" else "local"
        self.host_threads = 0  # local launches: host threads for the blocks (0: up to 8)
        self._request = request
        self._binary, self._module, self._module_pid = None, None, None
        self._last = None
        self._ir = None
        buffers = [p for p in self.params if p.role != "workspace"]
        self._buffers = tuple(buffers)
        self._inputs = tuple(i for i, p in enumerate(buffers) if p.role == "input")
        position = {p.index: i for i, p in enumerate(buffers)}
        self._out_positions = tuple(position[i] for i in self.out_idx)
        self._in_place = not self._out_positions  # no out_idx: arguments updated in place
        self._name = self.metadata.kernel_name
        self._tuner = None
        self.latency = self.config = self.ref_latency = None  # set by a tuning

    # ---- autotuning (tilelang.autotune) ----------------------------------------------------

    def update_tuner_result(self, latency, config, ref_latency=None, **extra):
        """Records the tuning that chose this kernel (latency: simulated kernel cycles)."""
        self._tuner = {"latency": latency, "config": dict(config), "ref_latency": ref_latency,
                       **extra}
        self.latency, self.config, self.ref_latency = latency, dict(config), ref_latency
        return self

    def get_tuner_result(self):
        """{"latency", "config", "ref_latency"} of the tuning that chose this kernel (plus
        "from_cache": the daemon's cached decision); ValueError if it was not tuned."""
        if self._tuner is None:
            raise ValueError("Tuning results are not available. Please tune the kernel first.")
        return dict(self._tuner)

    # ---- calling ---------------------------------------------------------------------------

    def __call__(self, *args, stream=None):
        buffers = args if len(args) == len(self._buffers) else self._arrange(args)
        mode = self.check_mode or _runtime.default_mode()
        if self.launch_mode == "remote":
            self._launch_remote(buffers, mode)
        else:
            self._launch_local(buffers, mode, False)
        outs = self._out_positions
        if len(outs) == 1:
            return buffers[outs[0]]
        return [buffers[p] for p in outs]  # TileLang's: a list in out_idx order ([]: none)

    def _arrange(self, args):
        """The buffers in parameter order: every parameter given, or the inputs given and
        the outputs allocated."""
        n = len(args)
        if n == len(self._buffers):
            buffers = list(args)
        elif n == len(self._inputs) and not self._in_place:
            buffers = [None] * len(self._buffers)
            for pos, arg in zip(self._inputs, args):
                buffers[pos] = arg
            like = args[0] if args else None
            values = bind_symbols(self._name, [self._buffers[i] for i in self._inputs], args)
            for pos in self._out_positions:
                param = self._buffers[pos]
                buffers[pos] = _tensors.allocate(param, like, param.bound_shape(values))
        else:
            names = ", ".join(self._buffers[i].name for i in self._inputs)
            every = ", ".join(p.name for p in self._buffers)
            takes = (f"its {len(self._buffers)} parameters ({every}), updated in place"
                     if self._in_place else
                     f"its {len(self._inputs)} inputs ({names}) or all {len(self._buffers)} "
                     f"parameters ({every})")
            raise TypeError(f"kernel '{self._name}' takes {takes}; {n} given")
        return buffers

    def _check(self, buffers):
        """Raises TypeError / ValueError naming the first bad argument (None if all fine)."""
        outputs = set(self._out_positions)
        for pos, (param, x) in enumerate(zip(self._buffers, buffers)):
            problem = _tensors.check(self._name, pos, param, x, pos in outputs or
                                     self._in_place)
            if problem:
                raise (TypeError if "is a " in problem else ValueError)(problem)
        bind_symbols(self._name, self._buffers, buffers)

    def _launch_local(self, buffers, mode, trace):
        module = self.module()
        plain = _tensors.plain_types()
        for x in buffers:
            if type(x) not in plain:
                view = [_tensors.launchable(x) for x in buffers]
                break
        else:
            view = buffers
        try:
            report = module.launch(view, mode=mode, trace=trace, host_threads=self.host_threads,
                                   write_back_inputs=self._in_place)
        except _runtime.TilejitRuntimeError as e:
            if e.status == "INVALID_ARGUMENT":
                self._check(buffers)  # a clearer message naming the parameter, if it has one
            raise
        self._last = (report, None)
        _print_device_output(report.device_output)
        if not report.ok:
            info = self.last_launch
            raise KernelFindingError(self._name, info.findings, info)
        return report

    def _launch_remote(self, buffers, mode):
        from . import _client
        if self._in_place:
            raise NotImplementedError(f"kernel '{self._name}' updates its arguments in place "
                                      "(no out_idx), which needs the local runtime "
                                      "(TILEJIT_LAUNCH=local)")
        self._check(buffers)
        pb, _ = _wire.modules()
        req = pb.LaunchRequest(handle=self.handle, request_digest=self.request_digest,
                               check_mode=mode)
        for pos in self._inputs:
            req.inputs.append(_tensors.to_wire(pb, buffers[pos], self._buffers[pos].dtype))
        r = _client.call("Launch", req)
        for t, pos in zip(r.outputs, self._out_positions):
            _tensors.from_wire(t, buffers[pos])
        findings = tuple((f.kind, f.block, f.message) for f in r.findings)
        info = LaunchInfo(mode, r.ok, r.kernel_cycles, r.launch_overhead_cycles, r.waves,
                          r.instructions, findings, {}, device_output=r.device_output)
        self._last = (None, info)
        _print_device_output(r.device_output)
        if not r.ok:
            raise KernelFindingError(self._name, findings, info)

    # ---- the local runtime -----------------------------------------------------------------

    def binary(self):
        """The kernel binary (ELF bytes): from the local binary cache, else fetched once and
        stored there."""
        if self._binary is None:
            data = _localcache.get(self.key)
            if data is None:
                data = self._fetch()
            self._binary = data
        return self._binary

    def _fetch(self):
        # The compile request again, with the binary: unlike GetKernel by handle, any daemon
        # of a balanced address list answers it (one that never saw the kernel compiles it or
        # reads it from the cluster's shared tier), and the daemon that compiled it answers
        # from its memo.
        from . import _client
        r = _client.call("Compile", _wire.clone(self._request, include_binary=True))
        if not r.ok or r.key != self.key:
            raise CompileError(f"tilejitd no longer compiles {self._name} to key {self.key[:16]}: "
                               f"{r.error or 'key ' + r.key[:16]}")
        _localcache.put(self.key, r.binary)
        return r.binary

    def module(self):
        """The loaded runtime module, loaded again in a forked child (whose parent's devices
        it must not touch)."""
        pid = os.getpid()
        if self._module is not None and self._module_pid == pid:
            return self._module
        if self._module is not None:
            self._module.abandon()
        module = _runtime.Module(self.binary())
        if module.cache_key and module.cache_key != self.key:
            _localcache.drop(self.key)  # a file not holding the kernel it is named after
            self._binary = self._fetch()
            module = _runtime.Module(self._binary)
        self._module, self._module_pid = module, pid
        return module

    # ---- introspection ---------------------------------------------------------------------

    @property
    def last_launch(self):
        """The LaunchInfo of this kernel's last launch in this process (None before one)."""
        if self._last is None:
            return None
        report, info = self._last
        if info is None:
            info = LaunchInfo.from_report(report, self.source_map)
            self._last = (report, info)
        return info

    def get_kernel_source(self):
        """The canonical Tile IR of the kernel (what its cache key hashes)."""
        if self._ir is None:
            from . import _client
            req = _wire.clone(self._request, include_ir=True)
            self._ir = _client.call("Compile", req).ir_text
        return self._ir

    kernel_source = property(get_kernel_source)

    def ir(self, after):
        """The IR after pass `after` (a pass name of docs/pipeline.md, or "all": every pass,
        each after a "// IR after <pass>" line), from a fresh lowering on the daemon."""
        from . import _client
        req = _wire.clone(self._request, print_after=[after])
        dumps = _client.call("Compile", req).ir_dumps
        if after != "all":
            return dumps[0].ir if dumps else ""
        return "".join(f"// IR after {getattr(d, 'pass')}\n{d.ir}" for d in dumps)

    def disasm(self):
        """The binary's disassembly, each statement's instructions under its source line."""
        return self.source_map.annotate_listing(self.module().disassemble())

    def trace(self, path, *args):
        """Launches once with tracing on (on `args`, or zero-filled inputs when none are given:
        simulated timing does not depend on the values) and writes the Chrome trace JSON to
        `path` (chrome://tracing, Perfetto). Returns the path."""
        if not args:
            import numpy
            if any(self._buffers[i].is_symbolic for i in self._inputs):
                raise TypeError(f"kernel '{self._name}' has symbolic shapes; pass the inputs "
                                "to trace it at one shape")
            args = tuple(numpy.zeros(self._buffers[i].shape,
                                     dtype=_tensors.numpy_dtype(self._buffers[i].dtype))
                         for i in self._inputs)
            if self._in_place:
                args = tuple(numpy.zeros(p.shape, dtype=_tensors.numpy_dtype(p.dtype))
                             for p in self._buffers)
        report = self._launch_local(self._arrange(args),
                                    self.check_mode or _runtime.default_mode(), True)
        with open(path, "w") as f:
            f.write(report.trace_json)
        return path

    def get_host_source(self):
        return ""  # no host wrapper: the runtime launches the binary directly

    def __repr__(self):
        return f"<tilejit.Kernel {self._name} {self.handle}>"
