# SPDX-License-Identifier: Apache-2.0
"""Values of factory-call arguments that are literal in an example file, seen from the call
site: where each name is bound (Scopes), the literal value of an expression (Resolver:
literals, containers, arithmetic, a few pure builtins and math functions, argparse defaults),
the environments of enclosing loops over literal sequences (loop_variants), and NotLiteral,
which says why a value is not literal."""
import ast
import collections

CALL_TEXT = 60  # characters of call text in the report


class NotLiteral(Exception):
    """An argument whose value is not literal in the file; the message says why."""


# ---- Literal values of arguments ------------------------------------------------------------

BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
          ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
          ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
          ast.Pow: lambda a, b: a ** b, ast.LShift: lambda a, b: a << b,
          ast.RShift: lambda a, b: a >> b, ast.BitAnd: lambda a, b: a & b,
          ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b}
_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
            ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
            ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
            ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_UNOPS = {ast.USub: lambda a: -a, ast.UAdd: lambda a: +a, ast.Not: lambda a: not a,
          ast.Invert: lambda a: ~a}


class Scopes:
    """Where each name is bound, per function and for the module: name -> [(position,
    value node)], sorted by position. The value node is the bound expression, the For node
    for a loop's variables, or None for what is never literal (a parameter, at position
    (0, 0); an import, a def, an augmented assignment, a with or except target...)."""

    def __init__(self, tree, parents):
        self.tree, self.parents = tree, parents
        self.bindings = collections.defaultdict(lambda: collections.defaultdict(list))
        for node in ast.walk(tree):
            scope = self.scope_of(node)
            for name, pos, value in bindings_of(node):
                self.bindings[scope][name].append((pos, value))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                a = node.args
                for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                    if arg is not None:
                        self.bindings[node][arg.arg].append(((0, 0), None))
        for per_scope in self.bindings.values():
            for entries in per_scope.values():
                entries.sort(key=lambda e: e[0])

    def scope_of(self, node):
        """The function (or module) whose local names node's statement binds; class bodies
        count as their enclosing scope's (the examples bind nothing there that calls read)."""
        parent = self.parents.get(node)
        while parent is not None:
            if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                return parent
            parent = self.parents.get(parent)
        return self.tree

    def chain(self, node):
        """Scopes from node's own outwards to the module."""
        scope = self.scope_of(node)
        while True:
            yield scope
            if scope is self.tree:
                return
            scope = self.scope_of(scope)


def position(node):
    return (node.lineno, node.col_offset)


def bindings_of(node):
    """(name, position, value node or None) for what statement `node` binds."""
    pos = position(node) if hasattr(node, "lineno") else (0, 0)
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _targets(target, node.value, pos)
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        yield node.target.id, pos, node.value
    elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        yield node.target.id, pos, None
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        yield from _targets(node.target, node, pos, loop=True)
    elif isinstance(node, ast.comprehension):
        yield from _targets(node.target, None, pos)
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield from _targets(node.optional_vars, None, position(node.context_expr))
    elif isinstance(node, ast.NamedExpr):
        yield node.target.id, pos, None
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        for a in node.names:
            yield (a.asname or a.name).split(".")[0], pos, None
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name, pos, None
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name, pos, None
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        for name in node.names:
            yield name, pos, None


def _targets(target, value, pos, loop=False):
    """Names a target binds; a loop's names are bound to the loop node itself."""
    if isinstance(target, ast.Name):
        yield target.id, pos, value
    elif isinstance(target, (ast.Tuple, ast.List)) and loop:
        for t in target.elts:
            yield from _targets(t.value if isinstance(t, ast.Starred) else t, value, pos, True)
    elif isinstance(target, (ast.Tuple, ast.List)):
        elts = value.elts if isinstance(value, (ast.Tuple, ast.List)) and \
            len(value.elts) == len(target.elts) and \
            not any(isinstance(e, ast.Starred) for e in target.elts) else None
        for i, t in enumerate(target.elts):
            yield from _targets(t.value if isinstance(t, ast.Starred) else t,
                                elts[i] if elts else None, pos)


PURE_BUILTINS = {"len": len, "min": min, "max": max, "abs": abs, "int": int, "float": float,
                 "str": str, "bool": bool, "tuple": tuple, "list": list, "range": range,
                 "enumerate": enumerate, "zip": zip, "round": round, "sum": sum}
PURE_MATH = ("ceil", "floor", "sqrt", "log2", "log", "exp", "pow", "prod", "gcd", "isqrt")
MAX_VARIANTS = 16  # calls one site stands for, at most (loops over literal configurations)


