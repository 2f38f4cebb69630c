#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a C++ file includes a header of a layer it may not depend on (issue 12).

Every tracked *.cc / *.h file is mapped to a layer by its path (FILE_LAYERS, first match
wins); each of its #include lines is resolved to a file of the repository (from the top, then
beside the including file) or to generated code (GENERATED), and the included file's layer
must be the includer's own or one it may depend on: DEPENDS lists the direct dependencies,
and a layer may use everything they reach. Headers named *_internal.h are private to their
folder (and to the tests of that folder, tests/<folder>).

  python3 tools/check_layers.py [--root DIR]   (default: the repository holding this script)

Exit status: 0 clean, 1 violations (one line each: file:line, the include, both layers),
2 when the table itself is broken (an unknown layer, a cycle) or DIR is not a git work tree.
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys

# The library graph of DESIGN.md section 1, refined by the CMake libraries inside each part.
# Direct dependencies only; a layer may include every layer these reach.
DEPENDS = {
    "common": [],  # tilejit_common: the leaf (Status, diagnostics, hashing)
    "proto": [],  # tilejit_proto: generated wire types; proto/ holds only their traits header
    "target": ["common"],  # tilejit_target: the leaf the compiler shares with the runner
    "ir": ["target"],  # tilejit_ir: nodes, printer, parser, verifier
    "pass_config": ["common"],  # compiler/pass_config.*: config keys, read by frontend and passes
    "key": ["ir", "pass_config"],  # compiler/key.*: cache key over the IR hash and configs
    "syntax": ["common"],  # tilejit_syntax: tokenizer, parser, AST (no IR)
    "frontend": ["syntax", "key"],  # tilejit_frontend: evaluator and tracer; hashes the IR
    "analysis": ["ir"],  # tilejit_analysis: analyses shared by the passes
    "passes": ["analysis", "pass_config"],  # tilejit_passes: never codegen nor the cache key
    "codegen": ["ir"],  # tilejit_codegen: IR to ISA; never the passes
    "pipeline": ["passes"],  # compiler/pipeline.*: the pass table
    "compiler": ["pipeline", "frontend", "codegen"],  # compiler/compiler.*: the entry point
    "runner": ["target"],  # runner/*.{h,cc}: Device interface, npy, RunKernel; no compiler
    "runner/sim": ["runner"],  # runner/sim: the simulated NPU, one Device implementation
    "runner/tools": ["runner/sim"],  # runner/tools: tilejit-run
    "runner/runtime": ["runner/sim"],  # runner/runtime: libtilejit_runtime.so, the C ABI
    "cache": ["common"],  # tilejit_cache: stores by key, knows nothing of kernels
    "client": ["proto", "common"],  # tilejit_client: the C++ library over the stubs
    # the tilejit CLI; offline mode in-process; cache/export_format for `cache export/import`
    "cli": ["client", "compiler", "runner/sim", "cache"],
    "server": ["compiler", "runner/sim", "cache", "proto"],  # tilejitd: everything below
    "tests": None,  # None: may include anything (tests, benchmarks, fuzzers)
    "bench": None,
    "fuzz": None,
}

# Repository path -> layer; the first matching pattern wins (fnmatch: * also matches "/").
FILE_LAYERS = [
    ("common/*", "common"),
    ("proto/*", "proto"),
    ("compiler/target/*", "target"),
    ("compiler/ir/*", "ir"),
    ("compiler/pass_config.*", "pass_config"),
    ("compiler/key.*", "key"),
    # compiler/frontend/CMakeLists.txt: tilejit_syntax is these; the rest is tilejit_frontend.
    ("compiler/frontend/ast*", "syntax"),
    ("compiler/frontend/fstring.*", "syntax"),
    ("compiler/frontend/lexer*", "syntax"),
    ("compiler/frontend/parser*", "syntax"),
    ("compiler/frontend/string_literal.*", "syntax"),
    ("compiler/frontend/token.*", "syntax"),
    ("compiler/frontend/*", "frontend"),
    ("compiler/analysis/*", "analysis"),
    ("compiler/passes/*", "passes"),
    ("compiler/codegen/*", "codegen"),
    ("compiler/pipeline.*", "pipeline"),
    ("compiler/compiler.*", "compiler"),
    ("runner/sim/*", "runner/sim"),
    ("runner/tools/*", "runner/tools"),
    ("runner/runtime/*", "runner/runtime"),
    ("runner/*", "runner"),
    ("cache/*", "cache"),
    # client/CMakeLists.txt: tilejit_client is client.* and launch_text.*; the rest is the CLI.
    ("client/client.*", "client"),
    ("client/launch_text.*", "client"),
    ("client/*", "cli"),
    ("server/*", "server"),
    ("tests/*", "tests"),
    ("bench/*", "bench"),
    ("fuzz/*", "fuzz"),
]

