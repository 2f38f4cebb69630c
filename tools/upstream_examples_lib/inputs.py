# SPDX-License-Identifier: Apache-2.0
"""The inputs of a checked run: the spec file (tools/upstream_examples_spec.toml), which gives
index and mask parameters their value ranges per example file and parameter name (and
T.symbolic dimensions the two sizes to run at), its bounds
over the kernel's parameter shapes and the example's module-level numbers, and the random
arrays drawn per buffer parameter from its shape and dtype (bfloat16 as its bit patterns)."""
import ast
import tomllib

from .literals import BINOPS


# ---- The spec file: value ranges of index and mask parameters -----------------------------

def _entries(path):
    """The spec file's [[example]] tables ([] without a file)."""
    if not path:
        return []
    with open(path, "rb") as f:
        return tomllib.load(f).get("example", [])


def load_spec(path):
    """{example file: {parameter name: {"low": ..., "high": ..., ...}}} of the spec file."""
    spec = {}
    for entry in _entries(path):
        params = spec.setdefault(entry["file"], {})
        for name, rule in entry.get("inputs", {}).items():
            unknown = set(rule) - {"low", "high", "distinct", "sorted", "note"}
            if unknown or "low" not in rule or "high" not in rule:
                raise ValueError(f"{path}: {entry['file']}: input '{name}' needs low and high "
                                 f"(and may have distinct, sorted, note), not {sorted(rule)}")
            params[name] = rule
    return spec


# The two values every T.symbolic dimension takes (one checked run each) unless the spec file
# gives the example's own: `symbols.M = [64, 200]`.
SYMBOL_VALUES = (256, 384)


def load_symbols(path):
    """{example file: {symbol name: [value, value]}} of the spec file."""
    out = {}
    for entry in _entries(path):
        for name, values in entry.get("symbols", {}).items():
            if not (isinstance(values, list) and len(values) == 2 and
                    all(isinstance(v, int) and v >= 0 for v in values)):
                raise ValueError(f"{path}: {entry['file']}: symbols.{name} needs two sizes")
            out.setdefault(entry["file"], {})[name] = values
    return out


def symbol_runs(kernel, given):
    """The symbol bindings to run a kernel at: [{}] without symbols, else two bindings, each
    symbol taking its spec values (`given`) or SYMBOL_VALUES."""
    names = getattr(kernel.metadata, "symbols", ())
    if not names:
        return [{}]
    return [{n: given.get(n, SYMBOL_VALUES)[i] for n in names} for i in range(2)]


def bound(value, shapes, names):
    """A spec bound: a number, or text such as "KV.shape[1]" or "KV_LEN + 1" over the
    kernel's parameter shapes (NAME.shape[i]) and the example's module-level numbers, with
    + - * // and parentheses."""
    if isinstance(value, (int, float)):
        return value
    tree = ast.parse(str(value), mode="eval").body

    def ev(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
            return BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
                node.value.attr == "shape" and isinstance(node.value.value, ast.Name) and \
                node.value.value.id in shapes:
            return shapes[node.value.value.id][ev(node.slice)]
        if isinstance(node, ast.Name) and isinstance(names.get(node.id), int):
            return names[node.id]
        raise ValueError(f"spec bound {value!r}: cannot evaluate {ast.unparse(node)}")
    return ev(tree)


# ---- Random inputs: one array per buffer parameter of the kernel --------------------------

def make_inputs(kernel, ranges, seed, names, symbols=None):
    """One array per buffer parameter of the kernel (workspaces are the runtime's): random
    values of the parameter's dtype, index and mask parameters within their spec range
    (bounds may read the example's module-level numbers, `names`), T.symbolic dims at their
    values in `symbols`. Also returns the integer parameters drawn without a spec range."""
    import numpy
    rng = numpy.random.default_rng(seed)
    params = [p for p in kernel.params if p.role != "workspace"]
    shapes = {p.name: tuple(p.bound_shape(symbols) if getattr(p, "is_symbolic", False)
                            else p.shape) for p in params}
    out, unranged = [], []
    for p in params:
        rule = ranges.get(p.name)
        if rule is None and p.role == "input" and p.dtype.startswith(("int", "uint")):
            unranged.append(p.name)
        out.append(random_array(rng, shapes[p.name], p.dtype, rule, shapes, names))
    return out, unranged


def random_array(rng, shape, dtype, rule, shapes, names):
    import numpy
    shape = tuple(shape)
    if rule is not None:
        low, high = bound(rule["low"], shapes, names), bound(rule["high"], shapes, names)
        if rule.get("distinct"):
            last = shape[-1] if shape else 1
            rows = int(numpy.prod(shape[:-1])) if len(shape) > 1 else 1
            if high - low < last:
                raise ValueError(f"spec range [{low}, {high}) has fewer than {last} distinct "
                                 "values")
            values = numpy.stack([rng.permutation(numpy.arange(low, high))[:last]
                                  for _ in range(rows)]).reshape(shape)
        elif dtype.startswith(("float", "bfloat")):
            values = rng.uniform(low, high, size=shape)
        else:
            values = rng.integers(low, high, size=shape, endpoint=False)
        if rule.get("sorted"):
            values = numpy.sort(values, axis=-1)
        return to_dtype(values, dtype)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(numpy.bool_)
    if dtype.startswith(("int", "uint")):
        low = 0 if dtype.startswith("uint") else -8
        return rng.integers(low, 8 if low else 16, size=shape).astype(dtype)
    return to_dtype(rng.standard_normal(size=shape, dtype=numpy.float32), dtype)


def to_dtype(values, dtype):
    """values as the kernel's dtype (bfloat16: its uint16 bit patterns, rounded to nearest)."""
    import numpy
    if dtype == "bfloat16":
        bits = numpy.ascontiguousarray(values, dtype=numpy.float32).view(numpy.uint32)
        return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(numpy.uint16)
    return numpy.ascontiguousarray(values).astype(dtype)
