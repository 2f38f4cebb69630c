# SPDX-License-Identifier: Apache-2.0
"""ctypes binding of libtilejit_runtime.so, the local runtime's C ABI
(runner/runtime/tilejit_runtime.h): load a kernel binary, query its parameters, launch it
on the simulated NPU with NumPy arrays or torch CPU tensors (by their data pointers, no
copies), and read the launch report.

    mod = Module(binary_bytes)
    rep = mod.launch([a, b, c], mode="checked")   # one buffer per input and output
    rep.raise_for_findings()

Buffers are the kernel's input and output parameters in parameter order (workspaces are the
runtime's): C-contiguous, of the parameter's exact dtype (canonical names of the kernel
metadata; a bfloat16 parameter also takes uint16 bit patterns) and shape. Outputs are
written in place.

The library is found through $TILEJIT_RUNTIME_LIB, else the generated module
`tilejit_paths` (attribute RUNTIME_LIB) of a build tree's python folder; a library whose ABI
version differs from ABI_VERSION is refused. Errors of the C calls raise TilejitRuntimeError
(code, status name, message); a report with findings raises KernelFindingsError from
Report.raise_for_findings().

Thread safety follows the C library: a Module may be launched from several threads at once
(ctypes releases the GIL during the call, so launches run in parallel); close() must not race
with other uses. A Report is immutable.
"""
import ctypes
import os
import sys
import threading

ABI_VERSION = 1  # TJ_RUNTIME_ABI_VERSION of the header this binding mirrors

MODES = {"fast": 0, "checked": 1, "perturbed": 2}
_MODE_NAMES = {v: k for k, v in MODES.items()}
_ROLES = ("input", "output", "workspace")  # tj_role values 0, 1, 2
_STATUS_OK = 0
_STATUS_INVALID_ARGUMENT = 1


class TilejitRuntimeError(Exception):
    """A runtime error: `code` (the tj_status value), `status` (its name, e.g.
    "INVALID_ARGUMENT") and `message` (the library's tj_last_error text, or the binding's for
    what it checks itself: non-contiguous, read-only or foreign buffers). When the library
    itself cannot be used, `code` is None and `status` is "NOT_FOUND" (no library at the
    path) or "ABI_MISMATCH" (another ABI version)."""

    def __init__(self, code, status, message):
        super().__init__(f"{status}: {message}")
        self.code = code
        self.status = status
        self.message = message


class KernelFindingsError(Exception):
    """A launch whose kernel has findings (races, bounds, ...); `report` holds them."""

    def __init__(self, report):
        kinds = {}
        for f in report.findings:
            kinds[f.kind] = kinds.get(f.kind, 0) + 1
        counts = ", ".join(f"{kind}: {n}" for kind, n in kinds.items())
        super().__init__(f"kernel findings ({counts}): {report.message}")
        self.report = report


# ---- The C structs (field for field as in tilejit_runtime.h) ---------------------------------

_c_int64_p = ctypes.POINTER(ctypes.c_int64)
_c_int32_p = ctypes.POINTER(ctypes.c_int32)


class _ModuleInfo(ctypes.Structure):
    _fields_ = [("kernel_name", ctypes.c_char_p), ("target", ctypes.c_char_p),
                ("compiler_fingerprint", ctypes.c_char_p), ("cache_key", ctypes.c_char_p),
                ("core_mix", ctypes.c_char_p), ("block_count", ctypes.c_int64),
                ("vector_cores_per_block", ctypes.c_int32), ("param_count", ctypes.c_int32),
                ("buffer_count", ctypes.c_int32), ("out_count", ctypes.c_int32),
                ("out_idx", _c_int32_p), ("workspace_count", ctypes.c_int32),
                ("workspace_idx", _c_int32_p)]


class _ParamInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype_name", ctypes.c_char_p),
                ("dtype", ctypes.c_int32), ("role", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("compiler_workspace", ctypes.c_int32), ("shape", _c_int64_p),
                ("bytes", ctypes.c_int64)]


class _Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("shape", _c_int64_p), ("rank", ctypes.c_int32),
                ("dtype", ctypes.c_int32)]


