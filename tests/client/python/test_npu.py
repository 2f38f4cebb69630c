# SPDX-License-Identifier: Apache-2.0
"""tilejit.npu: the simulated device as torch's `npu` on Debian's torch 1.13 (CPU build).

install() patches torch for the whole process, as a script's `import torch_npu` would; the
tests of plain-CPU behaviour run after it on purpose. The `import torch_npu` test runs a fresh
interpreter.
"""

import os
import pickle
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import tilejit.npu as tnpu

pytestmark = pytest.mark.timeout(60)

tnpu.install()

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "..", "client", "python"))


def is_npu(t):
    return isinstance(t, tnpu.NpuTensor) and t.device.type == "npu"


# ---- factories -----------------------------------------------------------------------------

FACTORIES = {
    "empty": lambda d: torch.empty(2, 3, device=d),
    "zeros": lambda d: torch.zeros(2, 3, device=d),
    "ones": lambda d: torch.ones(2, 3, dtype=torch.float16, device=d),
    "full": lambda d: torch.full((2, 3), 7.0, device=d),
    "rand": lambda d: torch.rand(2, 3, device=d),
    "randn": lambda d: torch.randn(2, 3, dtype=torch.float16, device=d),
    "randint": lambda d: torch.randint(0, 10, (2, 3), device=d),
    "randperm": lambda d: torch.randperm(5, device=d),
    "arange": lambda d: torch.arange(6, device=d),
    "linspace": lambda d: torch.linspace(0, 1, 5, device=d),
    "eye": lambda d: torch.eye(3, device=d),
    "tensor": lambda d: torch.tensor([1.0, 2.0], device=d),
    "as_tensor": lambda d: torch.as_tensor([1, 2, 3], device=d),
    "empty_strided": lambda d: torch.empty_strided((2, 3), (3, 1), device=d),
    "zeros_like": lambda d: torch.zeros_like(torch.ones(2, 3), device=d),
    "ones_like": lambda d: torch.ones_like(torch.ones(2, 3), device=d),
    "full_like": lambda d: torch.full_like(torch.ones(2, 3), 2.0, device=d),
    "randn_like": lambda d: torch.randn_like(torch.ones(2, 3), device=d),
    "empty_like": lambda d: torch.empty_like(torch.ones(2, 3), device=d),
}
DEVICE_SPELLINGS = ["npu", "npu:0", 0]


@pytest.mark.parametrize("name", sorted(FACTORIES))
@pytest.mark.parametrize("spelling", DEVICE_SPELLINGS, ids=str)
def test_factory_on_npu(name, spelling):
    t = FACTORIES[name](spelling)
    assert is_npu(t), (name, type(t))
    assert str(t.device) == "npu:0"


def test_factory_device_object_and_values():
    d = torch.device("npu")
    t = torch.full((2, 2), 3.0, device=d)
    assert is_npu(t) and t.cpu().tolist() == [[3.0, 3.0], [3.0, 3.0]]
    u = torch.zeros(3, device=t.device)  # the pattern device=x.device
    assert is_npu(u)
    with pytest.raises(RuntimeError, match="npu:1"):
        torch.zeros(2, device="npu:1")


def test_factory_requires_grad_gives_leaf():
    t = torch.randn(4, device="npu", requires_grad=True)
    assert t.is_leaf and t.requires_grad
    (t * 2).sum().backward()
    assert is_npu(t.grad)
    assert torch.equal(t.grad.cpu(), torch.full((4,), 2.0))


def test_as_tensor_copies_onto_npu():
    src = torch.zeros(3)
    t = torch.as_tensor(src, device="npu")
    t.fill_(1.0)
    assert src.tolist() == [0.0, 0.0, 0.0]


def test_new_methods_accept_npu():
    base = torch.ones(2)
    assert is_npu(base.new_zeros(3, device="npu"))
    assert is_npu(base.npu().new_ones(3))
    assert not is_npu(base.npu().new_ones(3, device="cpu"))


