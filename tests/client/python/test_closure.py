# SPDX-License-Identifier: Apache-2.0
"""The closure encoder (tilejit._closure), the request it makes (tilejit._wire) and the
host-side T namespace, without a daemon: what each kind of value is sent as, where functions
are found in their files, and when the request (the memo key) changes.
"""
import enum
import math
import os
import sys

import numpy as np
import pytest
import torch

import tilejit as tilelang
import tilejit.language as T
from tilejit import _closure, _jit, _localcache, _wire

pytestmark = pytest.mark.timeout(60)
THIS = os.path.abspath(__file__)
TEXT = open(THIS).read()


def _pos(needle, nth=0):
    """1-based (line, column) of the nth occurrence of `needle` in this file."""
    at = -1
    for _ in range(nth + 1):
        at = TEXT.index(needle, at + 1)
    line = TEXT.count("\n", 0, at) + 1
    return line, at - (TEXT.rfind("\n", 0, at) + 1) + 1


def value(v):
    return _closure.Encoder().value(v, "x", "test")


class Color(enum.IntEnum):
    RED = 3


class Name(str, enum.Enum):
    A = "a"


# ---- values ----------------------------------------------------------------------------------

def test_constants_are_exactly_typed():
    assert value(True) == ("b", True) and value(1) == ("i", 1)
    assert value(1.0) == ("f", (1.0).hex()) and value(1.0) != value(1)
    assert value(0.0) != value(-0.0)
    assert value(None) == ("n",) and value("float16") == ("s", "float16")
    assert value([1, (2.5, "x")]) == ("l", (("i", 1), ("t", (("f", (2.5).hex()), ("s", "x")))))
    assert value({"k": [True]}) == ("d", ((("s", "k"), ("l", (("b", True),))),))


def test_enums_numpy_and_dtypes_become_plain_values():
    assert value(Color.RED) == ("i", 3) and value(Name.A) == ("s", "a")
    assert value(tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC) == ("s", "tl.ascend_auto_sync")
    assert value(np.int64(7)) == ("i", 7) and value(np.bool_(True)) == ("b", True)
    assert value(np.float32(0.5)) == ("f", (0.5).hex())
    for dtype in (np.dtype("float16"), np.float16, torch.float16, T.float16,
                  tilelang.DataType("float16"), "float16"):
        assert value(dtype) == ("s", "float16"), dtype
    assert value(torch.Size([2, 3])) == ("t", (("i", 2), ("i", 3)))


def test_builtins_modules_and_symbols_go_by_name():
    assert value(T.copy) == ("B", "T.copy") and value(T.tile.add) == ("B", "T.tile.add")
    assert value(T.ceildiv) == ("B", "T.ceildiv") and value(tilelang.cdiv) == ("B", "T.ceildiv")
    assert value(T.reduce_sum) == ("B", "T.reduce_sum")
    assert value(T) == ("m", "tilelang.language") and value(tilelang) == ("m", "tilelang")
    assert value(T.tile) == ("m", "tilelang.language.tile") and value(math) == ("m", "math")
    assert value(T.symbolic("M")) == ("S", "M")


