"""The benchmark kernels through react.compile agree with SciPy/NumPy on a real matrix (cora) and
a random one, in float64 and float32, with int32 and int64 indices, in operator form and index
notation; one compiled kernel serves matrices of any size."""

import numpy as np
import pytest
import scipy.sparse as sp

import react
from conftest import assert_close, random_csr, random_dense

K = 64  # SDDMM's dense extent, as the benchmarks'
NH, NJ = 256, 16  # SpMM-MM's


def row_softmax(S):
    """softmax over each row's stored entries (torch.sparse.softmax's semantics)."""
    rows = np.repeat(np.arange(S.shape[0]), np.diff(S.indptr))
    data = S.data.astype(np.float64)
    row_max = np.full(S.shape[0], -np.inf)
    np.maximum.at(row_max, rows, data)
    e = np.exp(data - row_max[rows])
    out = S.copy().astype(np.float64)
    out.data = e / np.bincount(rows, e, S.shape[0])[rows]
    return out


def row_normalised(S):
    sums = np.asarray(S.sum(axis=1, dtype=np.float64)).ravel()
    return sp.diags(np.divide(1.0, sums, out=np.zeros_like(sums), where=sums != 0)) @ S.astype(np.float64)


# name -> (program, dense inputs by shape given S's (rows, cols), SciPy's result)
KERNELS = {
    "sddmm": ("A = S * (B @ C)", lambda n, m: {"B": (n, K), "C": (K, m)},
              lambda S, B, C: S.multiply(B @ C)),
    "sddmm_t": ("A = S * (B @ C.T)", lambda n, m: {"B": (n, K), "C": (m, K)},
                lambda S, B, C: S.multiply(B @ C.T)),
    "spmm_mm": ("A = S @ C @ D", lambda n, m: {"C": (m, NH), "D": (NH, NJ)},
                lambda S, C, D: S @ C @ D),
    "norm_row": ("A = S / sum(S, axis=1)", lambda n, m: {}, lambda S: row_normalised(S)),
    "softmax": ("A = softmax(S, axis=1)", lambda n, m: {}, lambda S: row_softmax(S)),
}


def inputs_for(name, S, dtype, seed):
    shapes = KERNELS[name][1](*S.shape)
    return {"S": S.astype(dtype), **{t: random_dense(shape, seed + k, dtype) for k, (t, shape) in enumerate(shapes.items())}}


def reference(name, inputs):
    want = KERNELS[name][2](**{k: v.astype(np.float64) for k, v in inputs.items()})
    return want


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", list(KERNELS))
def test_benchmark_kernel_on_cora_and_random_matrices(name, dtype, cora):
    inputs = inputs_for(name, cora, dtype, 1)
    kernel = react.compile(KERNELS[name][0], **inputs)
    assert_close(kernel(**inputs), reference(name, inputs), dtype)
    # The same kernel on a matrix of another size (sparse extents are run-time arguments), with
    # empty rows, and with int64 indices.
    other = inputs_for(name, random_csr(97, 61, 0.08, 5), dtype, 2)
    if name == "sddmm_t":
        other["C"] = random_dense((61, K), 3, dtype)
    assert_close(kernel(**other), reference(name, other), dtype)
    wide = dict(other, S=other["S"].copy())
    wide["S"].indptr, wide["S"].indices = wide["S"].indptr.astype(np.int64), wide["S"].indices.astype(np.int64)
    assert_close(kernel(**wide), reference(name, other), dtype)


@pytest.mark.parametrize("fusion", ["none", "maximal", "react", "auto"])
def test_fusion_modes_agree(fusion):
    inputs = inputs_for("sddmm_t", random_csr(40, 30, 0.1, 7), np.float64, 3)
    kernel = react.compile("A = S * (B @ C.T)", fusion=fusion, **inputs)
    assert_close(kernel(**inputs), reference("sddmm_t", inputs))
    assert (kernel.decisions() is not None) == (fusion == "auto")


def test_index_notation_takes_formats_and_sizes_from_the_inputs():
    inputs = inputs_for("sddmm", random_csr(30, 20, 0.2, 8), np.float64, 4)
    kernel = react.compile("A(i,j) = S(i,j) * B(i,k) * C(k,j)", **inputs)
    assert_close(kernel(**inputs), reference("sddmm", inputs))


