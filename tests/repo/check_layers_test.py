#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/check_layers.py on small trees built here: a clean one passes, and each kind of
violation fails naming the offending file:line, the include and both layers."""
import contextlib
import importlib.util
import io
import os
import subprocess
import tempfile
import unittest
from unittest import mock

# The script runs in this process (its main() takes argv): one interpreter for every case.
_SPEC = importlib.util.spec_from_file_location(
    "check_layers", os.path.join(os.path.dirname(__file__), "..", "..", "tools", "check_layers.py"))
check_layers = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(check_layers)

# A tree whose includes all respect the layers (one file per layer that the cases touch).
CLEAN = {
    "common/status.h": "#pragma once\n#include <string>\n",
    "compiler/target/isa.h": '#include "common/status.h"\n',
    "compiler/ir/ir.h": '#include "compiler/target/isa.h"\n',
    "compiler/passes/pass.h": '#include "compiler/ir/ir.h"\n',
    "compiler/passes/lower_internal.h": '#include "compiler/passes/pass.h"\n',
    "compiler/passes/lower.cc": '#include "compiler/passes/lower_internal.h"\n',
    "compiler/codegen/emitter.h": '#include "compiler/ir/ir.h"\n',
    "compiler/compiler.h": '#include "compiler/codegen/emitter.h"\n',
    "runner/runner.cc": '#include "compiler/target/isa.h"\n',
    "client/client.h": '#include "tilejit/v1/tilejit.pb.h"\n#include "common/status.h"\n',
    "client/offline.cc": '#include "compiler/compiler.h"\n#include "client/client.h"\n',
    "tests/compiler/passes/util.h": '#include "compiler/codegen/emitter.h"\n',
    "tests/compiler/passes/lower_test.cc":
        '#include "gtest/gtest.h"\n#include "compiler/passes/lower_internal.h"\n'
        '#include "util.h"\n',
}


def run_check(files):
    """Writes `files` into a fresh git work tree and runs the check on it: (status, output)."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        subprocess.run(["git", "init", "-q", root], check=True)
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = check_layers.main(["--root", root])
        return status, out.getvalue()


def with_file(path, text):
    files = dict(CLEAN)
    files[path] = text
    return files


class CheckLayersTest(unittest.TestCase):
    def assert_fails_with(self, files, *expected):
        status, output = run_check(files)
        self.assertEqual(status, 1, output)
        for text in expected:
            self.assertIn(text, output)

    def test_clean_tree_passes(self):
        status, output = run_check(CLEAN)
        self.assertEqual(status, 0, output)
        self.assertIn(f"{len(CLEAN)} C++ files", output)

    def test_pass_including_codegen_fails(self):
        self.assert_fails_with(
            with_file("compiler/passes/foo.cc",
                      '#include "compiler/ir/ir.h"\n#include "compiler/codegen/emitter.h"\n'),
            'compiler/passes/foo.cc:2: #include "compiler/codegen/emitter.h"',
            "layer passes may not include layer codegen")

    def test_runner_including_ir_fails(self):
        files = with_file("runner/runner.cc", '#include "compiler/ir/ir.h"\n')
        files["runner/sim/core.cc"] = '\n#include "compiler/passes/pass.h"\n'
        self.assert_fails_with(files, "runner/runner.cc:1:", "layer runner may not include layer ir",
                               "runner/sim/core.cc:2:",
                               "layer runner/sim may not include layer passes")

    def test_client_library_including_compiler_fails(self):
        self.assert_fails_with(with_file("client/client.cc", '#include "compiler/compiler.h"\n'),
                               "client/client.cc:1:",
                               "layer client may not include layer compiler")

    def test_internal_header_outside_its_folder_fails(self):
        self.assert_fails_with(
            with_file("compiler/pipeline.cc", '#include "compiler/passes/lower_internal.h"\n'),
            "compiler/pipeline.cc:1:", "internal to compiler/passes/")

    def test_library_including_tests_fails(self):
        self.assert_fails_with(
            with_file("compiler/ir/ir.cc", '#include "tests/compiler/passes/util.h"\n'),
            "compiler/ir/ir.cc:1:", "layer ir may not include layer tests")

    def test_unknown_quoted_include_fails(self):
        self.assert_fails_with(with_file("common/status.cc", '#include "common/missing.h"\n'),
                               "common/status.cc:1:", "not a repository file nor a known header")

    def test_file_outside_every_layer_fails(self):
        self.assert_fails_with(with_file("tools/helper.cc", "int x;\n"),
                               "tools/helper.cc: belongs to no layer")

    def test_cycle_in_the_table_is_an_error(self):
        with mock.patch.dict(check_layers.DEPENDS, {"common": ["cache"]}):
            status, output = run_check(CLEAN)
        self.assertEqual(status, 2, output)
        self.assertIn("cycle: common -> cache -> common", output)


if __name__ == "__main__":
    unittest.main()