# ---- moving between devices ----------------------------------------------------------------

def test_npu_and_cpu_round_trip():
    c = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    n = c.npu()
    assert is_npu(n) and n.data_ptr() != c.data_ptr()
    assert n.npu() is n
    back = n.cpu()
    assert type(back) is torch.Tensor and back.device.type == "cpu"
    assert back.data_ptr() != n.data_ptr()
    assert torch.equal(back, c)


@pytest.mark.parametrize("how", [
    lambda t: t.to("npu"), lambda t: t.to("npu:0"), lambda t: t.to(device="npu"),
    lambda t: t.to(torch.device("npu")), lambda t: t.to(torch.device("npu", 0)),
    lambda t: t.to(0), lambda t: t.npu(0), lambda t: t.to(torch.empty(1, device="npu")),
], ids=["str", "str0", "kw", "device", "device_index", "int", "npu0", "like"])
def test_to_npu_spellings(how):
    c = torch.ones(3)
    n = how(c)
    assert is_npu(n) and n.data_ptr() != c.data_ptr()
    assert torch.equal(n.cpu(), c)


def test_to_with_dtype_and_back():
    n = torch.ones(3).to("npu", torch.float16)
    assert is_npu(n) and n.dtype == torch.float16
    m = n.to(dtype=torch.float32)
    assert is_npu(m) and m.dtype == torch.float32
    assert n.to("npu") is n
    assert n.to("npu", copy=True) is not n
    c = n.to("cpu")
    assert type(c) is torch.Tensor and c.dtype == torch.float16
    c2 = n.to(torch.device("cpu"), torch.float32)
    assert type(c2) is torch.Tensor and c2.dtype == torch.float32


def test_writes_through_data_ptr_are_seen():
    import ctypes

    n = torch.zeros(4, dtype=torch.int32, device="npu")
    arr = (ctypes.c_int32 * 4).from_address(n.data_ptr())
    arr[2] = 42
    assert n.cpu().tolist() == [0, 0, 42, 0]


# ---- device reporting ------------------------------------------------------------------------

def test_device_reporting():
    n = torch.ones(2).npu()
    assert n.device.type == "npu" and n.device.index == 0
    assert str(n.device) == "npu:0"
    assert repr(n.device) == "device(type='npu', index=0)"
    assert n.device == torch.device("npu:0") and n.device != torch.device("npu")
    assert n.is_npu and not n.is_cpu and not torch.ones(1).is_npu
    assert n.get_device() == 0
    assert isinstance(n.device, torch.device)
    assert "device='npu:0'" in repr(n) and repr(n).startswith("tensor(")
    assert (n + 1).device.type == "npu"
    assert n[0].device.type == "npu" and n.view(2, 1).device.type == "npu"


def test_autograd_identity_on_npu():
    x = torch.ones(3, device="npu", requires_grad=True)
    y = x * 2
    assert type(y.grad_fn).__name__ == "MulBackward0"  # no alias node in between
    y.sum().backward()
    assert x.grad is x.grad and is_npu(x.grad)
    c = torch.ones(2)
    v = tnpu.to_npu(c)  # the public view helper leaves its argument alone
    assert type(c) is torch.Tensor and is_npu(v) and v.data_ptr() == c.data_ptr()
    kept = torch.ones(3)
    r = kept.copy_(torch.zeros(3, device="npu"))  # returns its (cpu) self: stays cpu
    assert r is kept and type(kept) is torch.Tensor and kept.tolist() == [0.0, 0.0, 0.0]


def test_torch_device_parsing():
    assert str(torch.device("npu")) == "npu"
    assert str(torch.device("npu", 0)) == "npu:0"
    assert torch.device(type="npu", index=0) == torch.device("npu:0")
    assert torch.device(type="cpu") == torch.device("cpu")
    assert torch.device(torch.device("npu:0")) == torch.device("npu:0")
    cpu = torch.device("cpu")
    assert type(cpu) is torch._C.device and cpu.type == "cpu"
    with pytest.raises(RuntimeError):
        torch.device("npu:x")
    for d in (cpu, torch.device("npu:0")):
        assert pickle.loads(pickle.dumps(d)) == d