def test_host_arithmetic_on_symbols_is_sent_as_expressions():
    m = T.symbolic("M")
    assert value(m // 2) == ("E", "//", (("S", "M"), ("i", 2)))
    assert value(128 - m * 2) == ("E", "-", (("i", 128), ("E", "*", (("S", "M"), ("i", 2)))))
    up = ("E", "+", (("S", "M"), ("i", 63)))
    assert value(T.ceildiv(m, 64)) == ("E", "//", (up, ("i", 64)))
    with pytest.raises(tilelang.DeviceOnlyError, match="bound when the kernel is launched"):
        int(m + 1)
    with pytest.raises(tilelang.DeviceOnlyError, match="T.symbolic"):
        m < 4  # noqa: B015
    with pytest.raises(TypeError):
        m + 0.5


@pytest.mark.parametrize("bad, what", [(np, "the module numpy"), (object(), "is a object"),
                                       (np.zeros(3), "is a numpy.ndarray"),
                                       ({1, 2}, "is a set"), (2 ** 70, "outside the 64-bit")])
def test_unsendable_values_name_the_variable_and_type(bad, what):
    with pytest.raises(tilelang.ClientValueError, match=f"'x' \\(read by 'test'\\) .*{what}"):
        value(bad)


def test_nesting_is_bounded():
    deep = []
    for _ in range(20):
        deep = [deep]
    with pytest.raises(tilelang.ClientValueError, match="nested more than 16 deep"):
        value(deep)


# ---- functions -------------------------------------------------------------------------------

def _deco(f):
    return f


GLOBAL_SCALE = 4


def factory(n, scale=2):
    double, triple = (lambda v: v * 2), (lambda v: v * 3)
    sizes = [n, n * 2]

    def rows(k):
        return k if k <= 4 else rows(k - 4)  # recursion

    @T.macro
    def fill(buf):
        T.tile.fill(buf, double(scale) + triple(GLOBAL_SCALE))

    @_deco
    @T.prim_func
    def main(A: T.Tensor((n, sizes[1]), "float")):
        with T.Kernel(1, is_npu=True) as (cid, vid):
            a = T.alloc_ub((rows(n), 64), "float")
            fill(a)
            for i in range(len(sizes)):
                T.copy(A, a)

    return main


def test_function_table_positions_and_closures():
    enc = _closure.encode(factory(8))
    assert [f.name for f in enc.files] == [THIS]
    table = {t[3].rpartition(".")[2]: (i, t) for i, t in enumerate(enc.table)}
    assert enc.table[0][4] == "PRIM_FUNC" and enc.table[0][3] == "factory.<locals>.main"
    assert enc.table[0][1:3] == _pos("def main(")  # the def, not its decorators
    closure = dict(enc.table[0][5])
    assert closure["n"] == ("i", 8) and closure["T"] == ("m", "tilelang.language")
    assert closure["sizes"] == ("l", (("i", 8), ("i", 16)))  # read by the body and annotation
    assert "range" not in closure and "len" not in closure  # Python's builtins: left out
    fill_index, fill = table["fill"]
    assert closure["fill"] == ("F", fill_index) and fill[4] == "MACRO"
    assert fill[1:3] == _pos("def fill(")
    rows_index, rows = table["rows"]
    assert dict(rows[5])["rows"] == ("F", rows_index)  # recursion by index, no copies
    fill_closure = dict(fill[5])
    assert fill_closure["GLOBAL_SCALE"] == ("i", 4) and fill_closure["scale"] == ("i", 2)
    lambdas = [t for t in enc.table if t[3].endswith("<lambda>")]
    assert [t[1:3] for t in lambdas] == [_pos("lambda v: v * 2"), _pos("lambda v: v * 3")]


def ping(n):
    return 0 if n == 0 else pong(n - 1)


def pong(n):
    return ping(n)


def test_mutual_recursion_uses_table_indices():
    @T.prim_func
    def main(A: T.Tensor((ping(3) + 16, 16), "float")):
        T.copy(A, A)

    enc = _closure.encode(main)
    names = [t[3] for t in enc.table]
    assert names == ["test_mutual_recursion_uses_table_indices.<locals>.main", "ping", "pong"]
    assert dict(enc.table[1][5])["pong"] == ("F", 2) and dict(enc.table[2][5])["ping"] == \
        ("F", 1)


def test_names_only_annotations_read_are_sent():
    def make(M, K, dtype):
        @T.prim_func
        def main(A: T.Tensor((M, K), dtype)):
            T.copy(A, A)
        return main

    closure = dict(_closure.encode(make(4, 8, "float16")).table[0][5])
    assert closure["M"] == ("i", 4) and closure["K"] == ("i", 8)
    assert closure["dtype"] == ("s", "float16")


def test_the_key_follows_every_value_the_kernel_reads(monkeypatch):
    key = _closure.encode(factory(8)).key
    assert _closure.encode(factory(8)).key == key
    assert _closure.encode(factory(9)).key != key
    assert _closure.encode(factory(8, scale=2.0)).key != key  # 2 and 2.0 differ
    monkeypatch.setattr(sys.modules[__name__], "GLOBAL_SCALE", 5)
    assert _closure.encode(factory(8)).key != key


def test_source_is_required():
    ns = {"T": T}
    exec("@T.prim_func\ndef main(A: T.Tensor((4,), 'float')):\n    T.copy(A, A)\n", ns)
    with pytest.raises(tilelang.ClientValueError, match="its source .* is not available"):
        _closure.encode(ns["main"])


# ---- the request ----------------------------------------------------------------------------

def test_compile_request_carries_files_table_and_settings():
    settings = _jit.Settings(out_idx=-1, pass_configs={
        tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True, "tl.ascend_memory_planning": 1},
        target="auto")
    assert settings.out_idx == (-1,) and settings.target == ""
    enc = _closure.encode(factory(8))
    req = _wire.compile_request(enc, settings)
    pb, _ = _wire.modules()
    assert req.format == pb.PRIM_FUNC and req.include_source_map
    assert req.files[0].name == THIS and req.files[0].text == TEXT
    assert list(req.out_idx) == [-1] and req.out_idx_set and not req.workspace_idx_set
    assert req.typed_pass_configs["tl.ascend_auto_sync"].bool_value is True
    assert req.typed_pass_configs["tl.ascend_memory_planning"].int_value == 1
    main = req.functions[0]
    assert main.kind == pb.ClientFunction.PRIM_FUNC and main.line == _pos("def main(")[0]
    assert main.closure["n"].constant.int_value == 8
    assert main.closure["T"].module == "tilelang.language"
    assert main.closure["fill"].WhichOneof("kind") == "function"
    assert req.functions[main.closure["fill"].function].kind == pb.ClientFunction.MACRO
    sizes = main.closure["sizes"].list_value.values
    assert [v.constant.int_value for v in sizes] == [8, 16]
    assert pb.CompileRequest.FromString(req.SerializeToString()) == req


def test_settings_refuse_bad_values():
    with pytest.raises(TypeError, match="out_idx must be an int or a list of ints"):
        _jit.Settings(out_idx="last")
    with pytest.raises(TypeError, match="pass_configs key"):
        _jit.Settings(pass_configs={3: True})
    with pytest.raises(tilelang.ClientValueError, match="setting 'k'"):
        _jit.Settings(pass_configs={"k": T.copy})


# ---- the T namespace in CPython --------------------------------------------------------------

def test_device_only_names_raise_when_called():
    with pytest.raises(tilelang.DeviceOnlyError, match="T.copy can only be used inside a "
                                                       "@T.prim_func"):
        T.copy(1, 2)
    with pytest.raises(tilelang.DeviceOnlyError, match="T.tile.exp can only be used"):
        T.tile.exp(1, 1)
    prim = factory(8)
    with pytest.raises(tilelang.DeviceOnlyError, match="cannot be called as Python"):
        prim()
    with pytest.raises(tilelang.DeviceOnlyError, match="can only be used inside"):
        T.macro(lambda b: None)(1)
    with pytest.raises(tilelang.DeviceOnlyError):
        T.float16(0)
    assert T.ceildiv(10, 4) == 3 and T.min(3, 2) == 2 and T.max(3, 2) == 3
    # TVM folds these to IntImm / FloatImm: upstream's fa_opt examples read T.min(...).value.
    assert T.min(7, 4).value == 4 and T.ceildiv(10, 4).value == 3 and T.max(1.5, 0.5).value == 1.5
    assert type(T.min(7, 4).value) is int and value(T.min(7, 4)) == ("i", 4)
    assert tilelang.cdiv(9, 4) == 3 and tilelang.next_power_of_2(17) == 32
    assert tilelang.DataType("float16").bits == 16 and tilelang.DataType("float").bits == 32
    assert T.Tensor((4, 8), "float16").shape == (4, 8) and T.float == "float32"


def test_jit_refuses_misuse():
    with pytest.raises(TypeError, match="not to a prim_func itself"):
        tilelang.jit(factory(8))
    with pytest.raises(TypeError, match="must return a @T.prim_func"):
        tilelang.jit(lambda: 3)()
    with pytest.raises(TypeError, match="unexpected keyword"):
        tilelang.jit(out_idx=[-1], no_such_option=1)
    assert tilelang.jit(out_idx=[-1])(factory).__name__ == "factory"


# ---- the local binary cache ------------------------------------------------------------------

def test_local_cache_keeps_the_most_recently_used_under_its_cap(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEJIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TILEJIT_CACHE_MAX_BYTES", "2500")
    keys = [f"{i:064x}" for i in range(3)]
    _localcache.put(keys[0], b"a" * 1000)
    _localcache.put(keys[1], b"b" * 1000)
    os.utime(tmp_path / f"{keys[0]}.tjk", ns=(1, 1))  # the oldest
    os.utime(tmp_path / f"{keys[1]}.tjk", ns=(2, 2))
    assert _localcache.get(keys[0]) == b"a" * 1000  # a hit makes it the most recent
    _localcache.put(keys[2], b"c" * 1000)
    assert _localcache.get(keys[1]) is None
    assert _localcache.get(keys[0]) and _localcache.get(keys[2])
    _localcache.clear()
    assert os.listdir(tmp_path) == []
    with pytest.raises(ValueError):
        _localcache.get("../etc/passwd")


def test_tilelang_objects_tilejit_lacks_are_left_out_and_explained():
    from tilejit.intrinsics import make_col_major_layout
    from tilejit.errors import Diagnostic

    def make():
        @T.prim_func
        def main(A: T.Tensor((16, 16), "float")):
            T.annotate_layout({A: make_col_major_layout(A)})
        return main

    enc = _closure.encode(make())
    assert "make_col_major_layout" not in dict(enc.table[0][5])
    qualname = "tilelang.intrinsics.make_col_major_layout"
    assert enc.unsupported == {"make_col_major_layout": qualname}
    d = Diagnostic("error", "k.py", 3, 5, "name 'make_col_major_layout' is not defined (the "
                   "client sent no value for it)", "k.py:3:5: error: name ... it)\n  src\n  ^")
    (out,) = _jit._explain_unsent([d], enc.unsupported)
    assert out.message.endswith(f"'make_col_major_layout' is {qualname}, "
                                "which tilejit does not provide")
    assert out.rendered.endswith("does not provide\n  src\n  ^")
    with pytest.raises(tilelang.ClientValueError, match="holds tilelang.intrinsics.make_col"):
        value([make_col_major_layout])
