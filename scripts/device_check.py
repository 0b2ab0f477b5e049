#!/usr/bin/env python3
"""The user-facing tools on a device: react-gen's Kokkos kernels (on the GPU where react was built
against a CUDA Kokkos) against its OpenMP kernels on the host, on a real matrix, through the files
react-gen writes (-o), in float64 and float32. With --tensor, also the 3-tensor kernels (MTTKRP and
TTM over a FROSTT file read into csf), in the fusion modes that compute them differently. With
--other-matrix (of the matrix's shape) and --other-tensor, also co-iteration (`S + T`, `S * T`, ...
of two patterns) in csc, dcsr and csf.

    python3 scripts/device_check.py --bin build-cuda/bin --matrix cora.mtx [--tensor B.tns]
        [--other-matrix T.mtx] [--other-tensor E.tns] [--out DIR] [--program NAME]... [--calls N]

A result that is all zeros, differs in its pattern or shape, or differs by more than the tolerance
fails the check (exit 1): 1e-12 of the largest value in float64; in float32 the bound two float32
sums of the longest reduction's length may differ by (float32_tolerance), for nonnegative inputs. Needs NumPy only: the Matrix Market reader is below.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

# (name, statement, react-gen arguments besides -i/-o, the sparse inputs: S a matrix, B a tensor, T
# and E their others, fusion modes); every dense input generated from a fixed seed, so both targets
# see the same values.
PROGRAMS = [
    ("sddmm", "A = S * (B @ C)", ["-g=B:u:1", "-g=C:u:2", "-d=k:64"], "S", ["react"]),
    ("sddmm_ct", "A = S * (B @ C.T)", ["-g=B:u:1", "-g=C:u:2", "-d=k:64"], "S", ["react"]),
    # k not a multiple of the warp's 32 lanes: entry lanes leave the lanes past k out of each sum
    ("sddmm_k48", "A = S * (B @ C)", ["-g=B:u:1", "-g=C:u:2", "-d=k:48"], "S", ["react"]),
    ("spmm_mm", "A = S @ C @ D", ["-g=C:u:3", "-g=D:u:4", "-d=h:256", "-d=j:16"], "S", ["react"]),
    # C @ D first: a plain dense product, which a CUDA build computes with cuBLAS
    ("spmm_mm_right", "A = S @ (C @ D)", ["-g=C:u:3", "-g=D:u:4", "-d=h:256", "-d=j:16"], "S", ["react"]),
    ("norm_row", "A = S / sum(S, axis=1)", [], "S", ["react"]),
    ("softmax", "A = softmax(S, axis=1)", [], "S", ["react"]),
    # exp(S) computed again where the sum and the division read it (recompute-entries), not stored
    ("softmax_exp", "A = exp(S) / sum(exp(S), axis=1)", [], "S", ["react"]),
    # react keeps one row of j per (i,k) fibre; maximal multiplies all three per stored entry
    ("mttkrp", "A(i,j) = B(i,k,l) * C(k,j) * D(l,j)", ["-g=C:u:5", "-g=D:u:6", "-d=j:32"], "B", ["react", "maximal"]),
    # written D first, react keeps a row of j per fibre, which fibre-chunks splits over team threads
    ("mttkrp_fibre", "A(i,j) = B(i,k,l) * D(l,j) * C(k,j)", ["-g=C:u:5", "-g=D:u:6", "-d=j:32"], "B", ["react"]),
    ("ttm", "A(i,j,l) = B(i,j,k) * C(k,l)", ["-g=C:u:7", "-d=l:16"], "B", ["react"]),  # rank 3: a .tns result
    # results in the formats of their patterns: A at B's (i,j) fibres (ssd); A in S's csc and dcsr
    ("ttm_ssd", "A(i,j,l) = B(i,j,k) * C(k,l)", ["-g=C:u:7", "-d=l:16", "-f=A:ssd"], "B", ["react"]),
    ("sddmm_csc", "A = S * (B @ C)", ["-g=B:u:1", "-g=C:u:2", "-d=k:64", "-f=S:csc"], "S", ["react"]),
    ("softmax_dcsr", "A = softmax(S, axis=1)", ["-f=S:dcsr"], "S", ["react"]),
    # co-iteration: the result's pattern assembled from both (a merge of dcsr's rows and csf's
    # slices runs over the assembled first level)
    ("mul_csc", "A = S * T", ["-f=S:csc", "-f=T:csc"], "ST", ["react"]),
    # a csr row's entries on the lanes, each operand's found by a search (search-merged-entries)
    ("add_csr", "A = S + T", [], "ST", ["react"]),
    # a dense result of a merge of dcsr's rows: a loop over every row
    ("mul_dcsr_dense", "A = S * T", ["-f=S:dcsr", "-f=T:dcsr", "-f=A:dense"], "ST", ["react"]),
    ("add_dcsr", "A = S + T", ["-f=S:dcsr", "-f=T:dcsr"], "ST", ["react"]),
    ("sub_csf", "A(i,j,k) = B(i,j,k) - E(i,j,k)", [], "BE", ["react"]),
]
FLOAT64_TOLERANCE = 1e-12
# Roundings in the longest sum a result element is, from the input's longest row (matrices: entries
# of a row and of its column, which bounds a symmetric file's row), slice (B's first coordinate) or
# (i,j) fibre: each product of f factors rounds f-1 times, each addition once, exp and a division a
# few times more (softmax: its max, exp and division, 20 as react-bench counts).
ROUNDINGS = {
    "sddmm": lambda r: 64 + 2, "sddmm_ct": lambda r: 64 + 2, "sddmm_k48": lambda r: 48 + 2,
    "spmm_mm": lambda r: r["row"] + 256 + 2, "spmm_mm_right": lambda r: r["row"] + 256 + 2, "norm_row": lambda r: r["row"] + 2, "softmax": lambda r: r["row"] + 20,
    "softmax_exp": lambda r: r["row"] + 20,
    "mttkrp": lambda r: r["slice"] + 3, "mttkrp_fibre": lambda r: r["slice"] + 3, "ttm": lambda r: r["fibre"] + 1,
    "ttm_ssd": lambda r: r["fibre"] + 1, "sddmm_csc": lambda r: 64 + 2, "softmax_dcsr": lambda r: r["row"] + 20,
    "mul_csc": lambda r: 1, "add_csr": lambda r: 1, "mul_dcsr_dense": lambda r: 1, "add_dcsr": lambda r: 1, "sub_csf": lambda r: 1,
}


def float32_tolerance(name, reductions):
    """Both targets compute in float32 from the same float32 inputs, each within gamma_m = m u / (1 - m u)
    (u = 2^-24) of the exact value relative to the sum of the terms' magnitudes, which is the value
    itself for nonnegative inputs (checked): so they differ by at most 2 gamma_m of the largest value."""
    m, u = ROUNDINGS[name](reductions), 2.0 ** -24
    return 2 * m * u / (1 - m * u)


def longest_reductions(matrix, tensor):
    """The longest row of the matrix, slice and (i,j) fibre of the tensor; whether every value is >= 0."""
    found, nonnegative = {}, True
    _, where, values = read_matrix_market(matrix)
    nonnegative &= bool(np.all(values >= 0))
    if where is not None:
        found["row"] = int(np.max(np.bincount(where[:, 0]))) + int(np.max(np.bincount(where[:, 1])))
    if tensor:
        coordinates = np.loadtxt(tensor, comments="#", ndmin=2)
        nonnegative &= bool(np.all(coordinates[:, -1] >= 0))
        found["slice"] = int(np.max(np.unique(coordinates[:, 0], return_counts=True)[1]))
        found["fibre"] = int(np.max(np.unique(coordinates[:, :2], axis=0, return_counts=True)[1]))
    return found, nonnegative


def read_matrix_market(path):
    """(shape, values): a coordinate file's values in file order, an array file's column-major."""
    with open(path) as f:
        header = f.readline().split()
        line = f.readline()
        while line.startswith("%"):
            line = f.readline()
        dims = [int(x) for x in line.split()]
        rest = np.array(f.read().split(), dtype=float)
    if header[2] == "coordinate":
        entries = rest.reshape(dims[2], -1)
        values = entries[:, 2] if entries.shape[1] > 2 else np.ones(dims[2])  # a pattern file's entries are 1
        return (dims[0], dims[1]), entries[:, :2].astype(np.int64), values
    return (dims[0], dims[1]), None, rest


def read_frostt(path):
    """(shape, coordinates, values) of a FROSTT file react-gen wrote (its first line names the shape)."""
    with open(path) as f:
        shape = tuple(int(x) for x in re.match(r"#\s*([0-9x ]+) tensor", f.readline()).group(1).split("x"))
        rest = np.loadtxt(f, ndmin=2)
    return shape, rest[:, :-1].astype(np.int64), rest[:, -1]


def read_result(path):
    return read_frostt(path) if path.endswith(".tns") else read_matrix_market(path)


def run(argv):
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f"device_check: {' '.join(argv)} exited {done.returncode}:\n{done.stdout}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="folder with react-gen")
    parser.add_argument("--matrix", required=True, help="a Matrix Market file for S")
    parser.add_argument("--tensor", help="a FROSTT .tns file for B (the 3-tensor programs; skipped without it)")
    parser.add_argument("--other-matrix", help="a Matrix Market file of S's shape for T (co-iteration; skipped without it)")
    parser.add_argument("--other-tensor", help="a FROSTT .tns file for E (co-iteration with B; skipped without it)")
    parser.add_argument("--out", help="keep the result files here (default: a temporary folder)")
    parser.add_argument("--program", action="append", choices=[p[0] for p in PROGRAMS],
                        help="check only this program (repeatable; default: all)")
    parser.add_argument("--calls", type=int, default=1,
                        help="the Kokkos result checked is the last of this many calls of one bound kernel (react-gen "
                             "-time): what a kernel keeps between calls (its workspaces) must leave later results right")
    args = parser.parse_args()
    if args.calls < 1:
        parser.error(f"--calls: expected a positive number of calls, got {args.calls}")
    inputs = {"S": args.matrix, "B": args.tensor, "T": args.other_matrix, "E": args.other_tensor}
    programs = [p for p in PROGRAMS if (not args.program or p[0] in args.program) and all(inputs[x] for x in p[3])]
    # B and E are read with the shape that holds both.
    shapes = {}
    if args.tensor and args.other_tensor:
        extent = np.maximum(*(np.loadtxt(f, comments="#", ndmin=2)[:, :-1].max(axis=0) for f in (args.tensor, args.other_tensor)))
        shapes = {x: f"-d={x}:" + "x".join(str(int(n)) for n in extent) for x in "BE"}
    out = args.out or tempfile.mkdtemp(prefix="react-device-check-")
    os.makedirs(out, exist_ok=True)
    gen = os.path.join(args.bin, "react-gen")
    checks = failed = 0
    reductions, nonnegative = longest_reductions(args.matrix, args.tensor)
    value_types = ("float64", "float32") if nonnegative else ("float64",)
    if not nonnegative:
        print("float32 not checked: the tolerance is derived for nonnegative inputs (a value here is negative)")
    for value_type in value_types:
        for (name, statement, extra, sparse, modes), fusion in ((p, m) for p in programs for m in p[4]):
            files = {}
            for target in ("openmp", "kokkos"):
                suffix = ".tns" if name.startswith("ttm") or "E" in sparse else ".mtx"
                files[target] = os.path.join(out, f"{name}-{fusion}-{value_type}-{target}{suffix}")
                read = [f"-i={x}:{inputs[x]}" for x in sparse] + ([shapes[x] for x in sparse] if "E" in sparse else [])
                calls = [f"-time={args.calls - 1}"] if target == "kokkos" and args.calls > 1 else []
                run([gen, statement, *read, *extra, f"-t={value_type}",
                     f"-target={target}", f"-fusion={fusion}", *calls, f"-o=A:{files[target]}"])
            shape_h, where_h, host = read_result(files["openmp"])
            shape_d, where_d, device = read_result(files["kokkos"])
            scale = max(np.max(np.abs(host)), np.finfo(float).tiny)
            same_structure = shape_h == shape_d and (where_h is None) == (where_d is None) and (
                where_h is None or np.array_equal(where_h, where_d))
            error = np.max(np.abs(device - host)) / scale if same_structure and host.size else float("inf")
            tolerance = FLOAT64_TOLERANCE if value_type == "float64" else float32_tolerance(name, reductions)
            ok = same_structure and error <= tolerance and np.any(device != 0)
            checks += 1
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name:9s} {fusion:8s} {value_type}: {host.size} values, "
                  f"max |kokkos - openmp| / max |openmp| = {error:.2e} (tolerance {tolerance:.1e})"
                  + ("" if np.any(device != 0) else " (kokkos result all zeros)"), flush=True)
    print(f"{checks - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