def test_numpy_refused_like_torch_npu():
    n = torch.ones(2).npu()
    with pytest.raises(TypeError, match="Use Tensor.cpu"):
        n.numpy()
    assert n.cpu().numpy().tolist() == [1.0, 1.0]
    assert n.tolist() == [1.0, 1.0] and n.sum().item() == 2.0


def test_device_mismatch_is_an_error():
    n = torch.ones(3).npu()
    with pytest.raises(RuntimeError, match="npu:0 and cpu"):
        n + torch.ones(3)
    with pytest.raises(RuntimeError, match="same device"):
        torch.matmul(torch.ones(3, 3), n.reshape(3, 1).expand(3, 3))
    # 0-dim cpu tensors act as scalars; copies and cpu indices cross devices.
    assert is_npu(n * torch.tensor(2.0))
    n.copy_(torch.full((3,), 5.0))
    assert n.cpu().tolist() == [5.0, 5.0, 5.0]
    assert n[torch.tensor([0, 2])].cpu().tolist() == [5.0, 5.0]


def test_save_and_load_keep_the_device(tmp_path):
    n = torch.arange(4.0).npu()
    path = tmp_path / "t.pt"
    torch.save({"x": n}, path)
    loaded = torch.load(path)["x"]
    assert is_npu(loaded) and torch.equal(loaded.cpu(), n.cpu())


def test_deepcopy():
    import copy

    n = torch.arange(3.0).npu()
    c = copy.deepcopy(n)
    assert is_npu(c) and c.data_ptr() != n.data_ptr() and torch.equal(c.cpu(), n.cpu())


# ---- float16 on the npu: computed in float32 where CPU torch lacks a Half kernel -----------

def _pos(t):
    return t.abs() + 0.5


HALF_OPS = {
    "exp": torch.exp, "log": lambda t: torch.log(_pos(t)), "sqrt": lambda t: _pos(t).sqrt(),
    "rsqrt": lambda t: torch.rsqrt(_pos(t)), "sin": torch.sin, "cos": torch.cos,
    "tanh": torch.tanh, "sigmoid": torch.sigmoid, "silu": F.silu, "gelu": F.gelu,
    "gelu_tanh": lambda t: F.gelu(t, approximate="tanh"), "relu": torch.relu,
    "clamp": lambda t: t.clamp(-0.5, 0.5), "clamp_min": lambda t: t.clamp(min=0.1),
    "round": lambda t: torch.round(t * 4), "floor": torch.floor, "ceil": torch.ceil,
    "softmax": lambda t: torch.softmax(t, -1), "softmax_dim0": lambda t: F.softmax(t, dim=0),
    "log_softmax": lambda t: torch.log_softmax(t, -1),
    "layer_norm": lambda t: F.layer_norm(t, t.shape[-1:]),
    "topk": lambda t: torch.topk(t, 3, dim=-1), "sort": lambda t: torch.sort(t, -1),
    "matmul": lambda t: t @ t.transpose(-1, -2), "mm": lambda t: torch.mm(t, t.t()),
    "bmm": lambda t: torch.bmm(t[None], t.t()[None]),
    "einsum": lambda t: torch.einsum("ik,jk->ij", t, t), "linear": lambda t: F.linear(t, t),
    "sum_dim": lambda t: t.sum(-1), "mean_dim": lambda t: t.mean(0),
    "max_dim": lambda t: t.max(-1), "amax": lambda t: t.amax(-1), "min_all": torch.min,
    "cumsum": lambda t: torch.cumsum(t, -1), "pow": lambda t: t.pow(2),
    "pow_tensor": lambda t: torch.pow(_pos(t), t), "erf": torch.erf,
    "where": lambda t: torch.where(t > 0, t, t * 2),
    "masked_fill": lambda t: t.masked_fill(t > 0, -1.0), "logsumexp": lambda t: t.logsumexp(-1),
    "prod": lambda t: t.prod(-1), "var": lambda t: t.var(-1), "leaky_relu": F.leaky_relu,
    "softplus": F.softplus, "hardswish": F.hardswish, "atan2": lambda t: torch.atan2(t, _pos(t)),
    "lerp": lambda t: torch.lerp(t, t * 2, 0.25), "addcmul": lambda t: torch.addcmul(t, t, t),
    "baddbmm": lambda t: torch.baddbmm(t[None], t[None], t.t()[None]),
    "rms_norm": lambda t: t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + 1e-6),
    "cross_entropy": lambda t: F.cross_entropy(t, torch.arange(t.shape[0], device=t.device) % t.shape[1]),
}


