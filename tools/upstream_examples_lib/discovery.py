# SPDX-License-Identifier: Apache-2.0
"""Discovery of the kernel factory calls of DIR/examples/**/*.py with `ast`: the names a file
binds to tilelang (Aliases), its factories (find_factories), each call as a Call with its
literal arguments or the reason they are not literal, and the exclusions (autotune,
T.shmem_*, fp8) with the reason a call needs one. Calls of factories with T.symbolic
dimensions are included: the child runs them at two sizes (inputs.symbol_runs)."""
import ast
import collections
import dataclasses
import os
import re

from .literals import (NotLiteral, Resolver, ScopesWithAnchors, bindings_of, loop_variants,
                       short)

EXCLUSIONS = ("autotune", "T.shmem_*", "fp8")
FP8 = re.compile(r"float8|e4m3|e5m2|\bfp8\b", re.IGNORECASE)


# ---- Discovery: the file's names for tilelang, its factories and their calls ----------------

class Aliases:
    """The names a file binds to tilelang, tilelang.language, tilelang.jit and autotune."""

    def __init__(self, tree):
        self.tilelang, self.language, self.jit, self.autotune = set(), set(), set(), set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name == "tilelang":
                        self.tilelang.add(a.asname or "tilelang")
                    elif a.name == "tilelang.language" and a.asname:
                        self.language.add(a.asname)
                    elif a.name.startswith("tilelang.") and not a.asname:
                        self.tilelang.add("tilelang")
            elif isinstance(node, ast.ImportFrom) and node.module == "tilelang":
                for a in node.names:
                    target = {"language": self.language, "jit": self.jit,
                              "autotune": self.autotune}.get(a.name)
                    if target is not None:
                        target.add(a.asname or a.name)

    def is_tilelang(self, node, name):
        """node is tilelang.<name> (through any alias) or a bare name imported as it."""
        if isinstance(node, ast.Call):
            node = node.func
        if isinstance(node, ast.Attribute) and node.attr == name:
            return isinstance(node.value, ast.Name) and node.value.id in self.tilelang
        if isinstance(node, ast.Name):
            return node.id in {"jit": self.jit, "autotune": self.autotune}.get(name, ())
        return False

    def is_language(self, node, attr=None):
        """node is T.<attr> (T any alias of tilelang.language; attr None: any name)."""
        if not isinstance(node, ast.Attribute) or (attr is not None and node.attr != attr):
            return False
        base = node.value
        if isinstance(base, ast.Name):
            return base.id in self.language
        return (isinstance(base, ast.Attribute) and base.attr == "language" and
                isinstance(base.value, ast.Name) and base.value.id in self.tilelang)


@dataclasses.dataclass
class Factory:
    name: str
    node: ast.FunctionDef
    jit: bool
    autotune: bool
    nested: bool  # defined inside another function (only reachable by running it)


@dataclasses.dataclass
class Call:
    """One factory call: a call site, or one iteration of the literal loops around it.
    args / kwargs hold the literal values (None when not literal: not_literal says why)."""
    file: str
    line: int
    col: int
    text: str
    factory: str
    args: tuple = None
    kwargs: dict = None
    not_literal: str = None
    excluded: str = None
    site: dict = None  # tilelang.compile keywords around a plain factory's call (source text)
    variant: int = 0  # which iteration of the enclosing literal loops
    variants: int = 1  # how many calls the site stands for

    @property
    def label(self):
        """The call text, with the iteration for a site inside literal loops."""
        return self.text + (f" [{self.variant + 1}/{self.variants}]" if self.variants > 1
                            else "")

    @property
    def where(self):
        return f"{self.file}:{self.line}"

    @property
    def ident(self):
        """file:line:col[#variant], what the child is told to run."""
        return f"{self.file}:{self.line}:{self.col}#{self.variant}"


