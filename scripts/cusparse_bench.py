#!/usr/bin/env python3
"""The cuSPARSE baseline for react-bench on a GPU: the benchmark kernels (docs/benchmarks.md, "Work model")
computed the way a PyTorch user would, timed with CUDA events, written with react-bench's CSV
columns so that both files load together (scripts/bench_results.py).

    python3 scripts/cusparse_bench.py --matrix DIR_OR_FILES... --csv out.csv [--reps 20] [--dtype float32]

Variants (PyTorch 2.x calls; cuSPARSE does the sparse products):
  sddmm     torch.sparse.sampled_addmm(S, B, C, beta=0) (cuSPARSE SDDMM), then * S's values
  spmm_mm   library-cusparse: (S @ C) @ D (cuSPARSE SpMM, then cuBLAS GEMM), as written;
            library-cusparse-right: S @ (C @ D) (GEMM, then SpMM), the other association
  norm_row  r = S @ ones (cuSPARSE SpMV); A = S.values / r[row of each entry]
  softmax   torch.sparse.softmax(S, dim=1) on the COO form
Inputs are moved to the GPU and converted (CSR, COO, row index of each entry) once, outside the
timed region, as react-bench does. Each result is checked against SciPy/NumPy in float64 on the
CPU before timing: a float64 run to a relative error below 1e-10, a float32 run (--dtype float32:
every input, product and result in float32, as react-bench --value-type float32; TF32 off) within
float32_tolerance, react-bench's bound (apps/bench/check.cpp derives it).
"""
import argparse
import csv
import math
import pathlib
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
import torch

COLUMNS = ("matrix,rows,cols,nnz,kernel,dims,variant,threads,variant_threads,space,status,runs,median_s,min_s,max_s,"
           "gflops,gbs,bw_fraction,model_flops,model_bytes,performed_flops,machine_gbs,note,format,value_type").split(",")
DTYPES = {"float64": torch.float64, "float32": torch.float32}
VALUE_BYTES = {"float64": 8, "float32": 4}


def useful_work(kernel, k, nh, nj, s, vb=8):
    """Flops and bytes of a non-redundant evaluation: the same model as react-bench (kernels.cpp);
    vb: bytes of a value (4 in float32)."""
    nnz, ni, ncols = float(s.nnz), float(s.shape[0]), float(s.shape[1])
    sparse_read = nnz * (vb + 4) + (ni + 1) * 8
    sparse_write = nnz * vb
    if kernel == "sddmm":
        return nnz * (2 * k + 1), sparse_read + (ni + ncols) * k * vb + sparse_write
    if kernel == "spmm_mm":
        return 2 * nnz * nh + 2 * ni * nh * nj, sparse_read + (ncols * nh + nh * nj) * vb + ni * nj * vb
    if kernel == "norm_row":
        return 2 * nnz, sparse_read + sparse_write
    return 3 * nnz, sparse_read + sparse_write


