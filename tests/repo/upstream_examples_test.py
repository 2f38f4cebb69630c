#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/upstream_examples.py on a small fake TileLang-Ascend checkout written here (kernels
of this test's own): which factory calls count as literal (literals, arithmetic, names of the
call's function or module, argparse defaults, loops over literal configurations, *args and
**kwargs), which do not and why, which are excluded (autotune, T.shmem_*, fp8; T.symbolic
calls are run, at two sizes),
what the child would run of a file before calling a factory, the inputs drawn per the spec,
and the report (totals, grouping of failures, the README's Markdown table). No daemon: the
compile and the checked run are the child's, which needs one."""
import contextlib
import importlib.util
import io
import os
import sys
import tempfile
import textwrap
import unittest
from unittest import mock

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from upstream_examples_lib import child, discovery, inputs, report  # noqa: E402
_SPEC = importlib.util.spec_from_file_location(
    "upstream_examples", os.path.join(ROOT, "tools", "upstream_examples.py"))
tool = importlib.util.module_from_spec(_SPEC)  # the entry point: main
_SPEC.loader.exec_module(tool)
PROJECT_SPEC = os.path.join(ROOT, "tools", "upstream_examples_spec.toml")

FILES = {
    # A jit factory called in every spelling the discovery must resolve.
    "examples/vec/scale.py": '''
        import argparse
        import tilelang
        import tilelang.language as T

        parser = argparse.ArgumentParser()
        parser.add_argument("--rows", type=int, default=256)
        parser.add_argument("--fast", action="store_true")
        args = parser.parse_args()
        ROWS = args.rows
        COLS = 64 * 2
        SHAPES = [(32, 16), (64, 32)]
        OPTIONS = {"factor": 0.5}
        LIMIT = 1 << 4


        @tilelang.jit(out_idx=[-1])
        def scale(rows, cols, factor=2.0, dtype="float16"):
            @T.prim_func
            def main(X: T.Tensor((rows, cols), dtype), Y: T.Tensor((rows, cols), dtype)):
                with T.Kernel(1, is_npu=True) as (cid, vid):
                    T.copy(X, Y)
            return main


        kernel = scale(ROWS, COLS)
        twice = scale(*SHAPES[0], **OPTIONS)
        for r, c in SHAPES:
            scale(r, c)
        y = kernel(None)


        def helper(n):
            return scale(n, n)


        def run():
            size = 128
            size2 = size * 2 if LIMIT > 8 else 0
            return scale(size2, COLS // 2, dtype="float32")


        if __name__ == "__main__":
            width = int(input())
            scale(width, 8)
            scale(max(LIMIT, 4), len(SHAPES) * 8)
    ''',
    # Exclusions, each for one reason, and a plain factory compiled at its call site.
    "examples/misc/kinds.py": '''
        import tilelang as tl
        import tilelang.language as tl_lang
        from tilelang import language as T

        N_DYN = T.symbolic("n")
        CFG = {tl.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}
        WIDE = "float8_e4m3"


        @tl.jit
        def dynamic(block):
            @T.prim_func
            def main(A: T.Tensor((N_DYN, block), "float32")):
                pass
            return main


        @tl.autotune(configs=[{"block": 16}])
        @tl.jit(out_idx=[-1])
        def tuned(block=16):
            @T.prim_func
            def main(A: T.Tensor((block,), "float32")):
                pass
            return main


        @tl.jit
        def talk(n):
            @T.prim_func
            def main(A: T.Tensor((n,), "float32")):
                T.shmem_put_nbi(A, A, n, 1)
            return main


        @tl.jit
        def narrow(n, dtype=WIDE):
            @T.prim_func
            def main(A: T.Tensor((n,), dtype)):
                pass
            return main


        def plain(n):
            @tl_lang.prim_func
            def body(A: tl_lang.Tensor((n,), "float32"), B: tl_lang.Tensor((n,), "float32")):
                pass
            return body


        def wrapper(n):
            return plain(n)


        @tl.jit
        def composed():
            return plain(64)


        def outer():
            @tl.jit
            def inner(n):
                @T.prim_func
                def main(A: T.Tensor((n,), "float32")):
                    pass
                return main
            return inner(32)


        dynamic(8)
        tuned()
        talk(16)
        narrow(16)
        compiled = tl.compile(plain(64), out_idx=[1], pass_configs=CFG)
        composed()
        wrapper(32)
        outer()
    ''',
    "examples/misc/not_a_kernel.py": '''
        def plain(n):
            return n + 1

        plain(3)
    ''',
    "examples/broken.py": "def oops(:\n",
}


def write_checkout(root):
    for name, text in FILES.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text).lstrip("\n"))