class _LaunchArgs(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("buffer_count", ctypes.c_uint32),
                ("buffers", ctypes.POINTER(_Buffer)), ("mode", ctypes.c_int32),
                ("host_threads", ctypes.c_int32), ("seed", ctypes.c_uint64),
                ("instr_budget", ctypes.c_uint64), ("trace", ctypes.c_int32),
                ("max_findings", ctypes.c_int32), ("cancel", ctypes.c_void_p),
                ("gm_byte_limit", ctypes.c_uint64), ("write_back_inputs", ctypes.c_int32)]


class _ReportSummary(ctypes.Structure):
    _fields_ = [("ok", ctypes.c_int32), ("mode", ctypes.c_int32), ("message", ctypes.c_char_p),
                ("kernel_cycles", ctypes.c_uint64), ("launch_overhead_cycles", ctypes.c_uint64),
                ("waves", ctypes.c_int64), ("block_count", ctypes.c_int64),
                ("finding_count", ctypes.c_int64), ("findings_suppressed", ctypes.c_uint64),
                ("line_count", ctypes.c_int64), ("instructions", ctypes.c_uint64),
                ("trace_bytes", ctypes.c_uint64)]


class _BlockInfo(ctypes.Structure):
    _fields_ = [("block", ctypes.c_int64), ("span_cycles", ctypes.c_uint64),
                ("roofline_cycles", ctypes.c_uint64), ("instructions", ctypes.c_uint64),
                ("aic_busy_cycles", ctypes.c_uint64), ("aiv_busy_cycles", ctypes.c_uint64 * 2),
                ("aiv_any_busy_cycles", ctypes.c_uint64),
                ("cube_vector_overlap_cycles", ctypes.c_uint64), ("pipe_count", ctypes.c_int32),
                ("reserved", ctypes.c_int32)]


class _PipeBusy(ctypes.Structure):
    _fields_ = [("core", ctypes.c_char_p), ("pipe", ctypes.c_char_p),
                ("busy_cycles", ctypes.c_uint64)]


class _Finding(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_char_p), ("block", ctypes.c_int64),
                ("message", ctypes.c_char_p)]


class _LineCycles(ctypes.Structure):
    _fields_ = [("stmt", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("cycles", ctypes.c_uint64), ("count", ctypes.c_uint64)]


_P = ctypes.POINTER
_SIGNATURES = {  # name: (restype, argtypes)
    "tj_runtime_version": (ctypes.c_int, []),
    "tj_runtime_build": (ctypes.c_char_p, []),
    "tj_status_name": (ctypes.c_char_p, [ctypes.c_int]),
    "tj_last_error": (ctypes.c_char_p, []),
    "tj_dtype_name": (ctypes.c_char_p, [ctypes.c_int]),
    "tj_module_load": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, _P(ctypes.c_void_p)]),
    "tj_module_unload": (ctypes.c_int, [ctypes.c_void_p]),
    "tj_module_get_info": (ctypes.c_int, [ctypes.c_void_p, _P(_ModuleInfo)]),
    "tj_module_get_param": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int32, _P(_ParamInfo)]),
    "tj_module_disassemble": (ctypes.c_int, [ctypes.c_void_p, _P(ctypes.c_void_p),
                                             _P(ctypes.c_size_t)]),
    "tj_cancel_create": (ctypes.c_int, [_P(ctypes.c_void_p)]),
    "tj_cancel_request": (ctypes.c_int, [ctypes.c_void_p]),
    "tj_cancel_free": (ctypes.c_int, [ctypes.c_void_p]),
    "tj_launch_args_init": (ctypes.c_int, [_P(_LaunchArgs)]),
    "tj_launch": (ctypes.c_int, [ctypes.c_void_p, _P(_LaunchArgs), _P(ctypes.c_void_p)]),
    "tj_report_get_summary": (ctypes.c_int, [ctypes.c_void_p, _P(_ReportSummary)]),
    "tj_report_get_block": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int64, _P(_BlockInfo)]),
    "tj_report_get_pipe_busy": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32,
                                               _P(_PipeBusy)]),
    "tj_report_get_finding": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int64, _P(_Finding)]),
    "tj_report_get_line": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int64, _P(_LineCycles)]),
    "tj_report_get_trace": (ctypes.c_int, [ctypes.c_void_p, _P(ctypes.c_void_p),
                                           _P(ctypes.c_size_t)]),
    "tj_report_get_device_output": (ctypes.c_int, [ctypes.c_void_p, _P(ctypes.c_void_p),
                                                   _P(ctypes.c_size_t)]),
    "tj_report_free": (ctypes.c_int, [ctypes.c_void_p]),
}


