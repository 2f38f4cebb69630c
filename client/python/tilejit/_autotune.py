# SPDX-License-Identifier: Apache-2.0
"""tilelang.autotune: the daemon's Tune RPC behind TileLang-Ascend's decorator.

    @tilelang.autotune(configs=get_configs, ref_prog=ref, supply_prog=supply, atol=1e-2)
    @tilelang.jit(out_idx=[-1], pass_configs=pass_configs)
    def matmul(M, N, K, block_M, block_N, K_L1, dtype="float16"): ...

    kernel = matmul(1024, 1024, 1024)    # tunes block_M, block_N, K_L1 (once), then compiles
    kernel.get_tuner_result()            # {"latency": cycles, "config": {...}, ...}

The factory runs here once per configuration (as TileLang's tuner does) and each prim_func
is sent to the daemon in one Tune call, which compiles them in parallel, runs each in fast mode
on the simulated device and picks the fewest simulated cycles; ties go to the smallest on-chip
footprint, then to the first listed. Inputs come from `supply_prog(params)` (else seeded
random inputs of the kernel's input shapes), the reference outputs from `ref_prog(*inputs)`,
compared on the daemon within atol/rtol; a configuration that computes wrong outputs, does not
compile or fails to run is ruled out (`last_tune_table` says why). The daemon caches the
decision, so a second process asking the same question gets it with a lookup. A call that gives
every tuned parameter itself skips tuning. Latencies are simulated kernel cycles (TileLang's
are milliseconds); `warmup`, `rep` and `timeout` are accepted: simulated cycles are
deterministic, so one run measures.
"""
import copy
import sys
import threading

from . import _client, _closure, _tensors, _wire
from ._jit import JitFunction, compile_prim
from .errors import CompileError

_TUNE_TIMEOUT = 1830.0


class TuneResult:
    """One configuration's row: index, config, compiled, ran, checked, cycles, on_chip_bytes,
    reason (empty for an eligible candidate)."""

    def __init__(self, config, c):
        self.index, self.config = c.index, config
        self.compiled, self.ran, self.checked = c.compiled, c.ran, c.checked
        self.cycles, self.on_chip_bytes, self.reason = c.cycles, c.on_chip_bytes, c.reason

    def __repr__(self):
        what = self.reason or f"{self.cycles} cycles"
        return f"<config {self.index} {self.config}: {what}>"


def _as_list(x):
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _numpy(x):
    """A NumPy copy of a torch tensor or array-like (bfloat16 as float32)."""
    import numpy
    if _tensors.is_torch(x):
        import torch
        t = _tensors.launchable(x.detach()).cpu()
        if t.dtype == torch.bfloat16:
            t = t.float()
        return t.numpy()
    return numpy.asarray(x)


def _random_inputs(params, seed):
    """Seeded random inputs of the kernel's input params (as torch tensors when torch is
    imported, so a ref_prog written for torch works; else NumPy)."""
    import numpy
    rng = numpy.random.default_rng(seed)
    out = []
    for p in params:
        a = (rng.integers(-64, 65, size=p.shape) / 64.0).astype(
            "float32" if p.dtype == "bfloat16" else p.dtype)
        if sys.modules.get("torch") is not None:
            import torch
            t = torch.from_numpy(a)
            out.append(t.to(torch.bfloat16) if p.dtype == "bfloat16" else t)
        else:
            out.append(a)
    return out


