# SPDX-License-Identifier: Apache-2.0
"""Import's rules against real daemons (issue 16, acceptance 3).

Daemon A compiles two kernels and exports them. Daemon B refuses three kinds of entry: the
other kernel's binary filed under a key, a binary with one changed code byte, and a binary
whose embedded canonical IR was altered. Each refusal imports nothing and is counted in
tilejit_import_refusals_total. B then compiles the kernel itself and serves A's exact bytes
for it. A fresh daemon C imports A's honest export and serves it from its cache without
compiling.

Environment: TILEJITD, TILEJIT_KERNELS_DIR, PROTOC, TILEJIT_PROTO_DIR.
"""
import hashlib
import os
import struct
import sys

import grpc
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from daemon import Daemon  # noqa: E402
from stubs import Stub, tj, typed  # noqa: E402

KERNELS = os.environ.get("TILEJIT_KERNELS_DIR", "tests/testdata/kernels")
pytestmark = pytest.mark.timeout(240)
ADD = os.path.join(KERNELS, "elementwise_add_expert.py")


def vec_add(m):
    req = tj.CompileRequest(source=open(ADD).read(), entry="vec_add", file_name=ADD,
                            include_binary=True)
    req.typed_args.extend([typed(a) for a in (m, 256, 64, 128)])
    return req


def sections(binary):
    """{name: (offset, size)} of an ELF64 little-endian file."""
    shoff, = struct.unpack_from("<Q", binary, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", binary, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", binary, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    out = {}
    for name, _, _, _, offset, size in headers:
        end = binary.index(b"\0", names_at + name)
        out[binary[names_at + name:end].decode()] = (offset, size)
    return out


def bundle(entries):
    b = tj.KernelBundle(version=1)
    for key, binary in entries:
        b.entries.add(key=key, binary=binary, sha256=hashlib.sha256(binary).hexdigest())
    return b.SerializeToString()


def changed_code_byte(binary):
    offset, size = sections(binary)[".text.aiv"]
    assert size > 0
    out = bytearray(binary)
    out[offset + size // 2] ^= 0x01
    return bytes(out)


def changed_ir(binary):
    offset, size = sections(binary)[".tilejit.source"]
    text = binary[offset:offset + size]
    assert b"256" in text, text[:200]
    i = text.rindex(b"256")  # a shape in the IR: the same length, another kernel
    return binary[:offset + i] + b"255" + binary[offset + i + 3:]


def import_refused(stub, entries, why):
    with pytest.raises(grpc.RpcError) as e:
        stub.Import(tj.ImportRequest(bundle=bundle(entries)), timeout=120)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT, e.value
    assert why in e.value.details(), e.value.details()


def test_tampered_entries_are_refused_and_honest_exports_serve(tmp_path):
    with Daemon(tmp_path / "a") as a, grpc.insecure_channel(a.address) as ch:
        stub = Stub(ch)
        first, second = stub.Compile(vec_add(128), timeout=120), stub.Compile(vec_add(64), timeout=120)
        assert first.ok and second.ok, (first.error, second.error)
        exported = stub.Export(tj.ExportRequest(), timeout=60).bundle

    with Daemon(tmp_path / "b", metrics=True) as b, grpc.insecure_channel(b.address) as ch:
        stub = Stub(ch)
        import_refused(stub, [(first.key, second.binary)], "compiled for another key")
        import_refused(stub, [(first.key, changed_code_byte(first.binary))],
                       "gives a different binary")
        import_refused(stub, [(second.key, second.binary), (first.key, changed_ir(first.binary))],
                       "compiles to another key")
        assert b.scrape()["tilejit_import_refusals_total"] == 3
        assert len(stub.List(tj.ListRequest(limit=10), timeout=30).entries) == 0
        again = stub.Compile(vec_add(128), timeout=120)
        assert again.ok and again.tier == "compiled", (again.error, again.tier)
        assert again.key == first.key and again.binary == first.binary

    with Daemon(tmp_path / "c", metrics=True) as c, grpc.insecure_channel(c.address) as ch:
        stub = Stub(ch)
        counts = stub.Import(tj.ImportRequest(bundle=exported), timeout=120)
        assert counts.imported == 2
        before = c.scrape()["tilejit_backend_compiles_total"]
        hit = stub.Compile(vec_add(128), timeout=120)
        assert hit.ok and hit.tier in ("memory", "sqlite"), hit.tier
        assert hit.binary == first.binary
        # The import's own recompiles are not cache work: the hit compiled nothing.
        assert c.scrape()["tilejit_backend_compiles_total"] == before
        assert c.scrape()["tilejit_import_refusals_total"] == 0


CLI = os.environ.get("TILEJIT_CLI", "build/client/tilejit")


def test_streamed_export_and_import_move_more_than_one_message_holds(tmp_path):
    """With --max-message-bytes far below the cache's size, the unary Export cannot carry it;
    `tilejit cache export`/`import` stream it through messages of one kernel each."""
    import subprocess
    small = ("--max-message-bytes", "16384")
    sizes = (64, 128, 192, 256, 320, 384)
    with Daemon(tmp_path / "a", *small) as a:
        with grpc.insecure_channel(a.address) as ch:
            stub = Stub(ch)
            made = {m: stub.Compile(vec_add(m), timeout=120) for m in sizes}
            assert sum(len(r.binary) for r in made.values()) > 16384
            with pytest.raises(grpc.RpcError) as unary:
                stub.Export(tj.ExportRequest(), timeout=60)
            assert unary.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        out = tmp_path / "cache.tjx"
        r = subprocess.run([CLI, "--server", a.address, "cache", "export", "-o", str(out)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and r.stdout == f"exported {len(sizes)} kernel(s) to {out}\n", \
            r.stdout + r.stderr
    assert out.read_bytes().startswith(b"tilejit-cache-export 1\n")
    truncated = tmp_path / "truncated.tjx"
    truncated.write_bytes(out.read_bytes()[:-40])
    with Daemon(tmp_path / "b", *small) as b:
        cut = subprocess.run([CLI, "--server", b.address, "cache", "import", str(truncated)],
                             capture_output=True, text=True, timeout=240)
        assert cut.returncode != 0 and "truncated" in cut.stderr.lower() + cut.stdout.lower(), \
            cut.stdout + cut.stderr
        r = subprocess.run([CLI, "--server", b.address, "cache", "import", str(out)],
                           capture_output=True, text=True, timeout=240)
        assert r.returncode == 0, r.stdout + r.stderr
        # The truncated file's import kept the five entries before its cut one (the client
        # ends the stream cleanly, so none still in flight is dropped): one is left to import.
        assert "after 5 imported and 0 skipped" in cut.stderr + cut.stdout, cut.stderr
        assert r.stdout.startswith(f"imported {len(sizes) - 5}, skipped 5"), r.stdout
        with grpc.insecure_channel(b.address) as ch:
            stub = Stub(ch)
            for m in sizes:
                hit = stub.Compile(vec_add(m), timeout=60)
                assert hit.tier in ("memory", "sqlite") and hit.binary == made[m].binary