# ---- The library ---------------------------------------------------------------------------

def library_path():
    """$TILEJIT_RUNTIME_LIB, else tilejit_paths.RUNTIME_LIB (a build tree's python folder)."""
    path = os.environ.get("TILEJIT_RUNTIME_LIB")
    if path:
        return path
    try:
        import tilejit_paths
    except ImportError:
        raise TilejitRuntimeError(
            None, "NOT_FOUND", "libtilejit_runtime.so not found: set TILEJIT_RUNTIME_LIB or put "
            "a build tree's python folder (holding tilejit_paths.py) on sys.path") from None
    return tilejit_paths.RUNTIME_LIB


class _Library:
    """The loaded shared library, its declared functions and its dtype table."""

    def __init__(self, path):
        self.path = path
        try:
            self.dll = ctypes.CDLL(path)
        except OSError as e:
            raise TilejitRuntimeError(None, "NOT_FOUND", f"cannot load {path}: {e}") from None
        self.dll.tj_runtime_version.restype = ctypes.c_int
        version = self.dll.tj_runtime_version()
        if version != ABI_VERSION:
            raise TilejitRuntimeError(
                None, "ABI_MISMATCH", f"{path} implements runtime ABI version {version}, "
                f"this binding needs {ABI_VERSION}")
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(self.dll, name)
            fn.restype, fn.argtypes = restype, argtypes
        self.build = self.dll.tj_runtime_build().decode()
        # Canonical element type name -> tj_dtype, from the library itself (NULL ends it).
        self.dtypes = {}
        for code in range(256):
            name = self.dll.tj_dtype_name(code)
            if name is None:
                break
            self.dtypes[name.decode()] = code

    def check(self, status):
        """Raises TilejitRuntimeError for a non-OK tj_status, with the thread's message."""
        if status != _STATUS_OK:
            raise TilejitRuntimeError(status, self.dll.tj_status_name(status).decode(),
                                      self.dll.tj_last_error().decode(errors="replace"))


_lib = None
_lib_lock = threading.Lock()


def library():
    """The runtime library, loaded (and version-checked) on first use."""
    global _lib
    if _lib is None:
        with _lib_lock:
            if _lib is None:
                _lib = _Library(library_path())
    return _lib


def default_mode():
    """"checked" when $TILEJIT_CHECK is 1, else "fast"."""
    return "checked" if os.environ.get("TILEJIT_CHECK", "") == "1" else "fast"


def _text(b):
    return b.decode(errors="replace") if b is not None else ""


# ---- Modules ---------------------------------------------------------------------------------

class Param:
    """One kernel parameter: index, name, dtype (canonical name), role, shape, bytes."""
    __slots__ = ("index", "name", "dtype", "role", "shape", "bytes", "compiler_workspace")

    def __init__(self, index, info):
        self.index = index
        self.name = _text(info.name)
        self.dtype = _text(info.dtype_name)
        self.role = _ROLES[info.role]
        self.shape = tuple(info.shape[i] for i in range(info.rank))
        self.bytes = info.bytes
        self.compiler_workspace = bool(info.compiler_workspace)

    def __repr__(self):
        return f"Param({self.index}, {self.name!r}, {self.dtype}, {self.role}, {self.shape})"


class CancelToken:
    """A tj_cancel: cancel() stops every launch carrying it (they raise CANCELLED)."""

    def __init__(self):
        self._lib = library()
        handle = ctypes.c_void_p()
        self._lib.check(self._lib.dll.tj_cancel_create(ctypes.byref(handle)))
        self._handle = handle

    def cancel(self):
        self._lib.check(self._lib.dll.tj_cancel_request(self._handle))

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.dll.tj_cancel_free(handle)


