# SPDX-License-Identifier: Apache-2.0
"""deploy.systemd: the unit `cmake --install` writes is one systemd accepts.

`systemd-analyze verify` on P/lib/systemd/system/tilejitd.service of a temporary prefix P: it
parses every directive and checks that ExecStart's binary (P/bin/tilejitd) is executable.
Unknown or misspelled directives are only warnings to it (exit status 0), so any line of its
output that names our unit fails the test too; lines about other units (this container's own)
are printed and ignored. Two broken copies, a misspelled directive and a missing binary, show
that the check fails when it should. `systemd-analyze security --offline` rates the sandbox.
"""
import os
import re
import subprocess

import pytest

import deploy_util as du

pytestmark = pytest.mark.timeout(120)
SYSTEMD_ANALYZE = os.environ.get("SYSTEMD_ANALYZE", "systemd-analyze")
# "OK" in systemd-analyze security's scale (0 best, 10 worst): below 2.
MAX_EXPOSURE = 2.0


@pytest.fixture(scope="module")
def unit(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("prefix")
    du.install(prefix)
    return prefix / du.UNIT_SUBPATH


def _problems(unit_path):
    """systemd-analyze verify's complaints about `unit_path` (its exit status, its lines)."""
    r = subprocess.run([SYSTEMD_ANALYZE, "verify", "--man=no", "--recursive-errors=no",
                        str(unit_path)], capture_output=True, text=True, timeout=60)
    lines = (r.stdout + r.stderr).splitlines()
    ours = [line for line in lines if unit_path.name in line]
    print("\n".join(line for line in lines if line not in ours))
    return r.returncode, ours


def test_installed_unit_verifies(unit):
    text = unit.read_text()
    assert f"ExecStart={unit.parents[3]}/bin/tilejitd " in text
    assert not re.search(r"@[A-Z_]+@", text), "a template variable left unfilled"
    status, ours = _problems(unit)
    assert status == 0 and not ours, "\n".join(ours)


def test_verify_reports_a_misspelled_directive(unit, tmp_path):
    broken = tmp_path / "tilejitd.service"
    broken.write_text(unit.read_text().replace("ProtectSystem=", "ProtectSytem="))
    _, ours = _problems(broken)
    assert any("ProtectSytem" in line for line in ours), ours


def test_verify_reports_a_missing_binary(unit, tmp_path):
    broken = tmp_path / "tilejitd.service"
    broken.write_text(unit.read_text().replace("/bin/tilejitd ", "/bin/no-tilejitd "))
    status, ours = _problems(broken)
    assert status != 0 and any("no-tilejitd" in line for line in ours), ours


def test_sandbox_exposure_is_low(unit):
    r = subprocess.run([SYSTEMD_ANALYZE, "security", "--offline=yes", "--no-pager", str(unit)],
                       capture_output=True, text=True, timeout=60)
    m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", r.stdout + r.stderr)
    assert m, r.stdout + r.stderr
    assert float(m.group(1)) < MAX_EXPOSURE, r.stdout
