#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) in build-fuzz/ and runs each for SECONDS
# (default 60) at low priority, starting from its committed corpus fuzz/corpus/TARGET; new inputs
# go to build-fuzz/corpus/TARGET, findings to build-fuzz/findings/, logs to build-fuzz/TARGET.log.
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]   # targets: matrix_market frostt index_notation operator_form
#   bash scripts/fuzz.sh --merge [TARGET...]     # add the new inputs that add coverage to fuzz/corpus
set -euo pipefail
cd "$(dirname "$0")/.."
merge=0
seconds=60
if [ "${1:-}" = "--merge" ]; then merge=1; shift; elif [[ "${1:-}" =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(matrix_market frostt index_notation operator_form)

bash scripts/install-deps.sh --fuzz
if [ ! -f build-fuzz/CMakeCache.txt ]; then
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREACT_FUZZ=ON -DREACT_BUILD_TESTS=OFF
fi
for t in "${targets[@]}"; do
  nice -n 19 cmake --build build-fuzz -j1 --target "fuzz-$t"
done
mkdir -p build-fuzz/findings
failed=()
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t"
  if [ $merge -eq 1 ]; then
    "build-fuzz/bin/fuzz-$t" -merge=1 "fuzz/corpus/$t" "build-fuzz/corpus/$t"
    continue
  fi
  rc=0
  nice -n 19 "build-fuzz/bin/fuzz-$t" "build-fuzz/corpus/$t" "fuzz/corpus/$t" -max_total_time="$seconds" \
    -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$t-" \
    >"build-fuzz/$t.log" 2>&1 || rc=$?
  grep -E 'Done [0-9]+ runs|ERROR|SUMMARY|stat::number_of_executed_units|stat::peak_rss' "build-fuzz/$t.log" | sed "s/^/$t: /" || true
  [ $rc -eq 0 ] || failed+=("$t")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]} (build-fuzz/findings/, build-fuzz/TARGET.log)" >&2
  exit 1
fi