def _check_like_float32(name, got, want):
    if isinstance(want, torch.Tensor):
        assert is_npu(got), (name, type(got))
        if want.is_floating_point():
            assert got.dtype == torch.float16, (name, got.dtype)
            torch.testing.assert_close(got.cpu(), want.half(), rtol=1e-3, atol=1e-3)
        else:
            assert torch.equal(got.cpu(), want), name
        return
    assert len(got) == len(want), name
    for g, w in zip(got, want):
        _check_like_float32(name, g, w)


@pytest.mark.parametrize("name", sorted(HALF_OPS))
def test_half_op_equals_float32_then_round(name):
    torch.manual_seed(0)
    x32 = torch.randn(8, 8)
    x16 = x32.half()
    x_npu = x16.npu()
    op = HALF_OPS[name]
    got = op(x_npu)
    want = op(x16.float())  # the same float16 inputs, computed in float32
    _check_like_float32(name, got, want)


def test_half_ops_fail_on_plain_cpu():
    # Shows what the fallback is for: these ops are missing on CPU torch 1.13 in float16.
    with pytest.raises(RuntimeError, match="not implemented for 'Half'"):
        torch.exp(torch.ones(2, dtype=torch.float16))


def test_half_fallback_in_place_and_out():
    x = torch.randn(16).half()
    n = x.npu()
    r = n.exp_()
    assert r is n and n.dtype == torch.float16
    torch.testing.assert_close(n.cpu(), x.float().exp().half())
    m = x.npu()
    F.relu(m, inplace=True)
    torch.testing.assert_close(m.cpu(), x.float().relu().half())
    out = torch.empty(16, dtype=torch.float16, device="npu")
    r = torch.sigmoid(x.npu(), out=out)
    assert r is out
    torch.testing.assert_close(out.cpu(), x.float().sigmoid().half())
    c = x.npu()
    c.clamp_(-0.1, 0.1)
    assert c.cpu().abs().max().item() <= 0.1


def test_half_fallback_keeps_requested_float32():
    x = torch.randn(4, 4).half().npu()
    y = torch.softmax(x, -1, dtype=torch.float32)
    assert y.dtype == torch.float32 and is_npu(y)
    z = torch.softmax(x.float(), -1).half()  # the tests' reference idiom
    torch.testing.assert_close(torch.softmax(x, -1), z)


def test_half_fallback_autograd():
    x = torch.randn(8, dtype=torch.float16, device="npu", requires_grad=True)
    torch.sigmoid(x).sum().backward()
    assert is_npu(x.grad) and x.grad.dtype == torch.float16
    s = torch.sigmoid(x.detach().cpu().float())
    torch.testing.assert_close(x.grad.cpu(), (s * (1 - s)).half())


def test_bfloat16_and_float32_stay_exact():
    x = torch.randn(4, 4)
    torch.testing.assert_close(torch.exp(x.npu()).cpu(), torch.exp(x), rtol=0, atol=0)
    b = torch.cumprod(x.bfloat16().npu(), -1)
    assert b.dtype == torch.bfloat16 and is_npu(b)


