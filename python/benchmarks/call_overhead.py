"""The cost of calling a compiled react kernel from Python, over the kernel itself
(docs/python.md, "Call overhead"): each kernel is called CALLS times from Python (kernel(**inputs),
results built included) and CALLS times from C++ on the same arrays (Kernel::runRaw); the
difference per call is the overhead. Python's calls are timed in batches of about 0.2 ms and a
measurement is the median batch's time per call, the kernel's the median call: on a machine
shared with other work, a batch or call during which the process waited for a core is an outlier,
not part of the mean (batches much longer than a time slice would all be slowed). Medians of
REPEATS such measurements.

    PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/call_overhead.py [--calls N] [--repeats R]

OMP_NUM_THREADS=1 takes the OpenMP threads' wake-up out of both numbers (on a busy machine a
sleeping second thread makes either side noisy).
"""

import argparse
import pathlib
import statistics
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

import react


REPO = pathlib.Path(__file__).resolve().parents[2]
CORA = REPO.parent / "shared/data/matrices/cora.mtx"


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
    ] + readme_example()


def readme_example():
    """The README's SDDMM on cora, K=64 (python/benchmarks/lazy_vs_gen.py), where the matrix is
    beside the checkout: a csr input's check, the int32 indptr's widening and the result's copied
    pattern grow with its 10556 entries."""
    if not CORA.is_file():
        return []
    S = sp.csr_matrix(scipy.io.mmread(str(CORA)))
    rng = np.random.default_rng(0)
    B, C = rng.random((S.shape[0], 64)), rng.random((S.shape[1], 64))
    return [("SDDMM cora, 10556 nnz, K=64 (SciPy's int32 indptr)", "A = S * (B @ C.T)", {"S": S, "B": B, "C": C})]


BATCH_SECONDS = 2e-4


def per_call(f, calls):
    """Seconds per call of f: the median over batches of about BATCH_SECONDS, `calls` calls in all."""
    start = time.perf_counter()
    f()
    batch = max(1, min(calls, round(BATCH_SECONDS / (time.perf_counter() - start))))
    batches = []
    for _ in range(max(1, calls // batch)):
        start = time.perf_counter()
        for _ in range(batch):
            f()
        batches.append((time.perf_counter() - start) / batch)
    return statistics.median(batches)


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
            raw.append(statistics.median(kernel._kernel_seconds(args.calls, **inputs)))
        p, r = statistics.median(python) * 1e6, statistics.median(raw) * 1e6
        print(f"{label:50} {p:10.2f} {r:10.2f} {p - r:10.2f}")


if __name__ == "__main__":
    main()
