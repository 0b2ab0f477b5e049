"""The cost of calling a compiled react kernel from Python, over the kernel itself
(docs/python.md, "Call overhead"): each kernel is called CALLS times from Python (kernel(**inputs),
results built included) and CALLS times from C++ on the same arrays (Kernel::runRaw); the
difference per call is the overhead. Medians of REPEATS such measurements.

    PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/call_overhead.py [--calls N] [--repeats R]

OMP_NUM_THREADS=1 takes the OpenMP threads' wake-up out of both numbers (on a busy machine a
sleeping second thread makes either side noisy).
"""

import argparse
import statistics
import time

import numpy as np
import scipy.sparse as sp

import react


def cases():
    rng = np.random.default_rng(0)
    S = sp.random(50, 40, density=0.1, format="csr", random_state=1)
    in_place = S.copy()
    in_place.indptr = in_place.indptr.astype(np.int64)  # react's index types: read in place
    B, C = rng.random((50, 8)), rng.random((40, 8))
    D = rng.random((4, 4))
    return [
        ("dense 4x4: A = D * 2", "A = D * 2", {"D": D}),
        ("SDDMM 50x40, 200 nnz, K=8 (int64 indptr)", "A = S * (B @ C.T)", {"S": in_place, "B": B, "C": C}),
        ("SDDMM 50x40, 200 nnz, K=8 (SciPy's int32 indptr)", "A = S * (B @ C.T)", {"S": S, "B": B, "C": C}),
        ("row softmax 50x40, 200 nnz", "A = softmax(S, axis=1)", {"S": in_place}),
    ]


def per_call(f, calls):
    start = time.perf_counter()
    for _ in range(calls):
        f()
    return (time.perf_counter() - start) / calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(f"{'kernel':50} {'python':>10} {'kernel':>10} {'overhead':>10}  (us per call, median of {args.repeats})")
    for label, program, inputs in cases():
        kernel = react.compile(program, **inputs)
        kernel(**inputs)  # warm-up
        python, raw = [], []
        for _ in range(args.repeats):
            python.append(per_call(lambda: kernel(**inputs), args.calls))
            raw.append(statistics.fmean(kernel._kernel_seconds(args.calls, **inputs)))
        p, r = statistics.median(python) * 1e6, statistics.median(raw) * 1e6
        print(f"{label:50} {p:10.2f} {r:10.2f} {p - r:10.2f}")


if __name__ == "__main__":
    main()