class Resolver:
    """Values of expressions that are literal in the file, seen from a call site: literals,
    containers, arithmetic, a few pure builtins and math functions of them, names bound to
    them, argparse defaults (`args.m` of `args = parser.parse_args()`, the value an example
    run with no arguments has) and variables of enclosing loops over literal sequences (one
    environment per iteration: `env`)."""

    def __init__(self, scopes):
        self.scopes = scopes
        self.env = {}  # For node -> {target name: value} of the iteration being resolved

    def value(self, node, site, depth=0):
        if depth > 50:
            raise NotLiteral("names bound in a cycle")
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            return self.collection(node, site, depth)
        if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
            a, b = self.value(node.left, site, depth + 1), self.value(node.right, site, depth + 1)
            if isinstance(node.op, ast.Pow) and isinstance(b, int) and abs(b) > 64:
                raise NotLiteral("an exponent too large")
            return self.apply(BINOPS[type(node.op)], (a, b), node)
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNOPS:
            return self.apply(_UNOPS[type(node.op)], (self.value(node.operand, site, depth + 1),),
                              node)
        if isinstance(node, ast.Subscript):
            container = self.value(node.value, site, depth + 1)
            return self.apply(lambda c, i: c[i], (container, self.value(node.slice, site,
                                                                          depth + 1)), node)
        if isinstance(node, (ast.BoolOp, ast.IfExp)):
            return self.choice(node, site, depth)
        if isinstance(node, ast.Compare) and all(type(o) in _COMPARE for o in node.ops):
            return self.compare(node, site, depth)
        if isinstance(node, ast.Call) and not node.keywords:
            fn = self.pure_function(node.func, site)
            if fn is not None:
                args = [self.value(a, site, depth + 1) for a in node.args]
                result = self.apply(fn, args, node)
                return list(result) if isinstance(result, (range, enumerate, zip)) else result
        if isinstance(node, ast.Name):
            return self.name(node.id, site, depth)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return self.argparse_default(node, site, depth)
        raise NotLiteral(f"'{short(ast.unparse(node), 40)}' is not a literal")

    def collection(self, node, site, depth):
        """A tuple, list, set or dict display, with its *items and **entries."""
        if isinstance(node, ast.Dict):
            out = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    out.update(self.value(v, site, depth + 1))
                else:
                    out[self.value(k, site, depth + 1)] = self.value(v, site, depth + 1)
            return out
        items = []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                items.extend(self.value(e.value, site, depth + 1))
            else:
                items.append(self.value(e, site, depth + 1))
        return {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)](items)

    def choice(self, node, site, depth):
        """`a and b` / `a or b` (short-circuit) and `a if test else b`."""
        if isinstance(node, ast.BoolOp):
            result = self.value(node.values[0], site, depth + 1)
            for v in node.values[1:]:
                if bool(result) == isinstance(node.op, ast.Or):
                    break
                result = self.value(v, site, depth + 1)
            return result
        chosen = node.body if self.value(node.test, site, depth + 1) else node.orelse
        return self.value(chosen, site, depth + 1)

    def compare(self, node, site, depth):
        """A comparison chain, evaluated left to right, stopping at the first false link."""
        left = self.value(node.left, site, depth + 1)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.value(right_node, site, depth + 1)
            if not self.apply(_COMPARE[type(op)], (left, right), node):
                return False
            left = right
        return True

    @staticmethod
    def apply(fn, args, node):
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001 (the file's own arithmetic, evaluated here)
            raise NotLiteral(f"{type(e).__name__} in {short(ast.unparse(node), 40)}") from None

    def pure_function(self, func, site):
        """The builtin or math function `func` names, if the file does not rebind it."""
        if isinstance(func, ast.Name) and func.id in PURE_BUILTINS:
            if not any(self.scopes.bindings[s].get(func.id) for s in self.scopes.chain(site)):
                return PURE_BUILTINS[func.id]
        if isinstance(func, ast.Attribute) and func.attr in PURE_MATH and \
                isinstance(func.value, ast.Name) and func.value.id == "math":
            import math
            return getattr(math, func.attr, None)
        return None

    def binding(self, name, site):
        """(value node, anchor) of the binding of `name` seen from `site`: the last one before
        the site in the site's own scope; in an enclosing scope, the last one if it is the
        only one. Raises NotLiteral."""
        own = True
        for scope in self.scopes.chain(site):
            entries = self.scopes.bindings[scope].get(name)
            if not entries:
                own = False
                continue
            if own:
                before = [e for e in entries if e[0] < position(site)]
                if not before:
                    raise NotLiteral(f"'{name}' is bound only after the call")
            elif len(entries) > 1:
                raise NotLiteral(f"'{name}' is bound more than once in an enclosing scope")
            else:
                before = entries
            pos, value = before[-1]
            return value, _Anchor(pos, value, scope)
        raise NotLiteral(f"'{name}' is not bound in the file")

    def name(self, name, site, depth):
        value, anchor = self.binding(name, site)
        if isinstance(value, (ast.For, ast.AsyncFor)):
            if name in self.env.get(value, {}):
                return self.env[value][name]
            raise NotLiteral(f"'{name}' is a loop variable")
        if value is None:
            kind = "a parameter" if anchor.lineno == 0 else "not bound to a literal"
            raise NotLiteral(f"'{name}' is {kind}")
        # Names the bound value reads are looked up from the binding's own place.
        return self.value(value, anchor, depth + 1)

    def argparse_default(self, node, site, depth):
        """`args.dest` where args = parser.parse_args() of an argparse.ArgumentParser: the
        default of the option with that dest."""
        what = f"'{short(ast.unparse(node), 40)}' is not a literal"
        parsed, anchor = self.binding(node.value.id, site)
        if not (isinstance(parsed, ast.Call) and isinstance(parsed.func, ast.Attribute) and
                parsed.func.attr == "parse_args" and not parsed.args and
                isinstance(parsed.func.value, ast.Name)):
            raise NotLiteral(what)
        parser_name = parsed.func.value.id
        made, parser_anchor = self.binding(parser_name, anchor)
        if not (isinstance(made, ast.Call) and ast.unparse(made.func) in
                ("argparse.ArgumentParser", "ArgumentParser")):
            raise NotLiteral(what)
        for call in ast.walk(parser_anchor.scope):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                    call.func.attr == "add_argument" and \
                    isinstance(call.func.value, ast.Name) and call.func.value.id == parser_name \
                    and option_dest(call) == node.attr:
                return self.option_default(call, parser_anchor, depth)
        raise NotLiteral(f"{what} (no such option)")

    def option_default(self, call, anchor, depth):
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        action = kw.get("action")
        action = action.value if isinstance(action, ast.Constant) else None
        if "default" in kw:
            value = self.value(kw["default"], anchor, depth + 1)
        else:
            value = {"store_true": False, "store_false": True}.get(action)
        kind = ast.unparse(kw["type"]) if "type" in kw else None
        if isinstance(value, str) and kind in ("int", "float"):
            value = {"int": int, "float": float}[kind](value)
        return value


def option_dest(call):
    """The dest of a parser.add_argument call (its dest=, else its first --long option, else
    its first option string), dashes made underscores."""
    for k in call.keywords:
        if k.arg == "dest" and isinstance(k.value, ast.Constant):
            return k.value.value
    names = [a.value for a in call.args if isinstance(a, ast.Constant) and
             isinstance(a.value, str)]
    longs = [n for n in names if n.startswith("--")]
    chosen = longs[0] if longs else (names[0] if names else "")
    return chosen.lstrip("-").replace("-", "_")


def loop_variants(call, scopes, resolver):
    """The environments of the call's enclosing loops (in its own scope) over literal
    sequences: one dict per iteration of their product, [{}] when there are none. Loops whose
    sequence is not literal are left out (their variables stay non-literal)."""
    loops = []
    node = scopes.parents.get(call)
    scope = scopes.scope_of(call)
    while node is not None and node is not scope:
        if isinstance(node, ast.For):
            loops.append(node)
        node = scopes.parents.get(node)
    envs = [{}]
    for loop in reversed(loops):  # outermost first: an inner sequence may read outer names
        grown = []
        for env in envs:
            resolver.env = env
            try:
                items = list(resolver.value(loop.iter, loop))
            except (NotLiteral, TypeError):
                grown.append(env)
                continue
            for item in items:
                names = {}
                if destructure(loop.target, item, names):
                    grown.append({**env, loop: names})
        envs = grown[:MAX_VARIANTS]
    resolver.env = {}
    return envs


def destructure(target, value, out):
    if isinstance(target, ast.Name):
        out[target.id] = value
        return True
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (tuple, list)) and \
            len(value) == len(target.elts):
        return all(destructure(t, v, out) for t, v in zip(target.elts, value))
    return False


class _Anchor(ast.AST):
    """A stand-in node at a binding's position, inside the binding's scope."""
    _fields = ()

    def __init__(self, pos, value, scope):
        super().__init__()
        self.lineno, self.col_offset = pos
        self.value, self.scope = value, scope


class ScopesWithAnchors(Scopes):
    def scope_of(self, node):
        if isinstance(node, _Anchor):
            return node.scope
        return super().scope_of(node)


def short(text, limit=CALL_TEXT):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."
