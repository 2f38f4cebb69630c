# SPDX-License-Identifier: Apache-2.0
"""The child process of one call (upstream_examples.py --child IDENT DIR): finds the call
again, loads of the example's module only what the factory needs (never its main block nor a
statement running a kernel), calls the factory with the literal arguments and compiles it, and
launches the kernel once in checked mode on random inputs; prints its result records (MARK +
JSON: loaded, compile, run) on stdout for the parent."""
import ast
import builtins
import json
import os
import sys
import time

from .discovery import Aliases, discover_file, find_factories, reach
from .inputs import load_spec, load_symbols, make_inputs, symbol_runs
from .literals import bindings_of

MARK = "@@upstream_examples@@ "  # prefixes the child's result lines on its stdout


# ---- The child: load an example, call its factory, compile, launch checked -----------------

def kernel_running(tree, factories):
    """Module-level defs and classes that (transitively) call a factory."""
    defs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    running = set(factories)
    changed = True
    while changed:
        changed = False
        for name, node in defs.items():
            if name not in running and calls_any(node, running):
                running.add(name)
                changed = True
    return running


def calls_any(node, names):
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names
               for n in ast.walk(node))


def is_main_guard(stmt):
    return isinstance(stmt, ast.If) and "__name__" in ast.unparse(stmt.test) and \
        "__main__" in ast.unparse(stmt.test)


def reads(stmt):
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and
            isinstance(n.ctx, ast.Load)}


def bound_names(stmt):
    out = set()
    for node in ast.walk(stmt):
        for name, _, _ in bindings_of(node):
            out.add(name)
    return out


def definition_reads(stmt):
    """Names a def or class statement reads when it runs (decorators, defaults, annotations,
    bases, a class body's own statements), not what its functions read when called."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = stmt.args
        parts = stmt.decorator_list + a.defaults + [d for d in a.kw_defaults if d] + \
            [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs if x.annotation] + \
            ([stmt.returns] if stmt.returns else [])
        return set().union(*(reads(p) for p in parts)) if parts else set()
    if isinstance(stmt, ast.ClassDef):
        out = set().union(*(reads(p) for p in stmt.decorator_list + stmt.bases)) \
            if stmt.decorator_list or stmt.bases else set()
        for inner in stmt.body:
            out |= definition_reads(inner) if isinstance(
                inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else reads(inner)
        return out
    return reads(stmt)


def setup_call(stmt, needed):
    """An expression statement that sets up something needed (parser.add_argument(...) on a
    needed parser) or the import path (sys.path.insert(...))."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and
            isinstance(stmt.value.func, ast.Attribute)):
        return False
    base = stmt.value.func.value
    while isinstance(base, ast.Attribute):
        base = base.value
    text = ast.unparse(stmt.value.func)
    return isinstance(base, ast.Name) and (base.id in needed or text.startswith("sys.path."))


def statements_to_run(tree, factory, extra_reads=()):
    """Indices of the top-level statements that define what calling `factory` needs: every
    import, def and class (defining runs no kernel) and, transitively, the statements binding
    the module-level names those and the factory (with the module functions it calls) read.
    Never the main block, nor a statement calling a factory or a function that does."""
    running = kernel_running(tree, factory_names(tree))
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    needed = set(extra_reads)
    for fn in reach(factory, tree, defs):
        needed |= free_names(fn)
    keep = set()
    changed = True
    while changed:
        changed = False
        for i, stmt in enumerate(tree.body):
            if i in keep or is_main_guard(stmt):
                continue
            defines = isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                        ast.Import, ast.ImportFrom))
            if not defines and calls_any(stmt, running):
                continue
            if defines or bound_names(stmt) & needed or setup_call(stmt, needed):
                keep.add(i)
                needed |= definition_reads(stmt)
                changed = True
    return sorted(keep)


def free_names(fn):
    """Names fn reads that nothing in it binds (its globals, roughly)."""
    local = set()
    for node in ast.walk(fn):
        if node is not fn:
            local.update(name for name, _, _ in bindings_of(node))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            local.update(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs +
                         [a.vararg, a.kwarg] if x is not None)
    return reads(fn) - local


def factory_names(tree):
    return set(find_factories(tree, Aliases(tree))[0])


def load_example(path, tree, factory, extra_reads=()):
    """The example as a module holding what calling `factory` needs
    (statements_to_run, in file order; one that fails only takes its names with it), and
    notes on the statements that failed."""
    import types
    module = types.ModuleType("upstream_example")
    module.__file__ = path
    module.__dict__["__builtins__"] = builtins
    sys.modules[module.__name__] = module
    notes = []
    for i in statements_to_run(tree, factory, extra_reads):
        stmt = tree.body[i]
        code = compile(ast.Module(body=[stmt], type_ignores=[]), path, "exec")
        try:
            exec(code, module.__dict__)  # noqa: S102 (the example's own top-level code)
        except BaseException as e:  # noqa: BLE001 (SystemExit of argparse, ImportError, ...)
            notes.append(f"line {stmt.lineno}: {type(e).__name__}: {first_line(e)}")
    return module, notes


def first_line(e, root=None):
    """The first line of an exception's message (its type's name if it has none) or of a
    text, with the paths under `root` made relative to it."""
    text = str(e).strip()
    if not text and isinstance(e, BaseException):
        text = type(e).__name__
    line = text.splitlines()[0] if text else ""
    if root:
        line = line.replace(root.rstrip("/") + "/", "")
    return line[:300]