def test_half_dropout_keeps_dtype():
    x = torch.ones(1000, dtype=torch.float16, device="npu")
    y = F.dropout(x, 0.5, training=True)
    assert is_npu(y) and y.dtype == torch.float16
    vals = set(y.cpu().float().unique().tolist())
    assert vals <= {0.0, 2.0} and len(vals) == 2


def test_other_errors_are_not_swallowed():
    a = torch.ones(2, 3, dtype=torch.float16, device="npu")
    with pytest.raises(RuntimeError, match="shapes cannot be multiplied"):
        a @ a


# ---- torch.npu ------------------------------------------------------------------------------

def test_torch_npu_namespace():
    import torch.npu as tn  # importable as a module too

    assert tn is torch.npu
    assert torch.npu.is_available() and torch.npu.device_count() == 1
    torch.npu.set_device(0)
    torch.npu.set_device("npu:0")
    torch.npu.set_device(torch.device("npu"))
    with pytest.raises(RuntimeError, match="npu:1"):
        torch.npu.set_device(1)
    assert torch.npu.current_device() == 0
    assert "910B" in torch.npu.get_device_name(0).upper()
    props = torch.npu.get_device_properties("npu")
    assert props.name == "Ascend910B2" and props.cube_core_num == 24
    assert props.vector_core_num == 48 and props.total_memory == 64 << 30
    assert props.multi_processor_count > 0 and props.l2_cache_size == 192 << 20
    torch.npu.synchronize()
    torch.npu.empty_cache()
    torch.npu.manual_seed(3)
    a = torch.randn(4, device="npu")
    torch.npu.manual_seed_all(3)
    assert torch.equal(torch.randn(4, device="npu").cpu(), a.cpu())


def test_config_flags():
    torch.npu.config.allow_internal_format = True
    assert torch.npu.config.allow_internal_format is True
    torch.npu.config.allow_internal_format = False
    torch.npu.matmul.allow_hf32 = True
    with pytest.raises(AttributeError, match="not supported on the simulated npu"):
        torch.npu.config.no_such_flag = 1


def test_unsupported_api_is_named():
    with pytest.raises(AttributeError, match="torch.npu.NPUGraph is not supported"):
        torch.npu.NPUGraph()
    assert not hasattr(torch.npu, "graph")


def test_event_timing_and_streams():
    import time

    start = torch.npu.Event(enable_timing=True)
    end = torch.npu.Event(enable_timing=True)
    start.record()
    time.sleep(0.02)
    end.record()
    end.synchronize()
    ms = start.elapsed_time(end)
    assert 15.0 <= ms < 2000.0
    assert start.query()
    untimed = torch.npu.Event()
    untimed.record()
    with pytest.raises(RuntimeError, match="enable_timing"):
        untimed.elapsed_time(end)
    with pytest.raises(RuntimeError, match="recorded"):
        torch.npu.Event(enable_timing=True).elapsed_time(end)
    s = torch.npu.current_stream()
    s.synchronize()
    assert s.query() and s == torch.npu.default_stream() and s._as_parameter_.value is None
    with torch.npu.stream(torch.npu.Stream()):
        pass
    assert s.record_event().query()


def test_memory_allocated_counts_npu_tensors():
    import gc

    gc.collect()
    before = torch.npu.memory_allocated()
    t = torch.empty(1 << 20, dtype=torch.uint8, device="npu")
    view = t[10:]
    assert torch.npu.memory_allocated() == before + (1 << 20)
    assert torch.npu.max_memory_allocated() >= before + (1 << 20)
    del t, view
    gc.collect()
    assert torch.npu.memory_allocated() == before
    lin = torch.nn.Linear(256, 256, bias=False).npu()
    assert torch.npu.memory_allocated() == before + 256 * 256 * 4
    lin.cpu()
    assert torch.npu.memory_allocated() == before


# ---- default device, dtypes, modules ----------------------------------------------------------

