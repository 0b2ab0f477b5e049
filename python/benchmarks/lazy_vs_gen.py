"""The README's SciPy example (SDDMM on cora, K=64: examples/python_quickstart.py) through
react.lazy(), through a compiled kernel, and through react-gen, which times the kernel alone
(docs/python.md, "Lazy mode"). Each Python evaluation records the expression again, finds its
kernel (compiled by the first, which is not timed) and runs it: what a loop over the example
costs. Medians of RUNS runs, then the median of ROUNDS rounds, which alternate between react-gen
and Python. Last, the wall time of a whole react-gen run of the same program (start the process,
read the matrix, generate B and C, find the kernel in the JIT cache, run it once): what the
program costs through react-gen when it is not timed from inside (median of RUNS/20, at least 3).

libgomp's wait policy applies to both sides: with OMP_WAIT_POLICY=passive every parallel region
wakes sleeping threads (35 to 50 us here), which react-gen's -time counts in each run as well; by
default they wait spinning for a while, and consecutive runs find them awake. OMP_NUM_THREADS=1
keeps a busy machine's scheduling out of both sides (a thread descheduled at the kernel's barrier
costs a time slice, milliseconds).

    PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/lazy_vs_gen.py [--runs N] [--rounds R] [--matrix FILE]
"""

import argparse
import pathlib
import re
import statistics
import subprocess
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

import react

REPO = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_MATRIX = str(REPO.parent / "shared/data/matrices/cora.mtx")


def readme_inputs(matrix):
    """The README example's S (read from `matrix`), and B and C of K=64 columns from a fixed seed."""
    S = sp.csr_matrix(scipy.io.mmread(matrix))
    rng = np.random.default_rng(0)
    return S, rng.random((S.shape[0], 64)), rng.random((S.shape[1], 64))


def median_ms(f, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--matrix", default=DEFAULT_MATRIX)
    parser.add_argument("--react-gen", default=str(REPO / "build/bin/react-gen"))
    args = parser.parse_args()

    S, B, C = readme_inputs(args.matrix)

    def lazy():
        with react.lazy():
            A = react.wrap(S).multiply(react.wrap(B) @ react.wrap(C).T)
        return A.tocsr()

    sddmm = react.compile("A = S * (B @ C.T)", S=S, B=B, C=C)
    lazy()  # compiles (or finds the kernel in the JIT cache)
    run_once = [args.react_gen, "A = S * (B @ C.T)", f"-i=S:{args.matrix}", "-g=B:u", "-g=C:u",
                f"-d=B:{S.shape[0]}x64", f"-d=C:{S.shape[1]}x64"]

    def react_gen():
        out = subprocess.run(run_once + [f"-time={args.runs}"], check=True, capture_output=True, text=True).stdout
        return float(re.search(r"median=([0-9.e+-]+) ms", out).group(1))

    def react_gen_once():
        subprocess.run(run_once, check=True, capture_output=True)

    # Rounds alternate between react-gen and Python, so that a machine busy for a while slows both.
    measured = {"gen": [], "raw": [], "lazy": [], "compiled": []}
    for _ in range(args.rounds):
        measured["gen"].append(react_gen())
        measured["raw"].append(statistics.median(sddmm._kernel_seconds(args.runs, S=S, B=B, C=C)) * 1e3)
        measured["lazy"].append(median_ms(lazy, args.runs))
        measured["compiled"].append(median_ms(lambda: sddmm(S=S, B=B, C=C), args.runs))
    gen, raw, lazy_ms, compiled = (statistics.median(measured[k]) for k in ("gen", "raw", "lazy", "compiled"))
    rows = [("react-gen -time (the kernel alone)", gen),
            ("the same kernel alone, from C++ in this process", raw),
            ("react.lazy(): record, find the kernel, run, tocsr()", lazy_ms),
            ("react.compile'd kernel: sddmm(S=S, B=B, C=C)", compiled)]
    product_gib = S.shape[0] * S.shape[1] * 8 / 2**30  # SciPy computes the dense B @ C.T first
    rows.append(("a whole react-gen run (process, matrix, kernel once)", median_ms(react_gen_once, max(3, args.runs // 20))))
    if product_gib < 4:
        rows.append(("SciPy: S.multiply(B @ C.T)", median_ms(lambda: S.multiply(B @ C.T), max(3, args.runs // 20))))
    print(f"SDDMM K=64 on {pathlib.Path(args.matrix).name} ({S.shape[0]}x{S.shape[1]}, {S.nnz} nnz); median ms")
    for label, ms in rows:
        print(f"  {label:55} {ms:9.4f}  ({ms / gen:.2f}x react-gen)")
    if product_gib >= 4:
        print(f"  {'SciPy: S.multiply(B @ C.T)':55} not run: B @ C.T needs {product_gib:.0f} GiB")


if __name__ == "__main__":
    main()
