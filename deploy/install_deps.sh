#!/usr/bin/env bash
# Installs every Debian package tilejit's build, tests and daemon need, on Debian 12, as root.
# Idempotent: packages already installed are left alone; apt-get runs only when one is missing.
set -euo pipefail

PACKAGES=(
  # build
  build-essential cmake ninja-build git pkg-config clang clang-format libclang-rt-14-dev
  # libraries
  libssl-dev libgtest-dev libgmock-dev libbenchmark-dev libspdlog-dev libsqlite3-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler grpc-proto
  libhiredis-dev libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libcpp-httplib-dev
  libopenblas-dev libopenblas0-pthread
  # tests and benchmarks (openssl makes the TLS tests' certificates; Node.js and npm for the
  # e2e reflection client: see below)
  python3 python3-numpy python3-pytest python3-grpcio redis-server binutils openssl
  # the Python package (client/python: gRPC, protobuf messages) and its tests
  # (tests/client/python): torch 1.13 CPU, per-test timeouts
  python3-protobuf python3-torch python3-pytest-timeout
  # tests/deploy: YAML manifests, `systemd-analyze verify` of the unit (installing the package
  # does not start systemd)
  python3-yaml systemd
)

# Node.js and npm run the e2e reflection client (tests/e2e/service/js). Only when `npm` is
# missing: NodeSource's nodejs package (common in base images) bundles npm and conflicts with
# Debian's npm package, so installing Debian's npm beside it would fail or replace it.
if ! command -v npm >/dev/null 2>&1; then
  if dpkg-query -W -f='${Version}' nodejs 2>/dev/null | grep -q nodesource; then
    echo "install_deps: npm is missing but nodejs is NodeSource's, which ships npm itself and" \
      "conflicts with Debian's npm; restore it with: apt-get install --reinstall nodejs" >&2
    exit 1
  fi
  PACKAGES+=(nodejs npm)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install_deps: missing packages: ${missing[*]}" >&2
  echo "install_deps: run as root (or install them) and retry" >&2
  exit 1
fi

echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
