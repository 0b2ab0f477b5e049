#!/usr/bin/env python3
"""The user-facing tools on a device: react-gen's Kokkos kernels (on the GPU where react was built
against a CUDA Kokkos) against its OpenMP kernels on the host, on a real matrix, through the files
react-gen writes (-o), in float64 and float32.

    python3 scripts/device_check.py --bin build-cuda/bin --matrix cora.mtx [--out DIR] [--program NAME]...

A result that is all zeros, differs in its pattern or shape, or differs by more than the tolerance
fails the check (exit 1). Needs NumPy only: the Matrix Market reader is below.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

# (name, statement, react-gen arguments besides -i/-o); every dense input generated from a fixed
# seed, so both targets see the same values.
PROGRAMS = [
    ("sddmm", "A = S * (B @ C)", ["-g=B:u:1", "-g=C:u:2", "-d=k:64"]),
    ("sddmm_ct", "A = S * (B @ C.T)", ["-g=B:u:1", "-g=C:u:2", "-d=k:64"]),
    ("spmm_mm", "A = S @ C @ D", ["-g=C:u:3", "-g=D:u:4", "-d=h:256", "-d=j:16"]),
    ("norm_row", "A = S / sum(S, axis=1)", []),
    ("softmax", "A = softmax(S, axis=1)", []),
]
TOLERANCE = {"float64": 1e-12, "float32": 1e-5}


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
        return (dims[0], dims[1]), entries[:, :2].astype(np.int64), entries[:, 2]
    return (dims[0], dims[1]), None, rest


def run(argv):
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.exit(f"device_check: {' '.join(argv)} exited {done.returncode}:\n{done.stdout}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True, help="folder with react-gen")
    parser.add_argument("--matrix", required=True, help="a Matrix Market file for S")
    parser.add_argument("--out", help="keep the result files here (default: a temporary folder)")
    parser.add_argument("--program", action="append", choices=[p[0] for p in PROGRAMS],
                        help="check only this program (repeatable; default: all)")
    args = parser.parse_args()
    programs = [p for p in PROGRAMS if not args.program or p[0] in args.program]
    out = args.out or tempfile.mkdtemp(prefix="react-device-check-")
    os.makedirs(out, exist_ok=True)
    gen = os.path.join(args.bin, "react-gen")
    failed = 0
    for value_type in ("float64", "float32"):
        for name, statement, extra in programs:
            files = {}
            for target in ("openmp", "kokkos"):
                files[target] = os.path.join(out, f"{name}-{value_type}-{target}.mtx")
                run([gen, statement, f"-i=S:{args.matrix}", *extra, f"-t={value_type}", f"-target={target}",
                     "-fusion=react", f"-o=A:{files[target]}"])
            shape_h, where_h, host = read_matrix_market(files["openmp"])
            shape_d, where_d, device = read_matrix_market(files["kokkos"])
            scale = max(np.max(np.abs(host)), np.finfo(float).tiny)
            same_structure = shape_h == shape_d and (where_h is None) == (where_d is None) and (
                where_h is None or np.array_equal(where_h, where_d))
            error = np.max(np.abs(device - host)) / scale if same_structure and host.size else float("inf")
            ok = same_structure and error <= TOLERANCE[value_type] and np.any(device != 0)
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name:9s} {value_type}: {host.size} values, "
                  f"max |kokkos - openmp| / max |openmp| = {error:.2e}"
                  + ("" if np.any(device != 0) else " (kokkos result all zeros)"), flush=True)
    print(f"{len(programs) * 2 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
