# SPDX-License-Identifier: Apache-2.0
"""Shared by the deploy tests: installing the build tree into a prefix, and the daemon's
settings as `tilejitd --help` lists them.

Environment (tests/deploy/CMakeLists.txt): CMAKE_COMMAND, TILEJIT_BUILD_DIR (the build tree to
install), TILEJITD (the build tree's daemon, for --help), TILEJIT_SOURCE_DIR.
"""
import os
import re
import subprocess

SOURCE_DIR = os.environ.get("TILEJIT_SOURCE_DIR", ".")
DEPLOY_DIR = os.path.join(SOURCE_DIR, "deploy")
PYTHON_SUBDIR = os.path.join("lib", "python3", "dist-packages")
UNIT_SUBPATH = os.path.join("lib", "systemd", "system", "tilejitd.service")

# The Redis tier's settings (docs/redis_tier.md), added to tilejitd while the example file was
# written: the example lists them (commented out) whether or not --help does yet.
REDIS_KEYS = {"redis", "redis_password_file", "cluster_key_file", "redis_timeout_ms",
              "redis_breaker_cooldown_ms", "redis_ttl_seconds", "redis_lease_ms"}

# Flags of tilejitd that are not settings: --help, and --config (the file itself).
_NOT_SETTINGS = {"help", "config"}
# CLI11's help lines: "  --name TYPE=DEFAULT  help" ("TYPE" alone: no default; a bare flag
# "--name  help" is a boolean, false unless given).
_OPTION_LINE = re.compile(r"^\s+(?:-\w,)?--([a-z0-9][a-z0-9-]*)(?: ([A-Z]+)(?:=(\S*))?)?(?:\s|$)")


def install(prefix):
    """`cmake --install` of the build tree into `prefix`; the install log."""
    r = subprocess.run([os.environ.get("CMAKE_COMMAND", "cmake"), "--install",
                        os.environ["TILEJIT_BUILD_DIR"], "--prefix", str(prefix)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"cmake --install failed:\n{r.stdout}\n{r.stderr}"
    return r.stdout


def help_settings(tilejitd=None):
    """{toml_key: default text or None} for every setting `tilejitd --help` lists."""
    r = subprocess.run([tilejitd or os.environ["TILEJITD"], "--help"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    out = {}
    for line in r.stdout.splitlines():
        m = _OPTION_LINE.match(line)
        if m and m.group(1) not in _NOT_SETTINGS:
            out[m.group(1).replace("-", "_")] = m.group(3)
    assert len(out) > 10, f"no settings found in tilejitd --help:\n{r.stdout}"
    return out


def daemon_flags(tilejitd=None):
    """Every flag name (with '-') a daemon accepts now or once the Redis tier lands."""
    keys = set(help_settings(tilejitd)) | REDIS_KEYS
    return {k.replace("_", "-") for k in keys} | {"config"}