def prim_func_names(fn, aliases):
    """Names of the @T.prim_func defs directly in fn's body (any nesting of statements)."""
    names = set()
    for node in own_nodes(fn):
        if isinstance(node, ast.FunctionDef) and any(
                aliases.is_language(d.func if isinstance(d, ast.Call) else d, "prim_func")
                for d in node.decorator_list):
            names.add(node.name)
    return names


def own_nodes(fn):
    """The nodes of fn's body, not descending into nested defs, lambdas or classes (which are
    yielded themselves)."""
    stack = list(reversed(fn.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def returned_names(fn):
    return {n.value.id for n in own_nodes(fn)
            if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)}


def returned_calls(fn):
    return {n.value.func.id for n in own_nodes(fn) if isinstance(n, ast.Return) and
            isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)}


def find_factories(tree, aliases):
    """name -> Factory, for every def in the file that is a factory (the innermost one of a
    name wins only if no module-level def has it)."""
    defs, parents = [], {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
        if isinstance(node, ast.FunctionDef):
            defs.append(node)
    plain = {}
    found = {}
    for fn in defs:
        jit = any(aliases.is_tilelang(d, "jit") for d in fn.decorator_list)
        tune = any(aliases.is_tilelang(d, "autotune") for d in fn.decorator_list)
        prims = prim_func_names(fn, aliases)
        returns_prim = bool(prims & returned_names(fn))
        if jit or returns_prim:
            found[fn] = Factory(fn.name, fn, jit, tune, enclosing_def(fn, parents) is not None)
        else:
            plain[fn] = returned_calls(fn)
    changed = True  # a plain function returning a plain factory's prim_func is one too
    while changed:
        changed = False
        names = {f.name for f in found.values() if not f.jit}
        for fn, calls in list(plain.items()):
            if calls & names:
                found[fn] = Factory(fn.name, fn, False, False,
                                    enclosing_def(fn, parents) is not None)
                del plain[fn]
                changed = True
    by_name = {}
    for fn, f in found.items():
        if f.name not in by_name or not f.nested:
            by_name[f.name] = f
    return by_name, parents


def enclosing_def(node, parents):
    node = parents.get(node)
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.Lambda)):
        node = parents.get(node)
    return node


# ---- Exclusions --------------------------------------------------------------------------

def reach(factory, tree, module_defs):
    """The factory's def and every module-level def it calls by name, transitively."""
    seen, todo = [], [factory.node]
    while todo:
        fn = todo.pop()
        if fn in seen:
            continue
        seen.append(fn)
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                target = module_defs.get(node.func.id)
                if target is not None:
                    todo.append(target)
    return seen


def docstrings(fn_nodes):
    out = set()
    for fn in fn_nodes:
        for node in ast.walk(fn):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and \
                    isinstance(body[0].value, ast.Constant):
                out.add(body[0].value)
    return out


def needs(factory, tree, aliases, module_values, args):
    """Why the factory's call is excluded (one of EXCLUSIONS), or None."""
    if factory.autotune:
        return "autotune"
    module_defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    nodes = reach(factory, tree, module_defs)
    skip = docstrings(nodes)
    names_read = set()
    found = set()
    for fn in nodes:
        for node in ast.walk(fn):
            if aliases.is_language(node) and node.attr.startswith("shmem_"):
                found.add("T.shmem_*")
            elif isinstance(node, ast.Attribute) and FP8.search(node.attr):
                found.add("fp8")
            elif isinstance(node, ast.Constant) and node not in skip and \
                    isinstance(node.value, str) and len(node.value) < 40 and \
                    FP8.search(node.value):
                found.add("fp8")
            elif isinstance(node, ast.Name):
                names_read.add(node.id)
    for name in names_read:
        found.update(module_values.get(name, ()))
    if any(isinstance(v, str) and FP8.search(v) for v in flatten(args)):
        found.add("fp8")
    for reason in EXCLUSIONS:
        if reason in found:
            return reason
    return None


