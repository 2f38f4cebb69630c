#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/upstream_report.py on a small JUnit XML written here, classified with the project's
own tools/upstream_causes.toml: outcomes are counted per file, each failure gets the first
matching rule's cause (with the rule's groups filled in), out-of-scope and dynamic-shape
cases leave the adjusted pass rate's denominator, and a message no rule knows is listed as
unclassified."""
import contextlib
import importlib.util
import io
import os
import sys
import tempfile
import unittest
from unittest import mock

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
_SPEC = importlib.util.spec_from_file_location(
    "upstream_report", os.path.join(ROOT, "tools", "upstream_report.py"))
report = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(report)
CAUSES = os.path.join(ROOT, "tools", "upstream_causes.toml")

MOD = "testing.python.language.test_tilelang_ascend_language_elementwise"
G2L1 = "testing.python.language.test_tilelang_ascend_language_gm_to_l1"
XML = f"""<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="{MOD}" name="test_add[float]"/>
<testcase classname="{MOD}" name="test_add[half]"/>
<testcase classname="{MOD}" name="test_sort[a]"><failure message="tilejit.errors.CompileError: x.py:3:1: error: T.tile.sort is not supported yet">tb</failure></testcase>
<testcase classname="{MOD}" name="test_sort[b]"><failure message="tilejit.errors.CompileError: x.py:3:1: error: T.tile.sort is not supported yet">tb</failure></testcase>
<testcase classname="{MOD}" name="test_decl[c]"><failure message="NotImplementedError: tvm.tir.decl_buffer is not provided by tilejit">tb</failure></testcase>
<testcase classname="testing.python.language.parallel.test_tilelang_ascend_language_parallel" name="test_dyn"><failure message="DeviceOnlyError: T.symbolic('n') has no value">tb</failure></testcase>
<testcase classname="{MOD}" name="test_new"><failure message="KeyError: something nobody has seen">tb</failure></testcase>
<testcase classname="{MOD}" name="test_or"><failure message="CompileError: y.py:2:3: error: operator '|' is not supported on runtime values">tb</failure></testcase>
<testcase classname="{MOD}" name="test_skip"><skipped message="xfail"/></testcase>
<testcase classname="{G2L1}" name="test_full_copy_plain[bfloat16-float]"><failure message="AssertionError: Tensor-likes are not close!">tb</failure></testcase>
<testcase classname="{G2L1}" name="test_full_copy_plain[float16-float]"><failure message="AssertionError: Tensor-likes are not close!">tb</failure></testcase>
</testsuite></testsuites>
"""


def run(*flags):
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        f.write(XML)
    out = io.StringIO()
    try:
        argv = ["upstream_report.py", *flags, f.name]
        with mock.patch.object(sys, "argv", argv), contextlib.redirect_stdout(out):
            report.main()
    finally:
        os.unlink(f.name)
    return out.getvalue()


class UpstreamReportTest(unittest.TestCase):
    def test_counts_and_pass_rate(self):
        text = run()
        self.assertIn("pass rate: 2/11 collected cases = 18.2%", text)
        self.assertRegex(text, r"elementwise.py\s+2\s+5\s+0\s+1\n")
        self.assertIn("test_tilelang_ascend_language_elementwise.py::test_new: failure: KeyError",
                      text)

    def test_causes_group_cases_and_leave_excluded_ones_out_of_the_rate(self):
        text = run("--causes", CAUSES)
        self.assertIn("missing 3, out-of-scope 1, environment 1, unclassified 3", text)
        # 11 collected, 1 out of scope and 1 dynamic-shape case excluded.
        self.assertIn("without out-of-scope and dynamic-shape cases: 2/9 = 22.2%", text)
        self.assertIn("[missing #14] T.tile.sort: 2\n    elementwise::test_sort (2)", text)
        self.assertIn("[missing #15] T.symbolic dimensions: 1\n    parallel::test_dyn", text)
        self.assertIn("[out-of-scope] TVM internals (tvm.tir.decl_buffer): 1", text)
        self.assertIn("[unclassified] KeyError: something nobody has seen: 1", text)
        # A rule with `case` covers only the cases it names: the same message elsewhere is
        # unclassified.
        self.assertRegex(text, r"\[environment\] the test's torch reference multiplies bfloat16 "
                         r"[^\n]*: 1\n    gm_to_l1::test_full_copy_plain\n")
        self.assertIn("[unclassified] AssertionError: Tensor-likes are not close!: 1", text)

    def test_markdown_escapes_table_cells(self):
        text = run("--causes", CAUSES, "--markdown")
        self.assertIn("| T.tile.sort | missing | 14 | 2 | elementwise::test_sort (2) |", text)
        self.assertIn("| **total** | 2 | 8 | 0 | 1 |", text)
        # A message no rule matches (bitwise operators on runtime values are supported now).
        self.assertIn("operator '\\|' is not supported on runtime values | unclassified |", text)

    def test_every_rule_of_the_project_file_is_well_formed(self):
        causes = report.load_causes(CAUSES)
        self.assertGreater(len(causes), 10)
        for cause in causes:
            self.assertIn(cause.category, report.CATEGORIES)
            if cause.category == "missing":
                self.assertIn(cause.issue, (14, 15), cause.feature)


if __name__ == "__main__":
    unittest.main()
