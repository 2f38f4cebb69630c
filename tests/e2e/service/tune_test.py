# SPDX-License-Identifier: Apache-2.0
"""`tilejit tune` against a real tilejitd (issue 15).

- a GEMM's configurations from a file, with inputs and reference outputs from .npy files: the
  table has a row per configuration, the ones that do not fit on chip and the deliberately
  wrong one (skip_k=1) ruled out with their reasons, and the choice is the fastest of the rest;
- the same command again is answered from the decision cache: no simulation (metrics), and
  after a restart of the daemon too (the decisions' SQLite file);
- without inputs the daemon tunes on seeded random inputs; --json prints the TuneResponse;
- a configuration that is not K=V is a usage error;
- TileLang-Ascend's autotune examples (the GEMM and the block-sparse GEMM; when a checkout is
  there) tune through the CLI with the configurations of their own lists.

Environment: TILEJITD, TILEJIT_CLI, TILEJIT_UPSTREAM_DIR (default ../upstream).
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from daemon import Daemon  # noqa: E402

pytestmark = pytest.mark.timeout(600)
CLI = os.environ.get("TILEJIT_CLI", "build/client/tilejit")
ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
GEMM = os.path.join(ROOT, "tests", "testdata", "tune", "gemm_tune.py")
UPSTREAM = os.environ.get("TILEJIT_UPSTREAM_DIR", os.path.join(ROOT, "..", "upstream"))
CONFIGS = """# block sizes of gemm_tune.py
block_M=64,block_N=64,K_L1=64
block_M=128,block_N=128,K_L1=64
block_M=128,block_N=128,K_L1=64,skip_k=1
block_M=256,block_N=256,K_L1=128
block_M=64,block_N=128,K_L1=128
block_M=128,block_N=64,K_L1=64
block_M=256,block_N=256,K_L1=256
"""


def tune(daemon, *args):
    return subprocess.run([CLI, "--server", daemon.address, "tune", GEMM, "--entry", "matmul",
                           "--arg", "256", "--arg", "256", "--arg", "256", *args],
                          capture_output=True, text=True, timeout=500)


def rows(stdout):
    """{index: (cycles or None, result text)} of the table, and the chosen index."""
    table, best = {}, None
    for line in stdout.splitlines()[1:]:
        if line.startswith("best: "):
            best = int(line.split()[1])
            continue
        parts = line.split(None, 4)  # index, config (no spaces here), cycles, on-chip, result
        if len(parts) < 5 or not parts[0].lstrip("*").isdigit():
            continue
        cycles = parts[2]
        table[int(parts[0].lstrip("*"))] = (None if cycles == "-" else int(cycles), parts[4])
    return table, best


@pytest.fixture
def inputs(tmp_path):
    rng = np.random.default_rng(3)
    a = (rng.integers(-64, 65, (256, 256)) / 64).astype(np.float16)
    b = (rng.integers(-64, 65, (256, 256)) / 64).astype(np.float16)
    c = a.astype(np.float32) @ b.astype(np.float32)
    paths = [str(tmp_path / n) for n in ("a.npy", "b.npy", "c.npy")]
    for p, x in zip(paths, (a, b, c)):
        np.save(p, x)
    (tmp_path / "configs.txt").write_text(CONFIGS)
    return ["--configs", str(tmp_path / "configs.txt"), "--in", paths[0], "--in", paths[1],
            "--ref", paths[2]]


def test_tune_prints_the_table_and_the_fastest_correct_choice(tmp_path, inputs):
    with Daemon(tmp_path / "d", metrics=True) as d:
        r = tune(d, *inputs)
        assert r.returncode == 0, r.stdout + r.stderr
        table, best = rows(r.stdout)
        assert sorted(table) == list(range(7)), r.stdout
        assert table[2][1].startswith("check: "), r.stdout
        assert table[3][1].startswith("compile: ") and table[6][1].startswith("compile: ")
        assert table[2][0] < table[1][0]  # the wrong one was the fastest
        ok = {i: c for i, (c, what) in table.items() if what.startswith("ok")}
        assert best == min(ok, key=lambda i: (ok[i], i)), r.stdout
        assert "[cached decision]" not in r.stdout
        sims = d.scrape()["tilejit_tune_simulations_total"]
        assert sims == 5

        again = tune(d, *inputs)
        assert again.returncode == 0 and "[cached decision]" in again.stdout, again.stdout
        assert rows(again.stdout) == (table, best)
        m = d.scrape()
        assert m["tilejit_tune_simulations_total"] == sims
        assert m["tilejit_tune_decisions_cached_total"] == 1
    with Daemon(tmp_path / "d", metrics=True) as d:  # the decision survives a restart
        r = tune(d, *inputs)
        assert r.returncode == 0 and "[cached decision]" in r.stdout, r.stdout + r.stderr
        assert d.scrape()["tilejit_tune_simulations_total"] == 0


def test_tune_on_generated_inputs_as_json(tmp_path):
    with Daemon(tmp_path / "d") as d:
        r = tune(d, "--try", "block_M=64,block_N=64,K_L1=64", "--try",
                 "block_M=256,block_N=256,K_L1=256", "--seed", "5", "--json")
        assert r.returncode == 0, r.stdout + r.stderr
        out = json.loads(r.stdout)
        assert out["ok"] and out.get("best", 0) == 0
        cands = out["candidates"]
        assert cands[0]["ran"] and not cands[0].get("checked", False)
        assert cands[1]["reason"].startswith("compile: ")
        bad = tune(d, "--try", "block_M")
        assert bad.returncode == 2 and "K=V" in bad.stderr
        none_left = tune(d, "--try", "block_M=256,block_N=256,K_L1=256")
        assert none_left.returncode == 1 and "no choice" in none_left.stdout


EXAMPLES = [  # TileLang-Ascend examples that tune: file, entry, configurations from their lists
    ("autotune/example_gemm_autotune.py", "matmul",
     ["block_M=128,block_N=128,K_L1=64", "block_M=256,block_N=128,K_L1=64",
      "block_M=128,block_N=256,K_L1=64"]),
    ("blocksparse_gemm/example_blocksparse_gemm.py", "blocksparse_matmul",
     ["block_M=64,block_N=64,block_K=32", "block_M=128,block_N=128,block_K=64",
      "block_M=256,block_N=256,block_K=64"]),
]


@pytest.mark.skipif(not os.path.isdir(os.path.join(UPSTREAM, "examples", "autotune")),
                    reason="no TileLang-Ascend checkout (TILEJIT_UPSTREAM_DIR)")
@pytest.mark.parametrize("example,entry,tries", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_tilelang_ascend_autotune_examples_through_the_cli(tmp_path, example, entry, tries):
    path = os.path.join(UPSTREAM, "examples", example)
    with Daemon(tmp_path / "d") as d:
        args = [CLI, "--server", d.address, "tune", path, "--entry", entry]
        for a in ("256", "256", "256"):
            args += ["--arg", a]
        for t in tries:
            args += ["--try", t]
        r = subprocess.run(args, capture_output=True, text=True, timeout=500)
        assert r.returncode == 0, r.stdout + r.stderr
        table, best = rows(r.stdout)
        assert len(table) == len(tries) and best in table and table[best][0] is not None