class _Slot:
    """One buffer position of a launch: its parameter, the C description of a buffer that
    matches it exactly (the module's own shape array), and the NumPy and torch dtype objects
    such a buffer has, for the fast path of Module.launch."""
    __slots__ = ("index", "param", "code", "c_shape", "rank", "output", "_np_dtype",
                 "_torch_dtype")

    def __init__(self, index, param, code, c_info):
        self.index, self.param, self.code = index, param, code
        self.c_shape, self.rank = c_info.shape, c_info.rank
        self.output = param.role == "output"
        # Resolved on first use from the caller's own numpy / torch (never imported here).
        self._np_dtype = self._torch_dtype = _UNRESOLVED

    def pointer(self, buf):
        """The data pointer of `buf` if it matches this slot exactly (same dtype object,
        shape, C-contiguous, CPU, writable if an output), else None: then the general path
        (Module._describe_all) describes it and reports what is wrong. The hot path of
        every launch, hence the inlined lookups."""
        kind = _KINDS.get(type(buf)) or _kind_of(type(buf))
        if kind == "numpy":
            dtype = self._np_dtype
            if dtype is _UNRESOLVED:
                dtype = self._np_dtype = _numpy_dtype(self.param.dtype)
            if buf.dtype is not dtype or buf.shape != self.param.shape:
                return None
            flags = buf.flags
            if not flags.c_contiguous or (self.output and not flags.writeable):
                return None
            try:  # the buffer protocol is faster than __array_interface__ (writable arrays)
                return ctypes.addressof(ctypes.c_char.from_buffer(buf))
            except (TypeError, ValueError, BufferError):
                return buf.__array_interface__["data"][0]
        if kind == "torch":
            dtype = self._torch_dtype
            if dtype is _UNRESOLVED:
                torch = sys.modules.get("torch")
                dtype = self._torch_dtype = getattr(torch, self.param.dtype, None)
            if (buf.dtype is not dtype or buf.shape != self.param.shape or not buf.is_cpu or
                    not buf.is_contiguous()):
                return None
            return buf.data_ptr()
        return None


def _numpy_dtype(name):
    numpy = sys.modules.get("numpy")
    try:
        return numpy.dtype(name) if numpy else None
    except TypeError:  # bfloat16: NumPy has none
        return None


_UNRESOLVED = object()
_KINDS = {}  # type -> "numpy", "torch" or "other"


def _kind_of(t):
    if hasattr(t, "__array_interface__") and hasattr(t, "flags"):
        kind = "numpy"
    elif hasattr(t, "data_ptr") and hasattr(t, "is_contiguous"):
        kind = "torch"
    else:
        kind = "other"
    _KINDS[t] = kind
    return kind


class _ThreadState:
    """A thread's reusable C argument structs for one module: the buffer array (shapes and
    dtypes preset from the slots, data pointers set per call) and launch args per options."""
    __slots__ = ("buffers", "args")

    def __init__(self, slots):
        self.buffers = (_Buffer * len(slots))()
        for c, slot in zip(self.buffers, slots):
            c.shape, c.rank, c.dtype = slot.c_shape, slot.rank, slot.code
        self.args = {}


_MAX_CACHED_ARGS = 16  # launch option combinations kept per thread and module