class AutoTuneFunction:
    """An @tilelang.autotune factory: calling it tunes (once per untuned call), then returns
    the best configuration's Kernel."""

    def __init__(self, jit_fn, configs, warmup, rep, timeout, ref_prog, supply_prog, atol, rtol,
                 seed=0):
        if not isinstance(jit_fn, JitFunction):
            raise TypeError("@tilelang.autotune goes above @tilelang.jit (it tunes a jit "
                            f"factory), not on {type(jit_fn).__name__}")
        self.jit_fn, self.configs = jit_fn, configs
        self.warmup, self.rep, self.timeout = warmup, rep, timeout
        self.ref_prog, self.supply_prog = ref_prog, supply_prog
        self.atol, self.rtol, self.seed = atol, rtol, seed
        self.last_tune_table = []
        self._kernels = {}
        self._lock = threading.Lock()
        for attr in ("__module__", "__name__", "__qualname__", "__doc__", "__wrapped__"):
            setattr(self, attr, getattr(jit_fn, attr, None))

    def __repr__(self):
        return f"<tilelang.autotune {self.__qualname__}>"

    def _config_list(self, args, kwargs):
        configs = self.configs
        if callable(configs):
            configs = configs(args, tuple(sorted(kwargs.items())))
        configs = list(configs or [])
        if not configs or not all(isinstance(c, dict) and c for c in configs):
            raise ValueError("autotune configs must be a non-empty list of non-empty dicts "
                             "(or a callable returning one)")
        return configs

    def prim_func(self, *args, **kwargs):
        return self.jit_fn.prim_func(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        key = (args, tuple(sorted(kwargs.items())))
        with self._lock:
            kernel = self._kernels.get(key)
        if kernel is not None:
            return kernel
        configs = self._config_list(args, kwargs)
        tuned = set().union(*(c.keys() for c in configs))
        if tuned <= set(kwargs):  # every tuned parameter given: no tuning
            return self.jit_fn(*args, **kwargs)
        kernel = self._tune(args, kwargs, configs)
        with self._lock:
            return self._kernels.setdefault(key, kernel)

    def _candidates(self, args, kwargs, configs):
        prims, requests = [], []
        for c in configs:
            prim = self.jit_fn.prim_func(*args, **{**kwargs, **c})
            prims.append(prim)
            requests.append(_wire.compile_request(_closure.encode(prim), self.jit_fn.settings))
        return prims, requests

    def _probe(self, prims):
        """The Kernel of the first configuration that compiles (its params size the inputs;
        the daemon's cache serves it again to the tuning)."""
        first_error = None
        for prim in prims:
            try:
                return compile_prim(prim, self.jit_fn.settings)
            except CompileError as e:
                first_error = first_error or e
        raise CompileError(f"autotune: no configuration compiles; the first: {first_error}",
                           getattr(first_error, "diagnostics", []))

    def _inputs(self, probe):
        params = [p for p in probe.params if p.role == "input"]
        if self.supply_prog is not None:
            return _as_list(self.supply_prog(params)), params
        if self.ref_prog is None:
            return [], params  # the daemon's seeded random inputs
        return _random_inputs(params, self.seed), params

    def _request(self, configs, requests, inputs, params, reference):
        pb, _ = _wire.modules()
        req = pb.TuneRequest(seed=self.seed, warmup=int(self.warmup or 0),
                             rep=int(self.rep or 0), atol=float(self.atol),
                             rtol=float(self.rtol), tolerances_set=True)
        for c in configs:
            cfg = req.configs.add()
            for name, value in c.items():
                _wire._typed(pb, _closure.encode_constant(value, name), cfg.values[name])
        req.candidate_kernels.extend(requests)
        for x, p in zip(inputs, params):
            req.inputs.append(_tensors.to_wire(pb, x, p.dtype))
        for r in reference:
            arr = _numpy(r).astype("float32")
            req.reference.append(_tensors.to_wire(pb, arr, "float32"))
        return req

    def _tune(self, args, kwargs, configs):
        prims, requests = self._candidates(args, kwargs, configs)
        probe = self._probe(prims)
        inputs, params = self._inputs(probe)
        reference = []
        if self.ref_prog is not None:
            reference = _as_list(self.ref_prog(*inputs))
        req = self._request(configs, requests, inputs, params, reference)
        events = _client.call("Tune", req, timeout=_TUNE_TIMEOUT)
        done = next((e.done for e in reversed(events) if e.HasField("done")), None)
        if done is None:
            raise CompileError("autotune: the daemon's Tune ended without a decision")
        self.last_tune_table = [TuneResult(configs[c.index], c) for c in done.candidates]
        if not done.ok:
            rows = "\n".join(f"  {r.config}: {r.reason}" for r in self.last_tune_table)
            raise CompileError(f"autotune: {done.error}\n{rows}")
        # A copy: the memo's kernel of that configuration is shared with untuned calls.
        kernel = copy.copy(compile_prim(prims[done.best], self.jit_fn.settings))
        best = done.candidates[done.best]
        kernel.update_tuner_result(latency=float(best.cycles), config=dict(configs[done.best]),
                                   ref_latency=None, from_cache=done.from_cache)
        return kernel


def autotune(func=None, *, configs=None, warmup=25, rep=100, timeout=100, supply_type=None,
             ref_prog=None, supply_prog=None, rtol=1e-2, atol=1e-2, max_mismatched_ratio=0.01,
             skip_check=False, manual_check_prog=None, cache_input_tensors=False, seed=0):
    """@tilelang.autotune(configs=..., warmup=, rep=, ref_prog=, supply_prog=, atol=, rtol=)
    above @tilelang.jit. TileLang's supply_type, max_mismatched_ratio, manual_check_prog and
    cache_input_tensors are accepted and have no effect; skip_check drops the reference."""
    if func is not None:
        raise ValueError("use @tilelang.autotune(configs=...) with arguments, above "
                         "@tilelang.jit")
    if configs is None:
        raise TypeError("tilelang.autotune() needs configs=")

    def decorate(jit_fn):
        return AutoTuneFunction(jit_fn, configs, warmup, rep, timeout,
                                None if skip_check else ref_prog, supply_prog, atol, rtol, seed)
    return decorate