def emit(result):
    sys.stdout.write(MARK + json.dumps(result) + "\n")
    sys.stdout.flush()


def compile_call(call, module):
    """The Kernel of a call: the jit factory's, or the plain factory's prim_func compiled with
    the call site's tilelang.compile keywords. Raises what the factory or compile raised."""
    import tilelang
    from tilejit._prim import PrimFunc
    factory = module.__dict__.get(call.factory)
    if factory is None:
        raise NameError(f"the example's module has no '{call.factory}' (its definition failed)")
    made = factory(*call.args, **call.kwargs)
    if isinstance(made, tilelang.Kernel):
        return made
    if not isinstance(made, PrimFunc):
        raise TypeError(f"{call.factory}(...) returned {type(made).__name__}, not a kernel")
    options = {k: eval(v, module.__dict__) for k, v in (call.site or {}).items()}  # noqa: S307
    return tilelang.compile(made, **options)


def checked_run(kernel, ranges, seed, names, symbols=None):
    """checked_run_at every symbol binding of symbol_runs (one run for a kernel without
    T.symbolic dims, two with): the first run that is not "ok", with its binding in the
    message, else the first run's."""
    results = []
    for binding in symbol_runs(kernel, symbols or {}):
        r = checked_run_at(kernel, ranges, seed, names, binding)
        if r[0] != "ok":
            at = ", ".join(f"{k}={v}" for k, v in binding.items())
            return (r[0], f"at {at}: {r[1]}" if at else r[1], *r[2:])
        results.append(r)
    return results[0]


def checked_run_at(kernel, ranges, seed, names, binding):
    """(outcome, first line, cycles, integer inputs without a spec range): outcome "ok", the
    first finding's kind ("race", ...), or "error"."""
    import tilelang
    buffers, unranged = make_inputs(kernel, ranges, seed, names, binding)
    kernel.check_mode = "checked"
    try:
        kernel(*buffers)
    except tilelang.KernelFindingError as e:
        kind, _, message = e.findings[0]
        cycles = kernel.last_launch.cycles if kernel.last_launch else None
        more = f" (+{len(e.findings) - 1} more)" if len(e.findings) > 1 else ""
        return kind, f"{message.splitlines()[0]}{more}", cycles, unranged
    info = kernel.last_launch
    if info is None or info.mode != "checked":
        return "error", f"launched in {info.mode if info else 'no'} mode", None, unranged
    return "ok", "", info.cycles, unranged


def parse_ident(ident):
    """file, line, col, variant of a Call.ident."""
    rest, _, variant = ident.rpartition("#")
    file, line, col = rest.rsplit(":", 2)
    return file, int(line), int(col), int(variant)


def find_call(directory, ident):
    """The Call an ident names (discovery runs again in the child), or None."""
    file, line, col, variant = parse_ident(ident)
    path = os.path.join(directory, "examples", file)
    for c in discover_file(path, file):
        if (c.line, c.col, c.variant) == (line, col, variant):
            return c
    return None


def prepare(path, call):
    """The example's module as the call needs it, run from the example's folder with no
    command-line arguments (argparse defaults); emits the "loaded" record."""
    os.chdir(os.path.dirname(path))
    sys.path.insert(0, os.path.dirname(path))
    sys.argv = [path]
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    factory = find_factories(tree, Aliases(tree))[0][call.factory]
    site_reads = set()
    for text in (call.site or {}).values():
        site_reads |= reads(ast.parse(text, mode="eval"))
    module, notes = load_example(path, tree, factory, site_reads)
    return module, notes


def child(directory, ident, spec_path):
    """Runs one call (ident as Call.ident) and prints its result records (MARK + JSON):
    loaded, compile, run."""
    root = os.path.join(directory, "examples")
    call = find_call(directory, ident)
    if call is None:
        emit({"stage": "error", "message": f"no call at {ident}"})
        return
    ranges = load_spec(spec_path).get(call.file, {})
    symbols = load_symbols(spec_path).get(call.file, {})
    module, notes = prepare(os.path.join(root, call.file), call)
    emit({"stage": "loaded", "notes": [first_line(n, root) for n in notes]})
    started = time.monotonic()
    try:
        kernel = compile_call(call, module)
    except Exception as e:  # noqa: BLE001 (anything the factory or the compile raised)
        kind, message = type(e).__name__, first_line(e, root)
        emit({"stage": "compile", "ok": False, "message": message if kind == "CompileError"
              else f"{kind}: {message}", "seconds": time.monotonic() - started})
        return
    emit({"stage": "compile", "ok": True, "seconds": time.monotonic() - started})
    started = time.monotonic()
    try:
        outcome, message, cycles, unranged = checked_run(kernel, ranges, call.line,
                                                         vars(module), symbols)
    except Exception as e:  # noqa: BLE001 (inputs, arguments, the runtime)
        outcome, cycles, unranged = "error", None, []
        message = f"{type(e).__name__}: {first_line(e)}"
    emit({"stage": "run", "outcome": outcome, "message": first_line(message, root),
          "cycles": cycles, "unranged": unranged, "seconds": time.monotonic() - started})
