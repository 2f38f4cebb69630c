# SPDX-License-Identifier: Apache-2.0
"""The exceptions of the tilejit package.

TileLang-Ascend raises tvm.TVMError for compile errors, and tests written for it catch that;
so CompileError subclasses TVMError (defined here, re-exported by the compatibility
directory's `tvm` stub: client/python/compat/tvm).
"""


class TVMError(RuntimeError):
    """The base class TileLang's compile errors have (tvm.TVMError in the compatibility path)."""


class Diagnostic:
    """One located message of the daemon: severity ("error", "warning", "note"), file, line,
    column (1-based; 0 without a location), message, rendered ("file:line:col: error: ..."
    with the source line and a caret) and notes."""
    __slots__ = ("severity", "file", "line", "column", "message", "rendered", "notes")

    def __init__(self, severity, file, line, column, message, rendered, notes=()):
        self.severity, self.file, self.line, self.column = severity, file, line, column
        self.message, self.rendered, self.notes = message, rendered, tuple(notes)

    def __repr__(self):
        return f"Diagnostic({self.severity}, {self.file}:{self.line}:{self.column}, " \
               f"{self.message!r})"

    def __str__(self):
        return self.rendered or f"{self.file}:{self.line}:{self.column}: {self.severity}: " \
                                f"{self.message}"


class CompileError(TVMError):
    """A kernel the daemon could not compile. `diagnostics` locate every error in the caller's
    own files (file:line:col); str() is their rendering."""

    def __init__(self, message, diagnostics=()):
        self.diagnostics = tuple(diagnostics)
        errors = [d for d in self.diagnostics if d.severity == "error"]
        text = "\n".join(str(d) for d in errors) if errors else message
        super().__init__(text)
        self.message = message


class ClientValueError(CompileError, TypeError):
    """A value a kernel reads (a closure variable, a global, a default) that cannot be sent to
    the daemon; the message names the variable, its type and the function reading it."""

    def __init__(self, message):
        super().__init__(message)


class ServiceUnavailableError(ConnectionError):
    """No tilejitd answers at `address` (configured, or the private one could not start);
    the message says how to start one."""

    def __init__(self, message, address=None):
        super().__init__(message)
        self.address = address


class AuthError(PermissionError):
    """tilejitd refused the call's token: `code` is "UNAUTHENTICATED" (no token, or one it
    does not know) or "PERMISSION_DENIED" (the token's role may not make this call); the
    message names the call and the daemon's reason."""

    def __init__(self, message, code, address=None):
        super().__init__(message)
        self.code = code
        self.address = address


class KernelFindingError(RuntimeError):
    """A checked launch found problems in the kernel (races, bounds, ...). `findings` holds
    (kind, block, message) with the user's file:line:col in each message; `report` the
    launch's report (tilejit.LaunchInfo)."""

    def __init__(self, kernel_name, findings, report=None):
        lines = [f"  {kind} (block {block}): {message}" for kind, block, message in findings]
        super().__init__(f"kernel '{kernel_name}': {len(findings)} finding(s) in checked mode:\n"
                         + "\n".join(lines))
        self.findings = tuple(findings)
        self.report = report


class DeviceOnlyError(RuntimeError):
    """A T.* construct or a @T.macro / @T.prim_func called as plain Python."""