def test_several_results_come_back_by_name():
    S = random_csr(25, 25, 0.2, 9)
    B = random_dense((25, 4), 6)
    # A result's kept axis is dropped: r is a vector (docs/semantics.md).
    kernel = react.compile("r = sum(S, axis=1); A = S @ B; N = S / sum(S, axis=1)", S=S, B=B)
    assert set(kernel.results) == {"r", "A", "N"}
    out = kernel(S=S, B=B)
    assert set(out) == {"r", "A", "N"}
    assert_close(out["r"], np.asarray(S.sum(axis=1)).ravel())
    assert_close(out["A"], S @ B)
    assert_close(out["N"], row_normalised(S))


def test_kokkos_target():
    inputs = inputs_for("sddmm", random_csr(30, 20, 0.2, 10), np.float64, 5)
    kernel = react.compile("A = S * (B @ C)", target="kokkos", fusion="react", **inputs)
    assert_close(kernel(**inputs), reference("sddmm", inputs))
    assert "Kokkos" in kernel.source()


def stored(M):
    """The (row, column) pairs a csr matrix stores."""
    return set(zip(np.repeat(np.arange(M.shape[0]), np.diff(M.indptr)).tolist(), M.indices.tolist()))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fusion", ["auto", "react"])
def test_coiteration_agrees_with_scipy(dtype, fusion):
    # Two csr inputs of different patterns: the kernel assembles the result's pattern, the
    # intersection of the stored entries for '*', their union for '+' and '-' (docs/semantics.md,
    # "Two sparse patterns"). Values in [0.5, 1.5) and random, so SciPy, which drops results
    # equal to 0, stores the same entries.
    S, T = random_csr(40, 30, 0.2, 1, dtype), random_csr(40, 30, 0.3, 2, dtype)
    keep = np.ones(S.shape[0], dtype)
    keep[5] = 0  # a row stored in T only
    S = sp.csr_matrix(sp.diags(keep) @ S)
    S.eliminate_zeros()
    S.sort_indices()
    assert S[5].nnz == 0 and T[5].nnz > 0
    for op, want, entries in (("*", S.multiply(T), stored(S) & stored(T)), ("+", S + T, stored(S) | stored(T)),
                              ("-", S - T, stored(S) | stored(T))):
        kernel = react.compile(f"A = S {op} T", fusion=fusion, S=S, T=T)
        A = kernel(S=S, T=T)
        assert isinstance(A, sp.csr_matrix) and A.shape == S.shape and A.dtype == dtype, op
        assert stored(A) == entries and A.nnz == len(entries), op
        assert_close(A, sp.csr_matrix(want), dtype)
        assert kernel.last_copy_bytes > 0  # the inputs are copied for the merge (docs/python.md)
    # With another csr result at an input's pattern and a dense one, in one call.
    C = random_dense((30, 3), 5, dtype)
    mixed = react.compile("B = S - T\nD = S @ C\nE = T * 2", fusion=fusion, S=S, T=T, C=C)
    got = mixed(S=S, T=T, C=C)
    assert_close(got["B"], S - T, dtype)
    assert_close(got["D"], S @ C, dtype)
    assert_close(got["E"], T * 2, dtype)
    assert stored(got["E"]) == stored(T)
    # One kernel serves other operands: the pattern is assembled at every call.
    S2, T2 = random_csr(50, 30, 0.1, 3, dtype), random_csr(50, 30, 0.1, 4, dtype)
    assert stored(kernel(S=S2, T=T2)) == stored(S2) | stored(T2)


def test_inspection():
    inputs = inputs_for("spmm_mm", random_csr(50, 50, 0.1, 11), np.float64, 6)
    kernel = react.compile("A = S @ C @ D", **inputs)
    assert "chain 1:" in kernel.decisions() and "candidates" in kernel.decisions()
    assert "S" in kernel.tree() and "extern \"C\" void react_kernel" in kernel.source()
    assert "nest" in kernel.loops()
    assert kernel.library.startswith(react.cache_dir())
    assert kernel.inputs == ("C", "D", "S") or set(kernel.inputs) == {"C", "D", "S"}
