#!/usr/bin/env bash
# Builds react-bench with the TACO baseline (variants taco-default and taco-best,
# apps/bench/library_taco.cpp) against a TACO that you built and installed yourself.
#   bash scripts/taco_baseline.sh TACO_PREFIX [BUILD_DIR]
# TACO_PREFIX: the prefix a TACO build was installed into (include/taco.h, lib/libtaco.so).
# BUILD_DIR: react's build folder for it (default build-taco; build/ stays without TACO).
# This script neither downloads nor builds TACO, and the project keeps no TACO code or build
# recipe: docs/benchmarks-taco.md says which commit the docs measured and what TACO needs.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() {
  echo "taco_baseline.sh: $*" >&2
  exit 1
}
[[ $# -ge 1 && $# -le 2 && $1 != -h && $1 != --help ]] || die "usage: bash scripts/taco_baseline.sh TACO_PREFIX [BUILD_DIR]"
prefix=$1
build=${2:-build-taco}
[[ -d $prefix ]] || die "TACO_PREFIX '$prefix': no such folder"
if [[ -f $prefix/include/taco/tensor.h && -f $prefix/src/tensor.cpp ]]; then
  die "TACO_PREFIX '$prefix' is a TACO source folder: build and install TACO (its README), then pass the install prefix"
fi
[[ -f $prefix/include/taco.h && -f $prefix/lib/libtaco.so ]] ||
  die "TACO_PREFIX '$prefix' is not a TACO install prefix: it has no include/taco.h and lib/libtaco.so"
prefix=$(cd "$prefix" && pwd)

version=$prefix/include/taco/version.h
commit=$(sed -n 's/^#define TACO_VERSION_GIT_SHORTHASH "\(.*\)"/\1/p' "$version")
echo "taco: $prefix, commit ${commit:-unknown (built outside a git checkout)}"
grep -q '^#define TACO_FEATURE_OPENMP 1' "$version" ||
  echo "taco_baseline.sh: this TACO was built without OpenMP (-DOPENMP=ON): its schedules run serially" >&2
# TACO's JIT writes C and compiles it with $TACO_CC (default cc) when react-bench prepares a variant.
command -v "${TACO_CC:-cc}" >/dev/null || die "TACO's JIT compiles its kernels with \$TACO_CC or cc, and neither is on PATH"

cd "$root"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DREACT_TACO_DIR="$prefix" >/dev/null
cmake --build "$build" -j2 --target react-bench
echo "react-bench with TACO: $build/bin/react-bench --variants react-openmp,taco-default,taco-best,... (docs/benchmarks-taco.md)"
