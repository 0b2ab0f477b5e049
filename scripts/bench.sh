#!/usr/bin/env bash
# Regenerates docs/benchmarks.md, docs/benchmarks.csv and docs/benchmarks-t*.png: builds
# react-bench, runs every kernel and variant on ../shared/data/matrices at 1 and 2 threads, then a
# scaling run on synthetic matrices (docs/benchmarks-scaling.csv), plots and writes the report. Arguments are passed to react-bench (e.g. --reps 3 for a quicker run).
#   bash scripts/bench.sh
# Environment: MATRICES (default ../shared/data/matrices), THREADS (default 1,2),
# BUILD_DIR (default build).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
matrices=${MATRICES:-../shared/data/matrices}
threads=${THREADS:-1,2}
build=${BUILD_DIR:-build}
python=/usr/bin/python3
# Threads sleep at barriers instead of spinning: on 2 cores shared with other work, a spinning
# thread keeps a descheduled one off the CPU and every parallel region then costs a time slice
# (about 10 ms instead of 25 us for norm_row on cora at 2 threads under load).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target react-bench

command=("$build/bin/react-bench" --kernel all --matrix "$matrices" --threads "$threads" --reps 10 --budget 2
         --csv docs/benchmarks.csv --cache-dir "$build/jit-cache" "$@")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
"${command[@]}" | tee "$build/benchmarks.txt"
seconds=$(($(date +%s) - start))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# Scaling with nnz: synthetic matrices of growing size, 16 stored entries per row on average.
synthetic=()
for kind in uniform powerlaw banded; do
  for n in 25000 50000 100000 200000; do synthetic+=(--synthetic "$kind:$n:16"); done
done
scaling=("$build/bin/react-bench" --kernel sddmm,softmax --sddmm-k 64 "${synthetic[@]}" --threads 1 --reps 10
         --budget 2 --variants react-openmp,maximal-openmp,library-eigen --csv docs/benchmarks-scaling.csv
         --cache-dir "$build/jit-cache")
"${scaling[@]}" >"$build/benchmarks-scaling.txt"

plots=()
for t in ${threads//,/ }; do
  $python scripts/plot_bench.py docs/benchmarks.csv --threads "$t" --out "docs/benchmarks-t$t.png"
  plots+=(--plot "docs/benchmarks-t$t.png")
done
$python scripts/bench_report.py docs/benchmarks.csv --command "OMP_WAIT_POLICY=$OMP_WAIT_POLICY ${command[*]}" --seconds "$seconds" \
  --load-before "$load_before" --load-after "$load_after" "${plots[@]}" \
  --scaling docs/benchmarks-scaling.csv --scaling-command "OMP_WAIT_POLICY=$OMP_WAIT_POLICY ${scaling[*]}" \
  --keep docs/benchmarks.md >"$build/benchmarks.md"
mv "$build/benchmarks.md" docs/benchmarks.md
echo "wrote docs/benchmarks.md, docs/benchmarks*.csv, docs/benchmarks-t*.png ($seconds s for the main run)"
