#!/usr/bin/env bash
# Installs everything react needs to build, test and plot, from Debian 12 packages.
# Reruns are fast: apt is skipped when every package is already installed.
# `--fuzz` adds clang and its sanitizer/libFuzzer runtimes (scripts/fuzz.sh only).
set -euo pipefail

PACKAGES=(
  cmake g++ make                                          # toolchain (not on a bare Debian)
  libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev   # Kokkos 3.4 (Serial) + Kokkos Kernels
  liblapack-dev libblas-dev                               # linked by Kokkos Kernels' CMake target
  libeigen3-dev libboost-graph-dev libomp-dev doctest-dev
  python3-scipy python3-matplotlib                        # reference checks, baselines, plots
  python3-dev pybind11-dev libdlpack-dev                  # the Python module (python/)
  python3-pytest python3-torch                            # its tests (torch: DLPack, CPU)
)
if [ "${1:-}" = "--fuzz" ]; then
  PACKAGES+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps: missing packages (${missing[*]}); run as root or install sudo" >&2
    exit 1
  fi
  SUDO=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