class Checkout(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        write_checkout(cls.tmp.name)
        cls.calls = discovery.discover(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def at(self, file, line, variant=0):
        found = [c for c in self.calls if (c.file, c.line, c.variant) == (file, line, variant)]
        self.assertEqual(len(found), 1, f"{file}:{line}#{variant}: {self.calls}")
        return found[0]

    def line_of(self, file, text, nth=0):
        lines = textwrap.dedent(FILES[file]).lstrip("\n").splitlines()
        return [i + 1 for i, l in enumerate(lines) if text in l][nth]


class DiscoveryTest(Checkout):
    F = "vec/scale.py"
    K = "misc/kinds.py"

    def call(self, text, file=F, nth=0, variant=0):
        return self.at(file, self.line_of("examples/" + file, text, nth), variant)

    def test_files_without_factories_or_parsable_source_have_no_calls(self):
        self.assertEqual({c.file for c in self.calls}, {self.F, self.K})

    def test_argparse_defaults_and_module_arithmetic_are_literal(self):
        c = self.call("kernel = scale(ROWS, COLS)")
        self.assertIsNone(c.not_literal)
        self.assertEqual((c.args, c.kwargs), ((256, 128), {}))
        self.assertEqual(c.text, "scale(ROWS, COLS)")
        self.assertIsNone(c.excluded)

    def test_starred_and_double_starred_arguments(self):
        c = self.call("twice = scale(")
        self.assertEqual((c.args, c.kwargs), ((32, 16), {"factor": 0.5}))

    def test_a_loop_over_a_literal_list_is_one_call_per_item(self):
        line = self.line_of("examples/" + self.F, "    scale(r, c)")
        variants = [c for c in self.calls if c.line == line]
        self.assertEqual([c.args for c in variants], [(32, 16), (64, 32)])
        self.assertEqual(variants[1].label, "scale(r, c) [2/2]")

    def test_function_level_names_conditionals_and_keywords(self):
        c = self.call("return scale(size2")
        self.assertEqual((c.args, c.kwargs), ((256, 64), {"dtype": "float32"}))

    def test_parameters_and_runtime_values_are_not_literal(self):
        self.assertEqual(self.call("return scale(n, n)").not_literal, "'n' is a parameter")
        self.assertEqual(self.call("scale(width, 8)").not_literal,
                         "'input()' is not a literal")

    def test_pure_builtins_in_the_main_block(self):
        c = self.call("scale(max(LIMIT, 4)")
        self.assertEqual(c.args, (16, 16))

    def test_calling_a_kernel_is_not_a_factory_call(self):
        self.assertFalse([c for c in self.calls if c.text.startswith("kernel(")])

    def test_each_exclusion_reason(self):
        self.assertIsNone(self.call("dynamic(8)", self.K).excluded)  # runs at two sizes
        self.assertEqual(self.call("tuned()", self.K, 0).excluded, "autotune")
        self.assertEqual(self.call("talk(16)", self.K).excluded, "T.shmem_*")
        self.assertEqual(self.call("narrow(16)", self.K).excluded, "fp8")

    def test_plain_factory_keeps_its_compile_site(self):
        c = self.call("compiled = tl.compile(plain(64)", self.K)
        self.assertIsNone(c.excluded)
        self.assertEqual(c.site, {"out_idx": "[1]", "pass_configs": "CFG"})
        # A plain function returning a plain factory's prim_func is a factory too.
        self.assertEqual(self.call("wrapper(32)", self.K).args, (32,))

    def test_calls_inside_factories_belong_to_them(self):
        inside = self.line_of("examples/" + self.K, "return plain(64)")
        self.assertFalse([c for c in self.calls if c.line == inside])
        self.assertIsNone(self.call("composed()", self.K, 1).not_literal)

    def test_a_factory_defined_inside_a_function_is_not_reachable(self):
        self.assertEqual(self.call("return inner(32)", self.K).not_literal,
                         "the factory is defined inside a function")

    def test_list_prints_every_call(self):
        out = io.StringIO()
        with mock.patch.object(sys, "argv", ["x", "--list", self.tmp.name]), \
                contextlib.redirect_stdout(out):
            tool.main()
        text = out.getvalue()
        line = self.line_of("examples/" + self.F, "kernel = scale(ROWS, COLS)")
        self.assertIn(f"vec/scale.py:{line}  scale(ROWS, COLS)\n    runs (256, 128)", text)
        self.assertIn("excluded: fp8 (16)", text)
        self.assertIn("not literal: 'n' is a parameter", text)


class LoaderTest(Checkout):
    def test_only_what_the_factory_needs_runs_before_the_call(self):
        import ast
        path = os.path.join(self.tmp.name, "examples", "misc", "kinds.py")
        with open(path) as f:
            tree = ast.parse(f.read())
        factories = discovery.find_factories(tree, discovery.Aliases(tree))[0]
        def kept(name, extra=()):
            chosen = child.statements_to_run(tree, factories[name], extra)
            return [ast.unparse(tree.body[i]).splitlines()[0] for i in chosen]
        text = kept("dynamic")
        self.assertIn("N_DYN = T.symbolic('n')", text)  # read by the factory
        self.assertIn("WIDE = 'float8_e4m3'", text)  # a default, evaluated when defined
        self.assertIn("def plain(n):", text)  # every def and import is defined
        self.assertNotIn("CFG = {tl.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}", text)
        self.assertFalse([t for t in text if t.startswith(("dynamic(", "compiled =", "outer"))])
        # A compile site's keywords are needed too.
        self.assertIn("CFG = {tl.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}", kept("plain", {"CFG"}))

    def test_argparse_setup_is_kept_when_a_factory_reads_its_result(self):
        import ast
        source = textwrap.dedent('''
            import argparse
            p = argparse.ArgumentParser()
            p.add_argument("--n", type=int, default=4)
            a = p.parse_args()
            N = a.n
            other = expensive()
            def f():
                return N
            f()
        ''')
        tree = ast.parse(source)
        fake = discovery.Factory("f", tree.body[6], True, False, False)
        kept = [ast.unparse(tree.body[i]) for i in child.statements_to_run(tree, fake)]
        self.assertEqual(kept[1:5], ["p = argparse.ArgumentParser()",
                                     "p.add_argument('--n', type=int, default=4)",
                                     "a = p.parse_args()", "N = a.n"])
        self.assertNotIn("other = expensive()", kept)
        self.assertNotIn("f()", kept)


class Param:
    """The parts of tilejit's KernelParam the inputs use (a str dim is a symbol's name)."""

    def __init__(self, name, shape, dtype, role="input"):
        self.name, self.shape, self.dtype, self.role = name, shape, dtype, role

    @property
    def is_symbolic(self):
        return any(isinstance(d, str) for d in self.shape)

    def bound_shape(self, values):
        return tuple(values[d] if isinstance(d, str) else d for d in self.shape)


class SpecTest(unittest.TestCase):
    def test_project_spec_is_well_formed(self):
        spec = inputs.load_spec(PROJECT_SPEC)
        self.assertGreaterEqual(len(spec), 5)
        for file, params in spec.items():
            self.assertTrue(file.endswith(".py"), file)
            for rule in params.values():
                self.assertIn("note", rule)

    def test_malformed_entries_are_refused(self):
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
            f.write('[[example]]\nfile = "a.py"\ninputs.I = { low = 0, hi = 3 }\n')
        try:
            with self.assertRaisesRegex(ValueError, "needs low and high"):
                inputs.load_spec(f.name)
        finally:
            os.unlink(f.name)

    def test_inputs_follow_the_spec_ranges(self):
        import numpy
        kernel = type("K", (), {"params": [
            Param("KV", (1, 40, 1, 8), "float16"), Param("Idx", (3, 16), "int32"),
            Param("Mask", (2, 50), "int8"), Param("Other", (64,), "int32"),
            Param("Out", (4, 4), "bfloat16", "output"), Param("ws", (8,), "float32", "workspace"),
        ]})()
        ranges = {"Idx": {"low": 0, "high": "KV.shape[1] - 20", "distinct": True,
                          "sorted": True},
                  "Mask": {"low": 0, "high": "FLAGS"}}
        buffers, unranged = inputs.make_inputs(kernel, ranges, 7, {"FLAGS": 2})
        self.assertEqual(len(buffers), 5)  # workspaces are the runtime's
        kv, idx, mask, other, out = buffers
        self.assertEqual((kv.dtype, kv.shape), (numpy.float16, (1, 40, 1, 8)))
        self.assertEqual(idx.dtype, numpy.int32)
        self.assertTrue(((idx >= 0) & (idx < 20)).all())
        for row in idx:
            self.assertEqual(len(set(row.tolist())), 16)
            self.assertEqual(row.tolist(), sorted(row.tolist()))
        self.assertEqual(set(mask.ravel().tolist()), {0, 1})
        self.assertEqual(out.dtype, numpy.uint16)  # bfloat16 as its bit patterns
        self.assertEqual(unranged, ["Other"])
        self.assertEqual(inputs.to_dtype(numpy.array([1.0, -2.5]), "bfloat16").tolist(),
                         [0x3F80, 0xC020])

    def test_symbolic_dims_take_each_bindings_sizes(self):
        meta = type("Meta", (), {"symbols": ("M", "N")})()
        kernel = type("K", (), {"metadata": meta, "params": [
            Param("A", ("M", 8, "N"), "float32"), Param("I", ("M",), "int32")]})()
        runs = inputs.symbol_runs(kernel, {"N": [3, 5]})
        self.assertEqual(runs, [{"M": 256, "N": 3}, {"M": 384, "N": 5}])
        ranges = {"I": {"low": 0, "high": "A.shape[2]"}}
        (a, i), _ = inputs.make_inputs(kernel, ranges, 1, {}, runs[1])
        self.assertEqual((a.shape, i.shape), ((384, 8, 5), (384,)))
        self.assertTrue(((i >= 0) & (i < 5)).all())
        plain = type("K", (), {"metadata": type("Meta", (), {"symbols": ()})(), "params": []})()
        self.assertEqual(inputs.symbol_runs(plain, {}), [{}])

    def test_a_range_too_small_for_distinct_values_fails(self):
        kernel = type("K", (), {"params": [Param("I", (4,), "int32")]})()
        with self.assertRaisesRegex(ValueError, "fewer than 4 distinct"):
            inputs.make_inputs(kernel, {"I": {"low": 0, "high": 3, "distinct": True}}, 1, {})


class ReportTest(Checkout):
    def results(self):
        chosen = {"scale(ROWS, COLS)": 0, "plain(64)": 1, "wrapper(32)": 2, "scale(r, c) [2/2]": 3}
        rows = [report.Result(c) for c in self.calls if c.label in chosen]
        for r in rows:
            i = chosen[r.call.label]
            if i == 0:
                r.compiles, r.outcome, r.cycles = True, "ok", 1234
            elif i == 1:
                r.compiles, r.outcome, r.cycles = True, "race", 99
                r.run_message = "RAW race (inter-pipe) on UB | x"
            else:
                r.compiles = False
                r.compile_message = f"vec/scale.py:{i}:5: error: T.tile.sort is not supported yet"
        self.assertEqual(len(rows), 4)
        return rows

    def report(self, markdown):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            results = self.results()
            report.print_results(results, markdown)
            report.print_totals(self.calls, results, markdown)
        return out.getvalue()

    def test_totals(self):
        text = self.report(False)
        self.assertIn("factory calls: 16 in 2 files, 3 of them with arguments not literal", text)
        self.assertIn("calls found (literal arguments): 13 (12 call sites in 2 files)", text)
        self.assertIn("excluded: 3, autotune 1, T.shmem_* 1, fp8 1", text)
        self.assertIn("compiled: 2/4 = 50.0%", text)
        self.assertIn("ran clean in checked mode: 1/2 = 50.0% of the compiled", text)
        # Compile failures are grouped by their message without the location.
        self.assertIn("2 x T.tile.sort is not supported yet\n", text)
        self.assertIn("1 x race: RAW race (inter-pipe) on UB | x", text)
        self.assertRegex(text, r"excluded calls:\n  misc/kinds.py:\d+ tuned\(\): autotune\n")

    def test_markdown_table(self):
        text = self.report(True)
        self.assertIn("| file | compiles | checked run | cycles |\n|---|---|---|---:|", text)
        line = self.line_of("examples/vec/scale.py", "kernel = scale(ROWS, COLS)")
        self.assertIn(f"| `vec/scale.py:{line}` `scale(ROWS, COLS)` | yes | ok | 1234 |", text)
        self.assertIn("| race: RAW race (inter-pipe) on UB \\| x | 99 |", text)
        self.assertIn("` `scale(r, c) [2/2]` | no: vec/scale.py:3:5: error: T.tile.sort is not "
                      "supported yet | - |  |", text)
        self.assertIn("| excluded call | calls | needs |", text)

    def test_a_child_that_times_out_before_compiling_does_not_compile(self):
        r = report.Result(self.calls[0])
        report.absorb(r, {"stage": "loaded", "notes": []})
        report.fail(r, "timeout after 5 s")
        self.assertEqual((r.compiles, r.compile_message), (False, "timeout after 5 s"))
        r = report.Result(self.calls[0])
        report.absorb(r, {"stage": "compile", "ok": True})
        report.fail(r, "timeout after 5 s")
        self.assertEqual((r.compiles, r.outcome), (True, "error"))


if __name__ == "__main__":
    unittest.main()