def test_set_default_device():
    try:
        torch.set_default_device("npu")
        assert str(torch.get_default_device()) == "npu:0"
        assert is_npu(torch.randn(3)) and is_npu(torch.tensor([1, 2])) and is_npu(torch.arange(3))
        assert not is_npu(torch.zeros(2, device="cpu"))
        assert not is_npu(torch.zeros_like(torch.ones(2, device="cpu")))
        lin = torch.nn.Linear(4, 2)  # parameters made while npu is the default
        assert is_npu(lin.weight) and isinstance(lin.weight, torch.nn.Parameter)
        assert is_npu(lin(torch.randn(3, 4)))
    finally:
        torch.set_default_device("cpu")
    assert not is_npu(torch.randn(3))
    assert torch.get_default_device() == torch.device("cpu")
    with pytest.raises(RuntimeError, match="only 'npu' and 'cpu'"):
        torch.set_default_device("cuda")


def test_unsigned_dtypes():
    assert torch.uint16 is torch.int16 and torch.uint32 is torch.int32
    t = torch.tensor([1, 2, 3], dtype=torch.uint16, device="npu")
    assert t.dtype.itemsize if hasattr(t.dtype, "itemsize") else t.element_size() == 2
    assert t.element_size() == 2 and torch.tensor([1], dtype=torch.uint32).element_size() == 4
    bits = torch.tensor([0x3C00], dtype=torch.uint16).view(torch.float16)
    assert bits.item() == 1.0


def test_module_npu_and_training_step():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8),
                                torch.nn.ReLU(), torch.nn.Linear(8, 1))
    params = list(model.parameters())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    assert model.npu() is model
    assert all(is_npu(p) and isinstance(p, torch.nn.Parameter) for p in model.parameters())
    assert [id(p) for p in model.parameters()] == [id(p) for p in params]
    assert is_npu(model[1].running_mean)
    x = torch.randn(16, 4).npu()
    before = model[0].weight.detach().cpu()
    loss = model(x).pow(2).mean()
    loss.backward()
    assert is_npu(model[0].weight.grad)
    opt.step()
    assert not torch.equal(model[0].weight.detach().cpu(), before)
    model.half()
    assert model[0].weight.dtype == torch.float16 and is_npu(model[0].weight)
    assert model(x.half()).dtype == torch.float16
    assert repr(model[0].weight).startswith("Parameter containing:\ntensor(")
    assert "device='npu:0'" in repr(model[0].weight)
    model.cpu()
    assert all(type(p) is torch.nn.Parameter for p in model.parameters())
    assert type(model[0].weight.grad) is torch.Tensor
    assert model[1].running_mean.device.type == "cpu"
    model.to("npu:0")
    assert is_npu(model[3].bias)
    model.to(torch.device("cpu"))
    assert model[3].bias.device.type == "cpu"


# ---- plain CPU torch is unchanged -----------------------------------------------------------

def test_plain_cpu_behaviour_unchanged():
    c = torch.randn(3, 3)
    assert type(c) is torch.Tensor and c.device == torch.device("cpu")
    assert type(c + 1) is torch.Tensor and type(torch.zeros(2)) is torch.Tensor
    assert type(c.to(torch.float64)) is torch.Tensor and c.to("cpu") is c
    assert type(torch.tensor([1.0], device="cpu")) is torch.Tensor
    with pytest.raises(RuntimeError, match="not implemented for 'Half'"):
        torch.exp(c.half())  # no fallback for cpu tensors
    p = torch.nn.Parameter(torch.ones(2))
    assert type(p) is torch.nn.Parameter
    m = torch.nn.Linear(2, 2).to(torch.float64)
    assert m.weight.dtype == torch.float64 and type(m.weight) is torch.nn.Parameter
    assert torch.from_numpy(c.numpy()).data_ptr() == c.data_ptr()
    assert torch.as_tensor(c) is c
    assert torch.device("cpu") == torch.device("cpu", None) and isinstance(c.device, torch.device)

    @torch.jit.script
    def scripted(x: torch.Tensor, d: torch.device) -> torch.Tensor:
        return x.to(d) * 2

    assert torch.equal(scripted(torch.ones(2), torch.device("cpu")), torch.full((2,), 2.0))


