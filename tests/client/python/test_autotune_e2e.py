# SPDX-License-Identifier: Apache-2.0
"""tilelang.autotune with a real tilejitd (issue 15): a GEMM's configurations are tuned by the
daemon's Tune (compiled, run in fast mode, checked against ref_prog), the choice is the
fastest correct configuration when each is compiled and launched on its own, the wrong one
and the one that does not fit are ruled out with their reasons, a second tuning of the same
question is answered from the daemon's decision cache without a simulation, and
TileLang-Ascend's own autotune example runs unchanged through the compatibility path.
"""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import COMPAT_DIR, HERE, ROOT

sys.path.insert(0, os.path.join(HERE, "userfiles"))

import tilejit as tilelang  # noqa: E402
import tune_gemm  # noqa: E402

pytestmark = pytest.mark.timeout(600)
UPSTREAM = os.environ.get("TILEJIT_UPSTREAM_DIR",
                          os.path.normpath(os.path.join(ROOT, "..", "upstream")))


def _tune_counters():
    """The daemon's Tune counters (StatsResponse.tune)."""
    from tilejit import _client, _wire
    pb, _ = _wire.modules()
    stats = _client.client().channel.unary_unary(
        "/tilejit.v1.TileJit/Stats", request_serializer=pb.StatsRequest.SerializeToString,
        response_deserializer=pb.StatsResponse.FromString)
    return dict(stats(pb.StatsRequest(), timeout=30).tune)


def _cycles_alone(matmul, config):
    """(cycles, correct) of one configuration compiled and launched by itself."""
    kernel = matmul.jit_fn(tune_gemm.M, tune_gemm.N, tune_gemm.K, **config)
    a, b = tune_gemm.supply_prog(kernel.params[:2])
    kernel.check_mode = "fast"
    c = kernel(a, b)
    ok = np.allclose(c.numpy().astype(np.float32),
                     tune_gemm.reference(a.numpy(), b.numpy()).astype(np.float32),
                     atol=1e-2, rtol=1e-2)
    return kernel.last_launch.cycles, ok


def test_tunes_to_the_fastest_correct_configuration(tilejitd):
    matmul = tune_gemm.make()
    kernel = matmul(tune_gemm.M, tune_gemm.N, tune_gemm.K)
    result = kernel.get_tuner_result()
    table = matmul.last_tune_table
    assert len(table) == len(tune_gemm.CONFIGS)
    assert table[3].reason.startswith("compile: "), table[3]
    assert table[2].reason.startswith("check: "), table[2]
    alone = {}
    for row in table:
        if row.compiled:
            alone[row.index] = _cycles_alone(matmul, tune_gemm.CONFIGS[row.index])
            assert alone[row.index][0] == row.cycles, row
    assert alone[2][1] is False and alone[2][0] < alone[1][0]  # wrong, and fastest
    correct = {i: cyc for i, (cyc, ok) in alone.items() if ok}
    best = min(correct, key=lambda i: (correct[i], i))
    assert result["config"] == tune_gemm.CONFIGS[best]
    assert result["latency"] == correct[best]
    assert result["from_cache"] is False
    assert kernel.config == result["config"] and kernel.latency == result["latency"]
    a, b = tune_gemm.supply_prog(kernel.params[:2])
    np.testing.assert_allclose(kernel(a, b).numpy().astype(np.float32),
                               tune_gemm.reference(a.numpy(), b.numpy()).astype(np.float32),
                               atol=1e-2, rtol=1e-2)
    assert matmul(tune_gemm.M, tune_gemm.N, tune_gemm.K) is kernel  # tuned once per call

    before = _tune_counters()
    again = tune_gemm.make()(tune_gemm.M, tune_gemm.N, tune_gemm.K)  # a new decorator
    assert again.get_tuner_result()["from_cache"] is True
    assert again.get_tuner_result()["config"] == result["config"]
    after = _tune_counters()
    assert after["simulations"] == before["simulations"]
    assert after["decisions_cached"] == before["decisions_cached"] + 1


def test_callable_configs_and_given_parameters_skip_tuning(tilejitd):
    seen = []

    def configs(args, kwargs):
        seen.append((args, kwargs))
        return tune_gemm.CONFIGS[:2]

    matmul = tune_gemm.make(configs)
    kernel = matmul(128, 128, 128)
    assert seen == [((128, 128, 128), ())]
    assert kernel.get_tuner_result()["config"] in tune_gemm.CONFIGS[:2]
    fixed = matmul(128, 128, 128, block_M=64, block_N=64, K_L1=64)
    with pytest.raises(ValueError, match="not available"):
        fixed.get_tuner_result()


def test_no_configuration_left_is_an_error_naming_each(tilejitd):
    matmul = tune_gemm.make([{"block_M": 256, "block_N": 256, "K_L1": 128},
                             {"block_M": 128, "block_N": 128, "K_L1": 64, "skip_k": 1}])
    with pytest.raises(tilelang.CompileError, match="no configuration") as e:
        matmul(256, 256, 256)
    assert "check: " in str(e.value) and "compile: " in str(e.value)


def test_decorator_misuse_is_refused_before_any_daemon_call():
    with pytest.raises(TypeError, match="configs="):
        tilelang.autotune()
    with pytest.raises(ValueError, match="with arguments"):
        tilelang.autotune(lambda: None)
    with pytest.raises(TypeError, match="above @tilelang.jit"):
        tilelang.autotune(configs=[{"a": 1}])(lambda M: None)
    for bad in ([], [{}], ["block_M=64"], lambda args, kwargs: []):
        with pytest.raises(ValueError, match="non-empty list of non-empty dicts"):
            tune_gemm.make(bad)(256, 256, 256)


EXAMPLES = [  # TileLang-Ascend examples that tune, their arguments, what they print at the end
    ("autotune/example_gemm_autotune.py", ["--m", "256", "--n", "256", "--k", "256"],
     "Test passed!"),
    ("blocksparse_gemm/example_blocksparse_gemm.py",
     ["--use_autotune", "--m", "256", "--n", "256", "--k", "256"], "Verification successful"),
]


@pytest.mark.skipif(not os.path.isdir(os.path.join(UPSTREAM, "examples", "autotune")),
                    reason="no TileLang-Ascend checkout (TILEJIT_UPSTREAM_DIR)")
@pytest.mark.parametrize("example,args,last", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_tilelang_ascend_autotune_examples_run_unchanged(tilejitd, tmp_path, example, args, last):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([COMPAT_DIR, env.get("PYTHONPATH", "")])
    r = subprocess.run([sys.executable, os.path.join(UPSTREAM, "examples", example), *args],
                       env=env, cwd=tmp_path, capture_output=True, text=True, timeout=500)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Best Config:" in r.stdout and last in r.stdout, r.stdout
    assert "'block_M'" in r.stdout
