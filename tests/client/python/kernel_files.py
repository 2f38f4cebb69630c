# SPDX-License-Identifier: Apache-2.0
"""The shared kernel files as a user of the package runs them: cases.json's cases, inputs
made as cases.json says, reference.py's expected outputs, and a file imported as a module
(optionally with its import lines switched to tilejit's: the only change acceptance 1 allows).
"""
import importlib.util
import json
import os
import re
import sys

import numpy as np

_IMPORTS = ((re.compile(r"^import tilelang\.language as T$", re.M), "import tilejit.language as T"),
            (re.compile(r"^import tilelang$", re.M), "import tilejit as tilelang"))


def cases(folder):
    with open(os.path.join(folder, "cases.json")) as f:
        return json.load(f)["cases"]


def inputs_of(case):
    rng = np.random.default_rng(case["seed"])
    return [rng.standard_normal(i["shape"]).astype(i["dtype"]) for i in case["inputs"]]


def reference(folder, case, arrays):
    spec = importlib.util.spec_from_file_location("tilejit_reference",
                                                  os.path.join(folder, "reference.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, case["reference"])(*arrays)


def with_tilejit_imports(text):
    """The file with TileLang's import lines replaced by tilejit's (nothing else changes, so
    line numbers stay)."""
    for pattern, line in _IMPORTS:
        text = pattern.sub(line, text)
    return text


def load(path, name):
    """Imports the file at `path` as module `name` (fresh each time)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def line_of(text, needle):
    """1-based line of the first line containing `needle`."""
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not found")