# Quoted includes of files generated into the build tree -> the layer that generates them.
GENERATED = [
    ("tilejit/v1/*.pb.h", "proto"),  # proto/CMakeLists.txt
    ("grpc/health/v1/*.pb.h", "proto"),
    ("build_id.h", "compiler"),  # compiler/CMakeLists.txt, private to tilejit_compiler
]

# Quoted includes of third-party headers: not ours, not checked.
EXTERNAL = ["google/protobuf/*", "gmock/*", "gtest/*"]

SCANNED = ["*.cc", "*.h"]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def closure(layer, stack=()):
    """Every layer `layer` may include (itself included); raises ValueError on a cycle."""
    if layer not in DEPENDS:
        raise ValueError(f"unknown layer {layer!r}")
    if layer in stack:
        raise ValueError("cycle: " + " -> ".join(stack + (layer,)))
    reach = {layer}
    for dep in DEPENDS[layer] or []:
        reach |= closure(dep, stack + (layer,))
    return reach


def match(path, table):
    return next((layer for pattern, layer in table if fnmatch.fnmatchcase(path, pattern)), None)


def tracked_files(root):
    """Tracked and new (not ignored) files under root, as repository paths."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=root, check=True, capture_output=True, text=True).stdout
    return {p for p in out.splitlines() if os.path.isfile(os.path.join(root, p))}


def resolve(quote, include, includer, files):
    """The repository file an include names: from the top, else (quoted) from the includer's
    folder or one above it (tests add such folders to their include path)."""
    candidates = [include]
    folder = os.path.dirname(includer)
    while quote == '"' and folder:
        candidates.append(os.path.normpath(os.path.join(folder, include)))
        folder = os.path.dirname(folder)
    return next((c for c in candidates if c in files), None)


def is_internal_ok(header, includer):
    folder = os.path.dirname(header)
    return os.path.dirname(includer) in (folder, "tests/" + folder)


def included_layer(quote, include, includer, files):
    """(layer of the included file or None if third-party, problem text or None)."""
    header = resolve(quote, include, includer, files)
    if header is None:
        generated = match(include, GENERATED)
        known = quote == "<" or any(fnmatch.fnmatchcase(include, p) for p in EXTERNAL)
        if generated is None and not known:
            return None, "not a repository file nor a known header"
        return generated, None
    if header.endswith("_internal.h") and not is_internal_ok(header, includer):
        return None, f"internal to {os.path.dirname(header)}/"
    theirs = match(header, FILE_LAYERS)
    return theirs, None if theirs else f"{header} belongs to no layer"


def check_include(includer, quote, include, files, reach):
    """The problem with this include, or None. reach[layer]: the layers it may include."""
    own = match(includer, FILE_LAYERS)
    theirs, problem = included_layer(quote, include, includer, files)
    if problem or theirs is None or DEPENDS[own] is None or theirs in reach[own]:
        return problem
    allowed = ", ".join(sorted(reach[own] - {own}))
    return f"layer {own} may not include layer {theirs} ({own} may use: {allowed})"


def check_file(path, root, files, reach):
    """One line "file:line: #include "x": problem" per bad include of `path`."""
    problems = []
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            problem = m and check_include(path, m.group(1), m.group(2), files, reach)
            if problem:
                close = '"' if m.group(1) == '"' else ">"
                problems.append(f"{path}:{lineno}: #include {m.group(1)}{m.group(2)}{close}: "
                                f"{problem}")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    args = parser.parse_args(argv)
    try:
        reach = {layer: closure(layer) for layer in DEPENDS}
        files = tracked_files(args.root)
    except (ValueError, subprocess.CalledProcessError) as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    scanned = sorted(p for p in files if any(fnmatch.fnmatchcase(p, g) for g in SCANNED))
    problems = []
    for path in scanned:
        if match(path, FILE_LAYERS) is None:
            problems.append(f"{path}: belongs to no layer (add it to FILE_LAYERS)")
        else:
            problems += check_file(path, args.root, files, reach)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} layering problem(s) in {len(scanned)} files")
        return 1
    print(f"layers: {len(scanned)} C++ files, every include within its layer's dependencies")
    return 0


if __name__ == "__main__":
    sys.exit(main())
