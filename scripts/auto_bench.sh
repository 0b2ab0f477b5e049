#!/bin/bash
# Fusion mode auto against every fixed choice (none/maximal/react in both associations) and SciPy:
# react-bench on real and synthetic matrices at dense sizes 4..512, repeated ROUNDS times (each
# variant keeps its smallest median: the machine may be shared), then scripts/auto_eval.py.
# usage: bash scripts/auto_bench.sh OUT_DIR [MATRIX_OR_DIR...]   (env: ROUNDS=2 REPS=5 BUDGET=0.5)
set -euo pipefail
out=${1:?usage: auto_bench.sh OUT_DIR [MATRIX...]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
bench="$here/build/bin/react-bench"
matrices=("$@")
if [ ${#matrices[@]} -eq 0 ]; then
  m="$here/../shared/data/matrices"
  matrices=("$m/cora.mtx" "$m/citeseer.mtx" "$m/pubmed.mtx" "$m/power.mtx" "$m/polblogs.mtx" "$m/wiki-Vote.mtx"
            "$m/ca-CondMat.mtx" "$m/bcsstk13.mtx" "$m/email-Enron.mtx" "$m/lp_maros_r7.mtx")
fi
synthetic=(--synthetic uniform:50000:8 --synthetic powerlaw:50000:8 --synthetic banded:50000:8)
rounds=${ROUNDS:-2} reps=${REPS:-5} budget=${BUDGET:-0.5}
variants=none-openmp,maximal-openmp,react-openmp,none-openmp-right,maximal-openmp-right,react-openmp-right,auto-openmp
mkdir -p "$out"
export OMP_WAIT_POLICY=passive
run() {  # NAME ARGS...
  local name=$1
  shift
  for r in $(seq 1 "$rounds"); do
    nice -n 10 "$bench" --matrix "${matrices[@]}" "${synthetic[@]}" --variants $variants --reps "$reps" \
      --budget "$budget" --csv "$out/$name-$r.csv" --write-synthetic "$out/synthetic" "$@" > "$out/$name-$r.log" 2>&1
  done
}
run sddmm --kernel sddmm --sddmm-k 4,64,512
run rows --kernel norm_row,softmax
for sizes in "4 512" "32 32" "256 16" "512 4"; do
  set -- $sizes
  run "spmm-$1-$2" --kernel spmm_mm --nh "$1" --nj "$2"
  nice -n 10 /usr/bin/python3 "$here/scripts/scipy_bench.py" --matrix "${matrices[@]}" "$out/synthetic" --kernel spmm_mm \
    --nh "$1" --nj "$2" --reps "$reps" --budget "$budget" --csv "$out/scipy-spmm-$1-$2.csv" 2> "$out/scipy-spmm-$1-$2.log"
done
nice -n 10 /usr/bin/python3 "$here/scripts/scipy_bench.py" --matrix "${matrices[@]}" "$out/synthetic" --kernel sddmm,norm_row,softmax \
  --sddmm-k 4,64,512 --reps "$reps" --budget "$budget" --csv "$out/scipy-other.csv" 2> "$out/scipy-other.log"
/usr/bin/python3 "$here/scripts/auto_eval.py" --react "$out"/sddmm-*.csv "$out"/rows-*.csv "$out"/spmm-*.csv \
  --scipy "$out"/scipy-*.csv > "$out/report.md"
cat "$out/report.md" | tail -20
