#!/usr/bin/env python3
"""Compares react-gen's co-iteration of two sparse matrices (csr, csc and dcsr) with SciPy (docs/semantics.md, "Two
sparse patterns").

usage: scipy_coiteration.py REACT_GEN WORKDIR FUSION TARGET CACHE_DIR

For pairs of random matrices (empty rows, disjoint patterns, one pattern with other values,
explicit zeros, an operand without entries) written as Matrix Market files, runs
`react-gen 'A = S op T' -i=S:... -i=T:... -f=S:F -f=T:F -o=A:...` for op in *, +, - and each format F
(the result is stored in F) and checks:
  - the values against SciPy's S.multiply(T), S + T, S - T, exactly (each entry is one operation);
  - the stored entries against the structural intersection / union SciPy computes from the
    patterns alone (all stored values replaced by 1, so nothing cancels): SciPy drops the
    entries whose result is 0, react keeps every entry of the pattern.
Exits 1 on any disagreement.
"""
import subprocess
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp

react_gen, work, fusion, target, cache = sys.argv[1:6]
rng = np.random.default_rng(21)


def random_csr(rows, cols, density, empty_rows=True):
    m = sp.random(rows, cols, density=density, format="csr", random_state=rng, data_rvs=lambda n: rng.uniform(-2, 2, n))
    if empty_rows:
        keep = np.ones(rows)
        keep[rng.choice(rows, size=max(1, rows // 4), replace=False)] = 0
        m = sp.csr_matrix(sp.diags(keep) @ m)
        m.eliminate_zeros()
    m.sort_indices()
    return m


def with_explicit_zeros(m, every):
    m = m.copy()
    m.data[::every] = 0.0  # stored entries of value 0
    return m


def pairs():
    yield "random", random_csr(40, 30, 0.2), random_csr(40, 30, 0.2)
    full = random_csr(25, 20, 0.8, empty_rows=False).tocoo()
    even, odd = full.col % 2 == 0, full.col % 2 == 1
    yield ("disjoint", sp.csr_matrix((full.data[even], (full.row[even], full.col[even])), shape=full.shape),
           sp.csr_matrix((full.data[odd], (full.row[odd], full.col[odd])), shape=full.shape))
    one = random_csr(30, 30, 0.3)
    other = one.copy()
    other.data = rng.uniform(-2, 2, other.nnz)
    yield "one pattern", one, other
    yield "explicit zeros", with_explicit_zeros(random_csr(35, 25, 0.3), 3), with_explicit_zeros(random_csr(35, 25, 0.3), 4)
    yield "no entries", random_csr(10, 12, 0.4), sp.csr_matrix((10, 12))


def write(name, m):
    path = f"{work}/{name}.mtx"
    # coordinate format keeps the explicit zeros
    scipy.io.mmwrite(path, sp.coo_matrix(m), precision=17, field="real")
    return path


def react(op, s, t, fmt):
    out = f"{work}/A.mtx"
    args = [react_gen, f"A = S {op} T", f"-fusion={fusion}", f"-target={target}", f"-cache-dir={cache}",
            f"-i=S:{s}", f"-i=T:{t}", f"-f=S:{fmt}", f"-f=T:{fmt}", f"-o=A:{out}"]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return scipy.io.mmread(out).tocoo()


def ones(m):
    m = m.copy()
    m.data[:] = 1.0
    return m


failed = False
for what, S, T in pairs():
    s, t = write("S", S), write("T", T)
    for fmt, op in [(fmt, op) for fmt in ["csr", "csc", "dcsr"] for op in ["*", "+", "-"]]:
        got = react(op, s, t, fmt)
        want = {"*": S.multiply(T), "+": S + T, "-": S - T}[op]
        pattern = (ones(S).multiply(ones(T)) if op == "*" else ones(S) + ones(T)).tocoo()
        same_values = np.array_equal(got.toarray(), want.toarray())
        stored = sorted(zip(got.row.tolist(), got.col.tolist()))
        same_pattern = stored == sorted(zip(pattern.row.tolist(), pattern.col.tolist())) and len(set(stored)) == len(stored)
        print(f"{fmt}, {what}, A = S {op} T: {got.nnz} stored entries (SciPy keeps {want.nnz}), values "
              f"{'equal' if same_values else 'DIFFER'}, pattern {'equal' if same_pattern else 'DIFFERS'}")
        failed |= not (same_values and same_pattern)
sys.exit(1 if failed else 0)
