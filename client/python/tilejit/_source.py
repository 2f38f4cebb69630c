# SPDX-License-Identifier: Apache-2.0
"""Where a Python function is in its file, for the protocol's by-reference functions: the
file's text (what the daemon parses) and the 1-based line and byte column of the function's
`def` keyword, or of its `lambda` keyword.

code.co_firstlineno is not enough: for a decorated def it is the first decorator's line, and
several lambdas may share a line. So each file is parsed once with `ast`, and a code object is
matched to its node: a def by name and first line (decorators included), a lambda by the
columns of its instructions (co_positions, Python 3.11) against the lambda bodies on its line
(the innermost body that contains them all). ast columns are UTF-8 byte offsets, as the
protocol's are.

Everything is cached: a file snapshot by (path, mtime, size) when a code object from it is
first seen, and a code object's position for the life of the process. A module reloaded after
an edit has new code objects, matched against the new text; the old ones keep the snapshot
they were matched against. Thread-safe (the caches are filled idempotently).
"""
import ast
import linecache
import os

from .errors import ClientValueError

_MAX_FILE_BYTES = 4 << 20  # the daemon's default source limit


class FileSnapshot:
    """One version of a source file: name (as the code object names it), text, and the
    functions ast found in it."""
    __slots__ = ("name", "text", "serial", "_defs", "_lambdas")
    _count = 0

    def __init__(self, name, text):
        FileSnapshot._count += 1
        self.name, self.text, self.serial = name, text, FileSnapshot._count
        self._defs = self._lambdas = None

    def _index(self):
        try:
            tree = ast.parse(self.text, filename=self.name)
        except SyntaxError as e:
            raise ClientValueError(f"{self.name}: cannot parse the file holding a kernel "
                                   f"function: {e}") from None
        defs, lambdas = {}, {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # co_firstlineno is the first decorator's line (the def's when there is none).
                first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
                defs.setdefault((node.name, first), node)
                defs.setdefault((node.name, node.lineno), node)
            elif isinstance(node, ast.Lambda):
                lambdas.setdefault(node.lineno, []).append(node)
        self._defs, self._lambdas = defs, lambdas

    def find(self, code):
        """The ast node (FunctionDef or Lambda) of `code`, or None."""
        if self._defs is None:
            self._index()
        if code.co_name == "<lambda>":
            return self._find_lambda(code)
        return self._defs.get((code.co_name, code.co_firstlineno))

    def _find_lambda(self, code):
        spans = [p for p in code.co_positions() if p[0] is not None and p[2] is not None and
                 not (p[2] == 0 and p[3] == 0)]
        best = None
        for node in self._lambdas.get(code.co_firstlineno, ()):
            body = node.body
            start, end = (body.lineno, body.col_offset), (body.end_lineno, body.end_col_offset)
            if all(start <= (p[0], p[2]) and (p[1], p[3]) <= end for p in spans):
                if best is None or (node.lineno, node.col_offset) > \
                        (best.lineno, best.col_offset):
                    best = node  # the innermost lambda whose body holds every instruction
        return best


_snapshots = {}  # (path, mtime_ns, size) -> FileSnapshot
_positions = {}  # code object -> (FileSnapshot, line, column)
_annotations = {}  # code object -> names its parameter annotations read


def _read(path):
    """A snapshot of `path` (a real file, or one linecache knows, e.g. from a zip)."""
    try:
        st = os.stat(path)
        key = (path, st.st_mtime_ns, st.st_size)
    except OSError:
        st, key = None, (path, None, None)
    snap = _snapshots.get(key)
    if snap is not None:
        return snap
    text = None
    if st is not None:
        if st.st_size > _MAX_FILE_BYTES:
            raise ClientValueError(f"{path} is {st.st_size} bytes; the daemon takes source "
                                   f"files of at most {_MAX_FILE_BYTES}")
        with open(path, "rb") as f:
            raw = f.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ClientValueError(f"{path} is not UTF-8 ({e}); the daemon needs UTF-8 "
                                   "sources") from None
    else:
        lines = linecache.getlines(path)
        text = "".join(lines) if lines else None
    if text is None:
        return None
    snap = _snapshots[key] = FileSnapshot(path, text)
    return snap


def locate(func, qualname):
    """(FileSnapshot, line, column) of the function object `func`; ClientValueError when its
    source is not available (defined in an interactive session or by exec) or not found."""
    code = func.__code__
    found = _positions.get(code)
    if found is not None:
        return found
    path = code.co_filename
    snap = _read(path) if path and not path.startswith("<") else None
    if snap is None:
        raise ClientValueError(
            f"cannot send '{qualname}' to tilejitd: its source ({path}) is not available (a "
            "kernel and the functions it uses must be defined in a file)")
    node = snap.find(code)
    if node is None:
        raise ClientValueError(
            f"cannot send '{qualname}' to tilejitd: no definition of it at line "
            f"{code.co_firstlineno} of {path} (was the file edited after it was imported?)")
    found = _positions[code] = (snap, node.lineno, node.col_offset + 1)
    names = set()
    args = node.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None and a.annotation is not None:
            names.update(n.id for n in ast.walk(a.annotation) if isinstance(n, ast.Name))
    _annotations[code] = tuple(sorted(names))
    return found


def annotation_names(func):
    """The names the parameter annotations of `func` read (evaluated where it was defined,
    not in its body): () when its source is not available."""
    code = func.__code__
    names = _annotations.get(code)
    if names is None:
        try:
            locate(func, getattr(func, "__qualname__", "?"))
        except ClientValueError:
            return ()
        names = _annotations.get(code, ())
    return names
