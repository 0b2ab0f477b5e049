#!/usr/bin/env python3
"""Compares react-gen with SciPy on SDDMM and SpMM-MM for one Matrix Market file.

usage: scipy_check.py REACT_GEN MATRIX.mtx WORKDIR FUSION TARGET CACHE_DIR
Writes random dense inputs as Matrix Market arrays, runs react-gen -i ... -o ..., and checks the
result against SciPy's to a relative error of 1e-12. Exits 1 on disagreement.
"""
import subprocess
import sys

import numpy as np
import scipy.io
import scipy.sparse

react_gen, matrix, work, fusion, target, cache = sys.argv[1:7]
S = scipy.sparse.csr_matrix(scipy.io.mmread(matrix))
S.sum_duplicates()
S.sort_indices()
n, m = S.shape
rng = np.random.default_rng(7)


def write(name, array):
    path = f"{work}/{name}.mtx"
    scipy.io.mmwrite(path, array, precision=17)
    return path


def react(statement, inputs, out):
    args = [react_gen, statement, f"-fusion={fusion}", f"-target={target}", f"-cache-dir={cache}",
            f"-o=A:{work}/{out}.mtx"]
    args += [f"-i={k}:{v}" for k, v in inputs.items()]
    subprocess.run(args, check=True)
    return scipy.io.mmread(f"{work}/{out}.mtx")


def relative(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300)


failed = False
# SDDMM: A = S * (B @ C), K = 16; the result is sparse with S's pattern.
B, C = rng.random((n, 16)), rng.random((16, m))
got = scipy.sparse.csr_matrix(react("A = S * (B @ C)", {"S": matrix, "B": write("B", B), "C": write("C", C)}, "sddmm"))
want = S.multiply(B @ C).tocsr()
err = relative(got.toarray(), want.toarray())
print(f"sddmm: max relative error {err:.3g}")
failed |= not err < 1e-12

# SpMM-MM: A = S @ C @ D with NH = 32, NJ = 8; dense result.
C2, D = rng.random((m, 32)), rng.random((32, 8))
got = react("A = S @ C @ D", {"S": matrix, "C": write("C2", C2), "D": write("D", D)}, "spmm_mm")
want = (S @ C2) @ D
err = relative(got, want)
print(f"spmm_mm: max relative error {err:.3g}")
failed |= not err < 1e-12
sys.exit(1 if failed else 0)