class Module:
    """A loaded kernel binary (tj_module). Attributes mirror tj_module_info; `params` lists
    every parameter and `buffer_params` those a launch takes buffers for."""

    def __init__(self, binary):
        self._lib = library()
        data = bytes(binary)
        handle = ctypes.c_void_p()
        self._lib.check(self._lib.dll.tj_module_load(data, len(data), ctypes.byref(handle)))
        self._handle = handle
        info = _ModuleInfo()
        self._lib.check(self._lib.dll.tj_module_get_info(handle, ctypes.byref(info)))
        self.kernel_name = _text(info.kernel_name)
        self.target = _text(info.target)
        self.compiler_fingerprint = _text(info.compiler_fingerprint)
        self.cache_key = _text(info.cache_key)
        self.core_mix = _text(info.core_mix)
        self.block_count = info.block_count
        self.vector_cores_per_block = info.vector_cores_per_block
        self.out_idx = tuple(info.out_idx[i] for i in range(info.out_count))
        self.workspace_idx = tuple(info.workspace_idx[i] for i in range(info.workspace_count))
        params, slots = [], []
        for i in range(info.param_count):
            c_info = _ParamInfo()
            self._lib.check(self._lib.dll.tj_module_get_param(handle, i, ctypes.byref(c_info)))
            p = Param(i, c_info)
            params.append(p)
            if p.role != "workspace":
                slots.append(_Slot(len(slots), p, self._lib.dtypes[p.dtype], c_info))
        self.params = tuple(params)
        self.buffer_params = tuple(s.param for s in slots)
        self._slots = tuple(slots)
        self._local = threading.local()

    def abandon(self):
        """Forgets the module without unloading it: for a forked child, which must not touch
        the parent's devices (their threads and locks are the parent's)."""
        self._handle = None

    def close(self):
        """Unloads the module; reports stay valid. Must not race with a launch."""
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.dll.tj_module_unload(handle)

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"Module({self.kernel_name!r}, target={self.target}, blocks={self.block_count})"

    def disassemble(self):
        """The kernel's disassembly (tj_module_disassemble): per core program, one
        instruction per line, "; line-table stmt N" comments where the statement changes."""
        if self._handle is None:
            raise TilejitRuntimeError(_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT",
                                      "the module is closed")
        text, size = ctypes.c_void_p(), ctypes.c_size_t()
        self._lib.check(self._lib.dll.tj_module_disassemble(self._handle, ctypes.byref(text),
                                                            ctypes.byref(size)))
        return ctypes.string_at(text.value, size.value).decode(errors="replace")

    def launch(self, buffers, mode=None, seed=1, instr_budget=50_000_000, host_threads=0,
               trace=False, max_findings=64, cancel=None, gm_byte_limit=16 << 30,
               write_back_inputs=False):
        """Runs the kernel once on `buffers` (NumPy arrays or torch CPU tensors, one per
        input and output parameter in order; outputs are written in place, and inputs too
        with write_back_inputs) and returns its Report (findings included: see
        Report.raise_for_findings). mode: "fast", "checked" or "perturbed" (default:
        default_mode()); the other options are tj_launch_args'."""
        handle = self._handle
        if handle is None:
            raise TilejitRuntimeError(_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT",
                                      "the module is closed")
        options = (mode or default_mode(), seed, instr_budget, host_threads, trace,
                   max_findings, cancel, gm_byte_limit, write_back_inputs)
        state = getattr(self._local, "state", None)
        if state is None:
            state = self._local.state = _ThreadState(self._slots)
        args = state.args.get(options)
        if args is None:
            args = self._make_args(state, options)
        c_buffers, keep = state.buffers, None
        if len(buffers) == len(self._slots):
            for slot, c, buf in zip(self._slots, c_buffers, buffers):
                ptr = slot.pointer(buf)
                if ptr is None:
                    break
                c.data = ptr
            else:
                keep = args
        if keep is None:  # some buffer is not an exact match: describe every one in full
            keep = self._describe_all(buffers)
            args = _LaunchArgs.from_buffer_copy(args)
            args.buffer_count, args.buffers = len(buffers), keep[0]
        report = ctypes.c_void_p()
        status = self._lib.dll.tj_launch(handle, ctypes.byref(args), ctypes.byref(report))
        if status != _STATUS_OK:
            self._lib.check(status)
        return Report(self._lib, report)

    def _make_args(self, state, options):
        (mode, seed, instr_budget, host_threads, trace, max_findings, cancel, limit,
         write_back) = options
        if mode not in MODES:
            raise ValueError(f"mode {mode!r} is not one of {sorted(MODES)}")
        args = _LaunchArgs(ctypes.sizeof(_LaunchArgs), len(self._slots), state.buffers,
                           MODES[mode], host_threads, seed, instr_budget, 1 if trace else 0,
                           max_findings, cancel._handle.value if cancel is not None else None,
                           limit, 1 if write_back else 0)
        if len(state.args) >= _MAX_CACHED_ARGS:
            state.args.clear()
        state.args[options] = args
        return args

    def _describe_all(self, buffers):
        """A fresh tj_buffer array describing `buffers` as they are, plus the shape arrays it
        points to. Python reports only what C cannot be told (foreign dtypes, strides,
        devices, read-only memory); dtype, shape and count mismatches are left to the
        library, whose message names the parameter."""
        c_buffers = (_Buffer * len(buffers))()
        keep = [c_buffers]
        for i, buf in enumerate(buffers):
            param = self._slots[i].param if i < len(self._slots) else None
            ptr, dtype, shape = _describe(buf, i, param)
            code = self._lib.dtypes.get(dtype)
            if code is None:
                expects = f"; kernel expects {param.dtype}" if param else ""
                raise TilejitRuntimeError(_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT",
                                          f"buffer {i}: dtype {dtype} is not a tilejit "
                                          f"element type{expects}")
            c_shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
            keep.append(c_shape)
            c = c_buffers[i]
            c.data, c.shape, c.rank, c.dtype = ptr, c_shape, len(shape), code
        return keep