def module_needs(tree, aliases):
    """name -> exclusion reasons of what a module-level name is bound to (an fp8 dtype
    string)."""
    out = collections.defaultdict(set)
    for stmt in tree.body:
        for name, _, value in bindings_of(stmt):
            if value is None:
                continue
            for node in ast.walk(value):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                        FP8.search(node.value):
                    out[name].add("fp8")
    return out


def flatten(value):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from flatten(k)
            yield from flatten(v)
    elif isinstance(value, (list, tuple, set)):
        for v in value:
            yield from flatten(v)
    else:
        yield value


# ---- Discovery of one file -----------------------------------------------------------------

def discover_file(path, rel):
    """The factory calls of one file, as Calls."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError:
        return []
    aliases = Aliases(tree)
    factories, parents = find_factories(tree, aliases)
    if not factories:
        return []
    scopes = ScopesWithAnchors(tree, parents)
    resolver = Resolver(scopes)
    module_values = module_needs(tree, aliases)
    factory_defs = {f.node for f in factories.values()}
    calls = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        factory = factories.get(node.func.id)
        if factory is None or inside(node, factory_defs, parents):
            continue
        text = short(ast.get_source_segment(source, node) or ast.unparse(node))
        site = None if factory.jit else compile_site(node, parents, aliases, source)
        envs = loop_variants(node, scopes, resolver)
        for i, env in enumerate(envs):
            call = Call(rel, node.lineno, node.col_offset, text, factory.name, site=site,
                        variant=i, variants=len(envs))
            resolver.env = env
            literal(call, node, resolver)
            resolver.env = {}
            if call.not_literal is None:
                call.excluded = needs(factory, tree, aliases, module_values,
                                      (call.args, call.kwargs))
                if call.excluded is None and factory.nested:
                    call.not_literal = "the factory is defined inside a function"
            calls.append(call)
    calls.sort(key=lambda c: (c.line, c.col, c.variant))
    return calls


def inside(node, defs, parents):
    """node lies inside one of the defs (a factory's own body)."""
    node = parents.get(node)
    while node is not None:
        if node in defs:
            return True
        node = parents.get(node)
    return False


def literal(call, node, resolver):
    """Fills call.args / call.kwargs, or call.not_literal with the reason."""
    try:
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(resolver.value(a.value, node))
            else:
                args.append(resolver.value(a, node))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                kwargs.update(resolver.value(k.value, node))
            else:
                kwargs[k.arg] = resolver.value(k.value, node)
    except NotLiteral as e:
        call.not_literal = str(e)
        return
    except TypeError as e:  # *x of a non-sequence, **x of a non-dict
        call.not_literal = str(e)
        return
    call.args, call.kwargs = tuple(args), kwargs


def compile_site(node, parents, aliases, source):
    """The keywords (source text) of the tilelang.compile call a plain factory's call is the
    first argument of, directly or through a name assigned in the same scope."""
    parent = parents.get(node)
    if isinstance(parent, ast.Call) and aliases.is_tilelang(parent.func, "compile") and \
            parent.args and parent.args[0] is node:
        return {k.arg: ast.get_source_segment(source, k.value) for k in parent.keywords if k.arg}
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and \
            isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        scope = enclosing_def(parent, parents) or None
        for other in ast.walk(scope if scope is not None else parents_root(parent, parents)):
            if isinstance(other, ast.Call) and aliases.is_tilelang(other.func, "compile") and \
                    other.args and isinstance(other.args[0], ast.Name) and \
                    other.args[0].id == name:
                return {k.arg: ast.get_source_segment(source, k.value)
                        for k in other.keywords if k.arg}
    return {}


def parents_root(node, parents):
    while parents.get(node) is not None:
        node = parents[node]
    return node


def discover(directory):
    """Every factory call of DIR/examples/**/*.py, in file order."""
    root = os.path.join(directory, "examples")
    calls = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                calls.extend(discover_file(path, os.path.relpath(path, root)))
    return calls
