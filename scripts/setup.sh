#!/usr/bin/env bash
# scripts/setup.sh [preset [targets...]]
# Installs the Debian packages the project needs (only those missing), then configures and builds
# the given CMake preset (default: dev). Works on a fresh Debian 12 machine as root.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(g++ clang cmake ninja-build pkg-config make binutils python3 gdb zlib1g-dev libboost-dev
  libtbb-dev libhwloc-dev hwloc libfabric-dev libfabric-bin libgtest-dev libgmock-dev
  libbenchmark-dev iproute2 libpmix-dev libpmix-bin openmpi-bin libopenmpi-dev python3-pmix
  python3-matplotlib)
PACKAGES+=(libssl3)  # libcrypto.so.3, dlopen'ed by the server for credentials (server/credential.h)
PACKAGES+=(dpkg-dev)  # cpack -G DEB runs dpkg-shlibdeps (cmake/package.cmake, ctest -L package)
PACKAGES+=(libclang-rt-dev)  # libFuzzer for the fuzz preset (clang pulls it in too)
PACKAGES+=(slurmd slurmctld slurm-client munge)  # ctest -L slurm: tests/slurm (cluster.sh)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

preset=${1:-dev}
shift || true
# PMIX_UNITY_BUILD=ON (scripts/test.sh sets it) compiles each target's files in batches (CMake unity
# build): a full build takes about half the CPU; incremental builds are faster without it.
cmake --preset "$preset" -DCMAKE_UNITY_BUILD="${PMIX_UNITY_BUILD:-OFF}" >/dev/null
if (($#)); then
  cmake --build --preset "$preset" --target "$@"
else
  cmake --build --preset "$preset"
fi