def _describe(buf, i, param):
    """(data pointer, canonical dtype name, shape) of a NumPy array or torch CPU tensor, after
    checking what the library cannot: contiguity, device, and (outputs) writability."""
    is_output = param is not None and param.role == "output"
    kind = _KINDS.get(type(buf)) or _kind_of(type(buf))
    if kind == "numpy":
        flags = buf.flags
        if not flags.c_contiguous:
            raise _buffer_error(i, param, "is not C-contiguous")
        if is_output and not flags.writeable:
            raise _buffer_error(i, param, "is read-only")
        return buf.__array_interface__["data"][0], buf.dtype.name, buf.shape
    if kind == "torch":
        if buf.device.type != "cpu":
            raise _buffer_error(i, param, f"is on device {buf.device}, not the CPU")
        if not buf.is_contiguous():
            raise _buffer_error(i, param, "is not contiguous")
        return buf.data_ptr(), str(buf.dtype).rpartition(".")[2], tuple(buf.shape)
    raise _buffer_error(i, param, f"is a {type(buf).__name__}, not a NumPy array or torch "
                        "tensor")


def _buffer_error(i, param, what):
    name = f" (parameter '{param.name}', {param.role})" if param is not None else ""
    return TilejitRuntimeError(_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT",
                               f"buffer {i}{name} {what}")


# ---- Reports ---------------------------------------------------------------------------------

class Finding:
    __slots__ = ("kind", "block", "message")

    def __init__(self, kind, block, message):
        self.kind, self.block, self.message = kind, block, message

    def __repr__(self):
        return f"Finding({self.kind!r}, block={self.block})"


class PipeBusy:
    __slots__ = ("core", "pipe", "busy_cycles")

    def __init__(self, core, pipe, busy_cycles):
        self.core, self.pipe, self.busy_cycles = core, pipe, busy_cycles

    def __repr__(self):
        return f"PipeBusy({self.core}.{self.pipe}={self.busy_cycles})"


class Block:
    """One block of a report (tj_block_info) with its per-pipe busy cycles."""
    __slots__ = ("block", "span_cycles", "roofline_cycles", "instructions", "aic_busy_cycles",
                 "aiv_busy_cycles", "aiv_any_busy_cycles", "cube_vector_overlap_cycles",
                 "pipes")

    def __init__(self, info, pipes):
        for name in self.__slots__[:-1]:
            value = getattr(info, name)
            setattr(self, name, tuple(value) if name == "aiv_busy_cycles" else value)
        self.pipes = pipes


class LineCycles:
    __slots__ = ("stmt", "cycles", "count")

    def __init__(self, stmt, cycles, count):
        self.stmt, self.cycles, self.count = stmt, cycles, count


