#!/usr/bin/env bash
# The long differential run on many cores: WORKERS react-fuzz processes (one thread each), each
# checking chunks of at most 100 programs until SECONDS have passed, then the totals per JIT flags.
#   bash scripts/fuzz_parallel.sh OUT_DIR [SECONDS] [WORKERS]
# env: FUZZ_BIN (default build/bin/react-fuzz), FUZZ_BASE (first seed, default 10000000; worker K
# starts at FUZZ_BASE + K*1000000 and continues from OUT_DIR/K/next on a later call), FUZZ_FLAGS
# (--jit-flags, default -O0: compiling dominates and -O0 compiles about 2x faster), FUZZ_O3
# (workers 0..FUZZ_O3-1 compile at -O3 instead). Chunks are sized from the previous chunk's time
# to end before the deadline; one still running then is stopped and not counted. A mismatch is
# minimised (60 s at most) into OUT_DIR/K/mismatch-SEED.txt; a crash leaves OUT_DIR/K/inflight.txt.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: fuzz_parallel.sh OUT_DIR [SECONDS] [WORKERS]}
seconds=${2:-300}
workers=${3:-$(nproc)}
bin=${FUZZ_BIN:-$here/build/bin/react-fuzz}
deadline=$(($(date +%s) + seconds))
mkdir -p "$out"
worker() {  # K
  local d=$out/$1 flags=${FUZZ_FLAGS:--O0}
  mkdir -p "$d"
  local seed
  seed=$(cat "$d/next" 2>/dev/null || echo $((${FUZZ_BASE:-10000000} + $1 * 1000000)))
  [ "$1" -lt "${FUZZ_O3:-0}" ] && flags=-O3
  local per=1 # seconds per program, measured from the previous chunk
  [ "$flags" = -O3 ] && per=3
  while :; do
    local left=$((deadline - $(date +%s)))
    local n
    n=$(python3 -c "print(min(100, int(0.7 * $left / $per)))")
    [ "$n" -lt 10 ] && break
    local t0
    t0=$(date +%s.%N)
    OMP_NUM_THREADS=1 timeout $((left + 5)) "$bin" --programs "$n" --batch "$n" --seed "$seed" --jit-flags "$flags" \
      --minimize-seconds 60 --out "$d" > "$d/chunk-$seed.txt" 2>&1
    local rc=$?
    echo "exit $rc flags $flags" >> "$d/chunk-$seed.txt"
    # 124: cut at the deadline; 2: react-fuzz refused its arguments (every chunk would).
    if [ $rc -eq 124 ] || [ $rc -eq 2 ]; then break; fi
    per=$(python3 -c "print(max(0.2, ($(date +%s.%N) - $t0) / $n))")
    seed=$((seed + n))
    echo $seed > "$d/next"
  done
}
for k in $(seq 0 $((workers - 1))); do worker "$k" & done
wait
python3 "$here/scripts/fuzz_summary.py" "$out"