def test_install_is_idempotent():
    empty = torch.empty
    ns = torch.npu
    dev = torch.device
    tnpu.install()
    assert torch.empty is empty and torch.npu is ns and torch.device is dev


# ---- import torch_npu ----------------------------------------------------------------------

def test_import_torch_npu_installs():
    compat = os.path.join(PYTHON_DIR, "compat")
    code = (
        "import torch, torch_npu\n"
        "a = torch.randn(4, 4).half().npu()\n"
        "b = torch.softmax(a, -1)\n"
        "assert b.device.type == 'npu' and b.dtype == torch.float16\n"
        "torch.npu.synchronize()\n"
        "assert torch_npu.npu is torch.npu\n"
        "try:\n"
        "    torch_npu.npu_rotary_mul\n"
        "except AttributeError as e:\n"
        "    assert 'not supported on the simulated npu' in str(e)\n"
        "else:\n"
        "    raise SystemExit('npu_rotary_mul exists')\n"
        "print('ok')\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = compat  # the shim finds tilejit next to compat/ by itself
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=50)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# ---- the idioms of Ascend test scripts, end to end ------------------------------------------

def test_ascend_script_idioms():
    torch.set_default_device("npu")
    try:
        torch.npu.set_device(0)
        a = torch.randn(32, 16).half()
        b = torch.randn(16, 48, dtype=torch.float16)
        c = torch.empty(32, 48, dtype=torch.float16)
        c.copy_(a @ b)  # stands in for a kernel writing its output
        ref = (a.float() @ b.float()).half()
        torch.npu.synchronize()
        torch.testing.assert_close(c, ref, rtol=1e-2, atol=1e-2)
        torch.testing.assert_close(c.cpu(), ref.cpu(), rtol=1e-2, atol=1e-2)
        with pytest.raises(AssertionError, match="device"):
            torch.testing.assert_close(c, ref.cpu())  # as torch does across devices
        dev = torch.npu.current_device()
        assert is_npu(torch.randn(3, device=dev))
        assert f"{c.sum():.1f}" == f"{c.sum().item():.1f}"
        times = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float)
        q = torch.quantile(times, torch.tensor([0.5], dtype=torch.float)).tolist()
        assert q == [2.0]
        assert torch.cat([a, a]).shape == (64, 16) and is_npu(torch.stack([a, a]))
        assert all(is_npu(row) for row in a)
    finally:
        torch.set_default_device("cpu")


def test_load_with_npu_map_location(tmp_path):
    path = tmp_path / "ckpt.pt"
    torch.save({"w": torch.arange(3.0), "nested": [torch.ones(2)], "step": 7}, path)
    ck = torch.load(path, map_location="npu")
    assert is_npu(ck["w"]) and is_npu(ck["nested"][0]) and ck["step"] == 7
    ck = torch.load(path, map_location=torch.device("npu:0"))
    assert is_npu(ck["w"])
    torch.save({"w": torch.arange(3.0).npu()}, path)
    back = torch.load(path, map_location="cpu")["w"]
    assert type(back) is torch.Tensor and back.tolist() == [0.0, 1.0, 2.0]
    assert type(torch.load(path, map_location=lambda s, loc: s)["w"]) is tnpu.NpuTensor


def test_adam_training_with_clipping_and_state_dict():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(),
                                torch.nn.LayerNorm(16), torch.nn.Linear(16, 2)).npu()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x = torch.randn(32, 8, device="npu")
    y = torch.randint(0, 2, (32,), device="npu")
    losses = []
    for _ in range(15):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert all(is_npu(s["exp_avg"]) for s in opt.state.values())
    state = model.state_dict()
    assert all(is_npu(v) for v in state.values())
    copy_ = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(),
                                torch.nn.LayerNorm(16), torch.nn.Linear(16, 2))
    copy_.load_state_dict({k: v.cpu() for k, v in state.items()})
    assert torch.equal(copy_.npu()(x).cpu(), model(x).cpu())