class Report:
    """A launch report (tj_report): ok, mode, message, kernel_cycles, launch_overhead_cycles,
    waves, findings_suppressed, instructions, and blocks (with per-pipe busy cycles),
    findings, line_cycles and trace_json, each read from the library on first access."""

    def __init__(self, lib, handle):
        self._lib, self._handle = lib, handle
        self._summary = _ReportSummary()
        status = lib.dll.tj_report_get_summary(handle, ctypes.byref(self._summary))
        if status != _STATUS_OK:
            lib.check(status)
        self._cache = None

    ok = property(lambda self: bool(self._summary.ok), doc="No finding.")
    mode = property(lambda self: _MODE_NAMES.get(self._summary.mode, str(self._summary.mode)))
    message = property(lambda self: _text(self._summary.message),
                       doc='"" if ok, else "<n> finding(s); first: <message>".')
    kernel_cycles = property(lambda self: self._summary.kernel_cycles)
    launch_overhead_cycles = property(lambda self: self._summary.launch_overhead_cycles)
    waves = property(lambda self: self._summary.waves)
    findings_suppressed = property(lambda self: self._summary.findings_suppressed)
    instructions = property(lambda self: self._summary.instructions)

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.dll.tj_report_free(handle)

    def __repr__(self):
        state = "ok" if self.ok else f"{len(self.findings)} finding(s)"
        return f"Report({state}, kernel_cycles={self.kernel_cycles}, waves={self.waves})"

    def raise_for_findings(self):
        """Raises KernelFindingsError if the kernel had any finding."""
        if not self.ok:
            raise KernelFindingsError(self)
        return self

    def _cached(self, key, make):
        if self._cache is None:
            self._cache = {}
        value = self._cache.get(key)
        if value is None:
            value = self._cache[key] = make()
        return value

    @property
    def blocks(self):
        return self._cached("blocks", self._read_blocks)

    @property
    def findings(self):
        return self._cached("findings", self._read_findings)

    @property
    def line_cycles(self):
        return self._cached("lines", self._read_lines)

    @property
    def trace_json(self):
        """The Chrome trace JSON ("" unless launched with trace=True)."""
        return self._cached("trace", self._read_trace)

    @property
    def device_output(self):
        """What T.printf / T.dump_tensor printed ("" if nothing): block after block, core
        after core, each line prefixed "[block B core] "."""
        return self._cached("device_output", lambda: self._read_text(
            self._lib.dll.tj_report_get_device_output))

    def pipe_busy(self):
        """Busy cycles summed over blocks: {(core, pipe): cycles}."""
        total = {}
        for b in self.blocks:
            for p in b.pipes:
                total[(p.core, p.pipe)] = total.get((p.core, p.pipe), 0) + p.busy_cycles
        return total

    def _read_blocks(self):
        lib, out = self._lib, []
        for b in range(self._summary.block_count):
            info = _BlockInfo()
            lib.check(lib.dll.tj_report_get_block(self._handle, b, ctypes.byref(info)))
            pipes = []
            for p in range(info.pipe_count):
                pb = _PipeBusy()
                lib.check(lib.dll.tj_report_get_pipe_busy(self._handle, b, p, ctypes.byref(pb)))
                pipes.append(PipeBusy(_text(pb.core), _text(pb.pipe), pb.busy_cycles))
            out.append(Block(info, tuple(pipes)))
        return tuple(out)

    def _read_findings(self):
        lib, out = self._lib, []
        for i in range(self._summary.finding_count):
            f = _Finding()
            lib.check(lib.dll.tj_report_get_finding(self._handle, i, ctypes.byref(f)))
            out.append(Finding(_text(f.kind), f.block, _text(f.message)))
        return tuple(out)

    def _read_lines(self):
        lib, out = self._lib, []
        for i in range(self._summary.line_count):
            line = _LineCycles()
            lib.check(lib.dll.tj_report_get_line(self._handle, i, ctypes.byref(line)))
            out.append(LineCycles(line.stmt, line.cycles, line.count))
        return tuple(out)

    def _read_trace(self):
        return self._read_text(self._lib.dll.tj_report_get_trace)

    def _read_text(self, getter):
        text, size = ctypes.c_void_p(), ctypes.c_size_t()
        self._lib.check(getter(self._handle, ctypes.byref(text), ctypes.byref(size)))
        if not size.value:
            return ""
        return ctypes.string_at(text.value, size.value).decode(errors="replace")