def time_gpu(fn, reps, budget):
    """Median, min, max seconds of `reps` runs (fewer when they would exceed `budget` seconds)."""
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    first = start.elapsed_time(end) / 1e3
    runs = max(1, min(reps, int(budget / first) if first > 0 else reps))
    times = []
    for _ in range(runs):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    times.sort()
    n = len(times)
    median = times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] + times[n // 2])
    return median, times[0], times[-1], n


def copy_bandwidth(dev, nbytes=1 << 30, trials=10):
    """Device-to-device copy, bytes read plus written per second (best of `trials`)."""
    a = torch.empty(nbytes // 8, dtype=torch.float64, device=dev)
    b = torch.ones_like(a)
    a.copy_(b)
    best = 0.0
    for _ in range(trials):
        torch.cuda.synchronize()
        t = time.perf_counter()
        a.copy_(b)
        torch.cuda.synchronize()
        best = max(best, 2.0 * nbytes / (time.perf_counter() - t))
    return best


def float32_roundings(kernel, k, nh, s):
    """The roundings one result entry passes through at most in float32 (react-bench's
    float32Roundings, apps/bench/check.cpp): n - 1 additions of the longest reduction, the inputs'
    roundings and the products; expf within 4 ulps (CUDA's within 2)."""
    row = int(np.max(np.diff(s.indptr), initial=0))
    if kernel == "sddmm":
        return k + 4
    if kernel == "spmm_mm":
        return nh * row + 4
    return row + (2 if kernel == "norm_row" else 20)


def float32_tolerance(kernel, k, nh, s, want, magnitude):
    """gamma_m max|magnitude| / max|want| (gamma_m = m u / (1 - m u), u = 2^-24 + 2^-53): the bound
    on the relative error relative_error measures; magnitude: the float64 result on |S|."""
    u = 2.0 ** -24 + 2.0 ** -53
    m = float32_roundings(kernel, k, nh, s)
    if m * u >= 1:
        return math.inf
    gamma = m * u / (1 - m * u)
    scale = np.max(np.abs(want)) if want.size else 0.0
    largest = np.max(np.abs(magnitude)) if magnitude.size else 0.0
    return gamma * largest / scale if scale > 0 else gamma * largest


def relative_error(got, want):
    scale = np.max(np.abs(want)) if want.size else 0.0
    return float(np.max(np.abs(got - want)) / scale) if scale > 0 else float(np.max(np.abs(got - want), initial=0.0))


def variants(kernel, s, k, nh, nj, dev, rng, dtype=torch.float64):
    """(variant name, function to time, function returning the result, the float64 CPU reference and
    the reference on |S| (float32_tolerance's magnitude)). Every tensor is of `dtype`: the float64
    inputs rounded to it."""
    n, m = s.shape
    crow = torch.from_numpy(s.indptr.astype(np.int64)).to(dev)
    col = torch.from_numpy(s.indices.astype(np.int64)).to(dev)
    if kernel in ("norm_row", "softmax"):
        s = s.copy()
        s.data = 0.5 + rng.random(s.nnz)  # positive values, as react-bench (kernels.cpp says why)
    vals = torch.from_numpy(s.data.astype(np.float64)).to(dev, dtype)
    S = torch.sparse_csr_tensor(crow, col, vals, size=(n, m), device=dev)
    if kernel == "sddmm":
        B_h, C_h = rng.random((n, k)), rng.random((k, m))
        B, C = torch.from_numpy(B_h).to(dev, dtype), torch.from_numpy(C_h).to(dev, dtype)
        out = {}

        def run():
            out["A"] = torch.sparse.sampled_addmm(S, B, C, beta=0.0, alpha=1.0).values() * vals

        def check():
            rows = np.repeat(np.arange(n), np.diff(s.indptr))
            want = np.empty(s.nnz)
            for lo in range(0, s.nnz, 1 << 16):  # in chunks: nnz x K at once would not fit on the host
                hi = min(s.nnz, lo + (1 << 16))
                want[lo:hi] = s.data[lo:hi] * np.einsum("pk,pk->p", B_h[rows[lo:hi]], C_h[:, s.indices[lo:hi]].T)
            return out["A"].cpu().double().numpy(), want, np.abs(want)  # B, C >= 0: |S| gives |A|
        return [("library-cusparse", run, check)]
    if kernel == "spmm_mm":
        C_h, D_h = rng.random((m, nh)), rng.random((nh, nj))
        C, D = torch.from_numpy(C_h).to(dev, dtype), torch.from_numpy(D_h).to(dev, dtype)
        want, magnitude = s @ (C_h @ D_h), abs(s) @ (C_h @ D_h)
        out = {}

        def left():
            out["A"] = torch.sparse.mm(S, C) @ D

        def right():
            out["A"] = torch.sparse.mm(S, C @ D)

        def check():
            return out["A"].cpu().double().numpy(), want, magnitude
        return [("library-cusparse", left, check), ("library-cusparse-right", right, check)]
    if kernel == "norm_row":
        ones = torch.ones(m, 1, dtype=dtype, device=dev)
        rows = torch.repeat_interleave(torch.arange(n, device=dev), crow[1:] - crow[:-1])
        out = {}

        def run():
            r = torch.sparse.mm(S, ones).squeeze(1)
            out["A"] = vals / r[rows]

        def check():
            r = np.asarray(s.sum(axis=1)).ravel()
            want = s.data / np.repeat(r, np.diff(s.indptr))
            return out["A"].cpu().double().numpy(), want, want  # S > 0
        return [("library-cusparse", run, check)]
    coo = S.to_sparse_coo().coalesce()  # torch.sparse.softmax takes COO; CSR order is COO order
    out = {}

    def run():
        out["A"] = torch.sparse.softmax(coo, dim=1)

    def check():
        e = s.copy()
        e.data = np.exp(e.data)
        r = np.asarray(e.sum(axis=1)).ravel()
        want = e.data / np.repeat(r, np.diff(s.indptr))
        return out["A"].coalesce().values().cpu().double().numpy(), want, want  # S > 0
    return [("library-cusparse", run, check)]


def load(path):
    a = scipy.io.mmread(str(path))
    s = sp.csr_matrix(a, dtype=np.float64)
    s.sort_indices()
    return s


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matrix", nargs="+", required=True, help="Matrix Market files or folders of *.mtx")
    p.add_argument("--kernel", default="all", help="comma list of sddmm, spmm_mm, norm_row, softmax, or all")
    p.add_argument("--sddmm-k", default="64,256")
    p.add_argument("--nh", type=int, default=256)
    p.add_argument("--nj", type=int, default=16)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--budget", type=float, default=2.0)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="float64",
                   help="every tensor's type (default float64); float32 results are checked within float32_tolerance")
    p.add_argument("--csv", required=True)
    a = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("cusparse_bench: no CUDA device")
    dev = torch.device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = False  # float32 GEMMs in float32, not TF32's 10-bit mantissa
    name = torch.cuda.get_device_name(dev)
    bandwidth = copy_bandwidth(dev)
    print(f"cusparse_bench: {name}, torch {torch.__version__}, copy bandwidth {bandwidth / 1e9:.0f} GB/s", flush=True)
    files = []
    for m in a.matrix:
        path = pathlib.Path(m)
        files += sorted(path.glob("*.mtx")) if path.is_dir() else [path]
    kernels = ["sddmm", "spmm_mm", "norm_row", "softmax"] if a.kernel == "all" else a.kernel.split(",")
    rows = []
    for f in files:
        s = load(f)
        for kernel in kernels:
            sizes = [(int(k), 0, 0) for k in a.sddmm_k.split(",")] if kernel == "sddmm" else [(0, a.nh, a.nj)]
            for k, nh, nj in sizes:
                dims = f"K={k}" if kernel == "sddmm" else (f"NH={nh} NJ={nj}" if kernel == "spmm_mm" else "")
                flops, nbytes = useful_work(kernel, k, nh, nj, s, VALUE_BYTES[a.dtype])
                for variant, run, check in variants(kernel, s, k, nh, nj, dev, np.random.default_rng(1), DTYPES[a.dtype]):
                    row = dict(matrix=f.stem, rows=s.shape[0], cols=s.shape[1], nnz=s.nnz, kernel=kernel, dims=dims,
                               variant=variant, threads=1, variant_threads=1, space=f"cuda ({name})",
                               model_flops=f"{flops:.6g}", model_bytes=f"{nbytes:.6g}", performed_flops=f"{flops:.6g}",
                               machine_gbs=f"{bandwidth / 1e9:.4g}", note="", format="csr", value_type=a.dtype)
                    try:
                        run()
                        torch.cuda.synchronize()
                        got, want, magnitude = check()
                        err = relative_error(got, want)
                        tolerance = 1e-10 if a.dtype == "float64" else float32_tolerance(kernel, k, nh, s, want, magnitude)
                        if not err <= tolerance:
                            raise RuntimeError(f"disagrees with SciPy: relative error {err:.3g} (tolerance {tolerance:.2g})")
                        median, lo, hi, n = time_gpu(run, a.reps, a.budget)
                        row.update(status="ok", runs=n, median_s=f"{median:.6g}", min_s=f"{lo:.6g}", max_s=f"{hi:.6g}",
                                   gflops=f"{flops / median / 1e9:.6g}", gbs=f"{nbytes / median / 1e9:.6g}",
                                   bw_fraction=f"{nbytes / median / bandwidth:.4g}")
                        outcome = f"median {median * 1e3:.4g} ms ({n} runs), rel. error {err:.2g}"
                    except (RuntimeError, torch.cuda.OutOfMemoryError) as e:
                        row.update(status="cannot run", runs=0, note=str(e).splitlines()[0])
                        outcome = row["note"]
                    rows.append(row)
                    print(f"{f.stem} {kernel} {dims} {variant}: {outcome}", flush=True)
                    torch.cuda.empty_cache()
    with open(a.csv, "w", newline="") as out:
        w = csv.DictWriter(out, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    print(f"csv: {a.csv}")


if __name__ == "__main__":
    main()
