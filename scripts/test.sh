#!/usr/bin/env bash
# Installs the dependencies, builds everything (Release) and runs the test suite; then the same
# suite built with AddressSanitizer and UndefinedBehaviorSanitizer (scripts/test-sanitizers.sh),
# reusing the kernels the first run compiled. SANITIZERS=0 skips the second part.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
if [ "${SANITIZERS:-1}" != 0 ]; then
  REACT_CACHE_DIR="$PWD/build/jit-cache" bash scripts/test-sanitizers.sh
fi
