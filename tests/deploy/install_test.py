# SPDX-License-Identifier: Apache-2.0
"""e2e.deploy.install: `cmake --install` of the build tree gives a prefix that works alone.

Into a temporary prefix P, then with P only (no build tree on PYTHONPATH, LD_LIBRARY_PATH
unset):
- P holds bin/tilejitd and bin/tilejit and no test or benchmark; no RPATH or RUNPATH of an
  installed ELF names the build or source tree, and every library they need resolves.
- P/bin/tilejitd serves: `P/bin/tilejit health` says SERVING; prefix_client.py compiles a
  kernel through P's Python package and launches it locally (P's libtilejit_runtime.so) and
  on the daemon, both matching NumPy; the daemon has no writable-and-executable mapping after
  that (the systemd unit's MemoryDenyWriteExecute).
- P/bin/tilejitd starts with P/share/tilejit/tilejitd.example.toml (its paths moved into a
  temporary folder) and stops cleanly on SIGTERM.
- The Dockerfile's runtime stage installs the package of every library the binaries load.
"""
import os
import re
import signal
import subprocess
import sys

import pytest

import deploy_util as du

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(du.SOURCE_DIR, "tests", "e2e", "service"))
import daemon as service_daemon  # noqa: E402

pytestmark = pytest.mark.timeout(240)
KERNEL_FILE = os.path.join(os.environ.get("TILEJIT_KERNELS_DIR", ""), "elementwise_add_expert.py")
# Debian packages of debian:bookworm-slim that the Dockerfile need not install.
BASE_IMAGE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}


def _clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "LD_LIBRARY_PATH", "TILEJITD", "TILEJIT_RUNTIME_LIB")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    p = tmp_path_factory.mktemp("prefix")
    du.install(p)
    os.environ.pop("LD_LIBRARY_PATH", None)  # for the daemons this module starts
    return p


def _elf_files(prefix):
    out = []
    for root, _, files in os.walk(prefix):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    out.append(path)
    return sorted(out)


def test_prefix_holds_the_programs_and_no_tests(prefix):
    assert sorted(os.listdir(prefix / "bin")) == ["tilejit", "tilejitd"]
    elves = [os.path.relpath(p, prefix) for p in _elf_files(prefix)]
    assert elves == ["bin/tilejit", "bin/tilejitd", "lib/libtilejit_runtime.so"]
    for rel in ("share/tilejit/proto/tilejit/v1/tilejit.proto", "share/doc/tilejit/README.md",
                "share/tilejit/tilejitd.example.toml", du.UNIT_SUBPATH,
                os.path.join(du.PYTHON_SUBDIR, "tilejit_paths.py"),
                os.path.join(du.PYTHON_SUBDIR, "tilejit", "v1", "tilejit_pb2.py")):
        assert (prefix / rel).is_file(), rel


def test_no_rpath_names_the_build_tree(prefix):
    trees = [os.path.realpath(os.environ["TILEJIT_BUILD_DIR"]), os.path.realpath(du.SOURCE_DIR)]
    for path in _elf_files(prefix):
        dynamic = subprocess.run(["readelf", "-d", path], capture_output=True, text=True,
                                 check=True).stdout
        for m in re.finditer(r"\((?:RPATH|RUNPATH)\)\s+Library r\w*path: \[(.*)\]", dynamic):
            for entry in m.group(1).split(":"):
                assert os.path.isabs(entry) and "$ORIGIN" not in entry, (path, entry)
                assert not any(os.path.realpath(entry).startswith(t) for t in trees), \
                    (path, entry)
        ldd = subprocess.run(["ldd", path], capture_output=True, text=True, env=_clean_env())
        assert ldd.returncode == 0 and "not found" not in ldd.stdout, ldd.stdout


def _writable_executable_maps(pid):
    with open(f"/proc/{pid}/maps") as f:
        return [line for line in f if "w" in line.split()[1] and "x" in line.split()[1]]


def test_installed_daemon_and_package_run_a_kernel(prefix, tmp_path):
    service_daemon.TILEJITD = str(prefix / "bin" / "tilejitd")
    with service_daemon.Daemon(tmp_path / "d") as d:
        health = subprocess.run([prefix / "bin" / "tilejit", "health", "--server", d.address],
                                capture_output=True, text=True, timeout=60, env=_clean_env())
        assert health.returncode == 0 and health.stdout.strip() == "SERVING", health
        for mode in ("local", "remote"):
            work = tmp_path / mode
            work.mkdir()
            r = subprocess.run(
                [sys.executable, "-s", "-P", os.path.join(HERE, "prefix_client.py"), str(prefix),
                 KERNEL_FILE], cwd=work, capture_output=True, text=True, timeout=180,
                env=_clean_env(PYTHONPATH=str(prefix / du.PYTHON_SUBDIR), TILEJIT_SERVER=d.address,
                               TILEJIT_LAUNCH=mode, TILEJIT_CACHE_DIR=str(work / "binaries"),
                               HOME=str(work)))
            assert r.returncode == 0, f"{r.stdout}\n{r.stderr}\ndaemon log:\n{d.log()}"
            print(r.stdout)
        assert _writable_executable_maps(d.proc.pid) == []


def test_installed_daemon_accepts_the_example_config(prefix, tmp_path):
    text = (prefix / "share" / "tilejit" / "tilejitd.example.toml").read_text()
    text, n = re.subn(r'^cache_path = ".*"$', f'cache_path = "{tmp_path}/kernels.sqlite"', text,
                      flags=re.M)
    assert n == 1
    config = tmp_path / "tilejitd.toml"
    config.write_text(text)
    proc = subprocess.Popen(
        ["setpriv", "--pdeathsig", "KILL", prefix / "bin" / "tilejitd", "--config", config,
         "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True, env=_clean_env())
    try:
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("tilejitd listening on port "):
                break
        assert lines and lines[-1].startswith("tilejitd listening on port "), "".join(lines)
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, "".join(lines) + rest
        assert (tmp_path / "kernels.sqlite").exists()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _runtime_stage_packages():
    with open(os.path.join(du.DEPLOY_DIR, "Dockerfile")) as f:
        runtime = f.read().split("FROM debian:bookworm-slim", 1)[1]
    install = re.search(r"apt-get install (.*?)&&", runtime, re.S).group(1)
    return {w for w in install.replace("\\", " ").split() if not w.startswith("-")}


def test_dockerfile_installs_every_runtime_library_package(prefix):
    libraries = set()
    for name in ("tilejitd", "tilejit"):
        ldd = subprocess.run(["ldd", prefix / "bin" / name], capture_output=True, text=True,
                             check=True, env=_clean_env()).stdout
        libraries |= set(re.findall(r"=> (/\S+)", ldd))
    packages = set()
    for lib in sorted(libraries):
        owner = subprocess.run(["dpkg", "-S", os.path.realpath(lib)], capture_output=True,
                               text=True)
        if owner.returncode != 0:
            owner = subprocess.run(["dpkg", "-S", lib], capture_output=True, text=True)
        assert owner.returncode == 0, f"no Debian package owns {lib}"
        packages.add(owner.stdout.split(":")[0])
    missing = packages - _runtime_stage_packages() - BASE_IMAGE_PACKAGES
    assert not missing, f"the Dockerfile's runtime stage lacks {sorted(missing)}"
