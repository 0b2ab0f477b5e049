#!/usr/bin/python3
"""SciPy baseline for react-bench: each benchmark kernel computed the way a SciPy user writes it,
in both association orders where there is a choice (spmm_mm: (S @ C) @ D and S @ (C @ D)), timed
like react-bench (one warm-up, then --reps runs within --budget seconds, median) and written as
react-bench's CSV columns, so that scripts can join the two files on (matrix, kernel, dims).

Run with Debian's Python (python3-scipy): /usr/bin/python3 scripts/scipy_bench.py --help
Synthetic matrices: write them with `react-bench --write-synthetic DIR ...` and pass DIR here.
"""
import argparse
import os
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--matrix", nargs="+", required=True, help="Matrix Market files or folders of them")
    p.add_argument("--kernel", default="all", help="comma list of sddmm, spmm_mm, norm_row, softmax, or all")
    p.add_argument("--sddmm-k", default="64,256", help="sddmm dense sizes K (comma list)")
    p.add_argument("--nh", type=int, default=256)
    p.add_argument("--nj", type=int, default=16)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--budget", type=float, default=2.0, help="seconds of timed runs per item at most")
    p.add_argument("--threads", type=int, default=1, help="BLAS threads (SciPy's sparse products use one)")
    p.add_argument("--max-temp-gb", type=float, default=4.0, help="refuse kernels whose dense temporaries exceed this")
    p.add_argument("--max-flops", type=float, default=6e10, help="refuse kernels performing more flops per run")
    p.add_argument("--csv", required=True)
    return p.parse_args()


ARGS = parse_args()
# BLAS threads must be fixed before numpy loads.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(ARGS.threads)

import numpy as np  # noqa: E402
import scipy.io  # noqa: E402
import scipy.sparse as sp  # noqa: E402


def matrix_files(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                out += [os.path.join(root, f) for f in files if f.endswith(".mtx")]
        else:
            out.append(p)
    return sorted(out, key=lambda f: os.path.basename(f))


def timed(run, reps, budget):
    start = time.perf_counter()
    run()  # warm-up
    first = time.perf_counter() - start
    n = max(1, min(reps, int(budget / first) if first > 0 else reps))
    times = []
    for _ in range(n):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    times.sort()
    mid = len(times) // 2
    median = times[mid] if len(times) % 2 else 0.5 * (times[mid - 1] + times[mid])
    return median, times[0], times[-1], len(times)


def kernels(names, ks, nh, nj):
    out = []
    for name in ["sddmm", "spmm_mm", "norm_row", "softmax"]:
        if "all" not in names and name not in names:
            continue
        if name == "sddmm":
            out += [(name, "K=%d" % k, {"k": k}) for k in ks]
        elif name == "spmm_mm":
            out.append((name, "NH=%d NJ=%d" % (nh, nj), {"nh": nh, "nj": nj}))
        else:
            out.append((name, "", {}))
    return out


def variants(name, s, p, rng):
    """(variant name, function, dense temporary bytes, useful flops, performed flops) for one kernel."""
    n, m, nnz = s.shape[0], s.shape[1], s.nnz
    if name == "sddmm":
        k = p["k"]
        b, c = rng.random((n, k)), rng.random((k, m))
        # A SciPy user masks the dense product: S.multiply(B @ C) (a csr result with S's pattern).
        return [("scipy", lambda: s.multiply(b @ c).tocsr(), 8.0 * n * m, nnz * (2 * k + 1), 2.0 * n * m * k)]
    if name == "spmm_mm":
        nh, nj = p["nh"], p["nj"]
        c, d = rng.random((m, nh)), rng.random((nh, nj))
        work = 2 * nnz * nh + 2 * n * nh * nj
        return [("scipy-left", lambda: (s @ c) @ d, 8.0 * n * nh, work, work),
                ("scipy-right", lambda: s @ (c @ d), 8.0 * m * nj, work, 2 * m * nh * nj + 2 * nnz * nj)]
    pos = s.copy()
    pos.data = 0.5 + rng.random(nnz)
    if name == "norm_row":
        return [("scipy", lambda: sp.diags(1.0 / np.asarray(pos.sum(axis=1)).ravel()) @ pos, 0.0, 2 * nnz, 2 * nnz)]

    def softmax():
        e = pos.copy()
        e.data = np.exp(e.data)
        return sp.diags(1.0 / np.asarray(e.sum(axis=1)).ravel()) @ e
    return [("scipy", softmax, 0.0, 3 * nnz, 3 * nnz)]


def main():
    names = ARGS.kernel.split(",")
    ks = [int(k) for k in ARGS.sddmm_k.split(",") if k]
    header = ("matrix,rows,cols,nnz,kernel,dims,variant,threads,variant_threads,status,runs,median_s,min_s,max_s,"
              "gflops,gbs,bw_fraction,model_flops,model_bytes,performed_flops,machine_gbs,note\n")
    with open(ARGS.csv, "w") as out:
        out.write(header)
        for f in matrix_files(ARGS.matrix):
            s = sp.csr_matrix(scipy.io.mmread(f), dtype=np.float64)
            s.sum_duplicates()
            s.sort_indices()
            mname = os.path.splitext(os.path.basename(f))[0]
            for name, dims, p in kernels(names, ks, ARGS.nh, ARGS.nj):
                rng = np.random.default_rng(1)
                for vname, run, temp, flops, performed in variants(name, s, p, rng):
                    base = [mname, s.shape[0], s.shape[1], s.nnz, name, dims, vname, ARGS.threads, ARGS.threads]
                    note = ""
                    if temp > ARGS.max_temp_gb * 1e9:
                        note = "cannot run: needs %.1f GB of dense temporaries" % (temp / 1e9)
                    elif performed > ARGS.max_flops:
                        note = "cannot run: performs %.2g flops per run" % performed
                    if note:
                        out.write(",".join(map(str, base + ["cannot run", 0, "", "", "", "", "", "", flops, "", performed, "", note])) + "\n")
                        continue
                    median, lo, hi, runs = timed(run, ARGS.reps, ARGS.budget)
                    row = base + ["ok", runs, "%.6g" % median, "%.6g" % lo, "%.6g" % hi, "%.6g" % (flops / median / 1e9),
                                  "", "", "%.6g" % flops, "", "%.6g" % performed, "", ""]
                    out.write(",".join(map(str, row)) + "\n")
                    out.flush()
                    print("%s %s %s %s: %.4g s" % (mname, name, dims, vname, median), file=sys.stderr)


main()
