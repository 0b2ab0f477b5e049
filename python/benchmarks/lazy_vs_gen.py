"""The README's SciPy example (SDDMM on cora, K=64: examples/python_quickstart.py) through
react.lazy(), through a compiled kernel, and through react-gen, which times the kernel alone
(docs/python.md, "Lazy mode"). Each Python evaluation records the expression again, finds its
kernel (compiled by the first, which is not timed) and runs it: what a loop over the example
costs. Medians of RUNS.

    PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/lazy_vs_gen.py [--runs N] [--matrix FILE]
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
    parser.add_argument("--matrix", default=str(REPO.parent / "shared/data/matrices/cora.mtx"))
    parser.add_argument("--react-gen", default=str(REPO / "build/bin/react-gen"))
    args = parser.parse_args()

    S = sp.csr_matrix(scipy.io.mmread(args.matrix))
    rng = np.random.default_rng(0)
    B, C = rng.random((S.shape[0], 64)), rng.random((S.shape[1], 64))

    def lazy():
        with react.lazy():
            A = react.wrap(S).multiply(react.wrap(B) @ react.wrap(C).T)
        return A.tocsr()

    sddmm = react.compile("A = S * (B @ C.T)", S=S, B=B, C=C)
    lazy()  # compiles (or finds the kernel in the JIT cache)
    gen = subprocess.run([args.react_gen, "A = S * (B @ C.T)", f"-i=S:{args.matrix}", "-g=B:u", "-g=C:u",
                          f"-d=B:{S.shape[0]}x64", f"-d=C:{S.shape[1]}x64", f"-time={args.runs}"],
                         check=True, capture_output=True, text=True).stdout
    gen_ms = float(re.search(r"median=([0-9.e+-]+) ms", gen).group(1))
    rows = [("react-gen -time (the kernel alone)", gen_ms),
            ("react.lazy(): record, find the kernel, run, tocsr()", median_ms(lazy, args.runs)),
            ("react.compile'd kernel: sddmm(S=S, B=B, C=C)", median_ms(lambda: sddmm(S=S, B=B, C=C), args.runs)),
            ("SciPy: S.multiply(B @ C.T)", median_ms(lambda: S.multiply(B @ C.T), max(3, args.runs // 20)))]
    print(f"SDDMM K=64 on {pathlib.Path(args.matrix).name} ({S.shape[0]}x{S.shape[1]}, {S.nnz} nnz); median ms")
    for label, ms in rows:
        print(f"  {label:55} {ms:9.4f}")


if __name__ == "__main__":
    main()
