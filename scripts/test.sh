#!/usr/bin/env bash
# Installs the dependencies, builds everything (Release) and runs the test suite; installs react and
# builds and runs examples/ against the installed package; then the same suite built with
# AddressSanitizer and UndefinedBehaviorSanitizer (scripts/test-sanitizers.sh), reusing the kernels
# the first run compiled. SANITIZERS=0 skips the last part.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
# The installed package as a user sees it: install into a fresh prefix, check that no installed
# file points into this checkout (relocatable), then build and run examples/ against it (the C++
# example, and the Python one on the installed module).
install_dir="$(mktemp -d)"
trap 'rm -rf "$install_dir"' EXIT
cmake --install build --prefix "$install_dir/prefix" > /dev/null
if grep -rlF "$PWD" "$install_dir/prefix"; then
  echo "test.sh: the installed files above name the checkout ($PWD)" >&2
  exit 1
fi
cmake -S examples -B "$install_dir/example" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$install_dir/prefix" > /dev/null
cmake --build "$install_dir/example" -j"$(nproc)"
REACT_CACHE_DIR="$PWD/build/jit-cache" "$install_dir/example/api_example"
# The installed Python package, from outside the build tree: the README's Python quick start.
python_dir="$(sed -n 's/^REACT_PYTHON_INSTALL_DIR:STRING=//p' build/CMakeCache.txt)"
PYTHONPATH="$install_dir/prefix/$python_dir" REACT_CACHE_DIR="$PWD/build/jit-cache" \
  /usr/bin/python3 examples/python_quickstart.py > /dev/null
if [ "${SANITIZERS:-1}" != 0 ]; then
  REACT_CACHE_DIR="$PWD/build/jit-cache" bash scripts/test-sanitizers.sh
fi
