"""Inputs are read in place where their layout is the kernel's (last_copy_bytes == 0), else
converted once and counted; what cannot be converted is an error naming the input."""

import numpy as np
import pytest
import scipy.sparse as sp

import react
from conftest import assert_close, random_csr, random_dense


def in_place(S):
    """S with react's index types: int64 positions, int32 coordinates. SciPy's constructor gives
    both arrays one type (int32 below 2^31 entries), so this takes an assignment; SciPy's own
    functions then refuse the matrix, react reads it in place."""
    m = S.copy()
    m.indptr = m.indptr.astype(np.int64)
    return m


@pytest.fixture(scope="module")
def sddmm():
    S = random_csr(40, 30, 0.15, 1)
    B, C = random_dense((40, 8), 2), random_dense((30, 8), 3)
    kernel = react.compile("A = S * (B @ C.T)", S=S, B=B, C=C)
    return kernel, S, B, C


def run(kernel, S, B, C, reference=None):
    """kernel's result on these inputs, checked against SciPy's on `reference` (default S); the
    bytes the call copied."""
    result = kernel(S=S, B=B, C=C)
    want = (S if reference is None else reference).multiply(np.asarray(B, dtype=np.float64) @ np.asarray(C, dtype=np.float64).T)
    assert_close(result, want)
    return kernel.last_copy_bytes


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
def test_the_kernels_layouts_are_read_in_place(sddmm):
    kernel, S, B, C = sddmm
    assert run(kernel, in_place(S), B, C, reference=S) == 0
    # np.matrix (what SciPy's reductions give) is an ndarray view of the same data; inputs may
    # be read-only.
    assert run(kernel, in_place(S), np.asmatrix(B), C, reference=S) == 0
    frozen = C.copy()
    frozen.setflags(write=False)
    assert run(kernel, in_place(S), B, frozen, reference=S) == 0


def test_index_conversions_are_counted(sddmm):
    kernel, S, B, C = sddmm
    assert S.indptr.dtype == S.indices.dtype == np.int32  # SciPy's default: positions widen (n+1 entries)
    assert run(kernel, S, B, C) == 8 * (S.shape[0] + 1)
    wide = S.copy()
    wide.indptr, wide.indices = S.indptr.astype(np.int64), S.indices.astype(np.int64)  # coordinates narrow
    assert run(kernel, wide, B, C) == 4 * S.nnz


def test_value_and_layout_conversions_are_counted(sddmm):
    kernel, S, B, C = sddmm
    S64 = in_place(S)
    assert run(kernel, S64, np.asfortranarray(B), C, reference=S) == B.nbytes
    assert run(kernel, S64, B, C.T.copy().T, reference=S) == C.nbytes  # a transposed view: strided
    assert run(kernel, S64, B.astype(np.float32), C, reference=S) == B.nbytes  # float32 into a float64 kernel
    assert run(kernel, S64, B.tolist(), C, reference=S) == B.nbytes
    f32 = in_place(S.astype(np.float32))
    assert run(kernel, f32, B, C, reference=S.astype(np.float32)) == 8 * S.nnz
    # Other SciPy formats become csr (indptr, indices and data of the copy; then the indptr widens).
    coo = S.tocoo()
    converted = coo.tocsr()
    copies = converted.data.nbytes + converted.indices.nbytes + converted.indptr.nbytes + 8 * (S.shape[0] + 1)
    assert run(kernel, coo, B, C, reference=S) == copies


def test_float32_kernels_read_float32_in_place():
    S = random_csr(30, 30, 0.2, 4, np.float32)
    v = random_dense((30, 3), 5, np.float32)
    kernel = react.compile("A = S @ v", S=S, v=v)
    result = kernel(S=in_place(S), v=v)
    assert result.dtype == np.float32 and kernel.last_copy_bytes == 0
    assert_close(result, S.astype(np.float64) @ v.astype(np.float64), np.float32)
    assert react.compile("A = S @ v", S=S, v=v, dtype="float64")(S=S, v=v).dtype == np.float64


def test_unusable_inputs_are_errors_naming_them(sddmm):
    kernel, S, B, C = sddmm
    S = in_place(S)
    with pytest.raises(react.Error, match="input 'B': NumPy cannot read .* as float64"):
        kernel(S=S, B=np.array([["x"] * 8] * 40), C=C)
    with pytest.raises(react.Error, match="input 'B': complex values"):
        kernel(S=S, B=B.astype(complex), C=C)
    with pytest.raises(react.Error, match="input 'B' dimension 1 is 9"):
        kernel(S=S, B=random_dense((40, 9), 1), C=C)
    with pytest.raises(react.Error, match="'S' is declared csr but given dense"):
        kernel(S=S.toarray(), B=B, C=C)
    with pytest.raises(react.Error, match="'B' is declared dense but given csr"):
        kernel(S=S, B=sp.csr_matrix(B), C=C)
    unsorted = S.copy()
    row = np.argmax(np.diff(unsorted.indptr))  # a row with at least two entries
    first = unsorted.indptr[row]
    unsorted.indices[first], unsorted.indices[first + 1] = unsorted.indices[first + 1], unsorted.indices[first]
    with pytest.raises(react.Error, match="tensor 'S': invalid CSR matrix: unsorted column .*sum_duplicates"):
        kernel(S=unsorted, B=B, C=C)
    outside = S.copy()
    outside.indices = outside.indices.astype(np.int64)
    outside.indices[0] = 2**33  # would wrap to a valid column as int32
    with pytest.raises(react.Error, match="input 'S': column index 8589934592"):
        kernel(S=outside, B=B, C=C)
    short = S.copy()
    short.indptr = short.indptr[:-1]
    with pytest.raises(react.Error, match="input 'S': indptr must be rows\\+1"):
        kernel(S=short, B=B, C=C)


def test_a_matrix_changed_in_place_is_checked_again(sddmm):
    """Every call checks a csr input's pattern, also one whose arrays passed the check before:
    nothing proves they did not change since, not even a read-only flag (an array that owns its
    data may be made writable again)."""
    kernel, S, B, C = sddmm
    for matrix in (S.copy(), in_place(S)):  # SciPy's int32 positions (widened), int64 ones (read in place)
        for a in (matrix.indptr, matrix.indices):
            a.setflags(write=False)
        run(kernel, matrix, B, C, reference=S)
        matrix.indices.setflags(write=True)
        row = np.argmax(np.diff(matrix.indptr))  # a row with at least two entries
        first = matrix.indptr[row]
        matrix.indices[first] = S.shape[1]
        with pytest.raises(react.Error, match=f"tensor 'S': invalid CSR matrix: column {S.shape[1]} in row {row} is outside"):
            kernel(S=matrix, B=B, C=C)
        matrix.indices[first] = S.indices[first]
        run(kernel, matrix, B, C, reference=S)
        matrix.indptr.setflags(write=True)
        matrix.indptr[row] = matrix.indptr[row + 1] + 1
        with pytest.raises(react.Error, match="tensor 'S': invalid CSR matrix: rowptr"):
            kernel(S=matrix, B=B, C=C)


def test_names_are_checked(sddmm):
    kernel, S, B, C = sddmm
    with pytest.raises(react.Error, match="no value given for input 'C'"):
        kernel(S=S, B=B)
    with pytest.raises(react.Error, match="no input 'D'"):
        kernel(S=S, B=B, C=C, D=C)
    # Inputs are keywords; names that are not Python identifiers come as a mapping.
    kernel = react.compile("A = else * 2", tensors={"else": B})
    assert_close(kernel(tensors={"else": B}), 2 * B)


def _constructed(result):
    """What SciPy's own constructor makes of a csr result's arrays (it checks them), its sorted
    and canonical flags computed."""
    m = sp.csr_matrix((result.data.copy(), result.indices.copy(), result.indptr.copy()), shape=result.shape)
    m.has_sorted_indices, m.has_canonical_format  # computed and kept by SciPy
    return m


def _non_array_state(m):
    return {k: v for k, v in vars(m).items() if not isinstance(v, np.ndarray)}


def test_a_csr_result_is_the_matrix_scipys_constructor_makes(sddmm):
    """A csr result is assembled without csr_matrix's constructor, from copies of its pattern's
    arrays made by the extension: it must be the matrix the constructor makes of them."""
    kernel, S, B, C = sddmm
    f32 = S.astype(np.float32)
    for pattern, values in ((S, S), (in_place(S), S), (f32, f32.astype(np.float64))):
        result = kernel(S=pattern, B=B, C=C)
        assert type(result) is sp.csr_matrix and result.shape == S.shape and result.nnz == S.nnz
        assert result.indptr.dtype == pattern.indptr.dtype and result.indices.dtype == pattern.indices.dtype
        assert result.indptr.flags.c_contiguous and result.indices.flags.c_contiguous
        assert result.has_sorted_indices and result.has_canonical_format
        assert _non_array_state(result) == _non_array_state(_constructed(result))
        result.check_format(full_check=True)  # (gives indptr and indices one type, as SciPy keeps them)
        assert_close(result, values.multiply(B @ C.T))
        assert_close(result @ C, values.multiply(B @ C.T) @ C)  # SciPy's routines take it


def test_a_csr_results_pattern_is_its_own(sddmm):
    """Changing a result's indptr or indices changes neither the input's nor another result's."""
    kernel, S, B, C = sddmm
    pattern = S.copy()
    first, second = kernel(S=pattern, B=B, C=C), kernel(S=pattern, B=B, C=C)
    for a in (first.indptr, first.indices):
        for b in (pattern.indptr, pattern.indices, second.indptr, second.indices):
            assert not np.shares_memory(a, b)
    first.indices[:] = 0
    first.indptr[:] = 0
    assert np.array_equal(pattern.indices, S.indices) and np.array_equal(pattern.indptr, S.indptr)
    assert_close(second, S.multiply(B @ C.T))
    pattern.indices[:] = 0  # the input changes after the call
    assert np.array_equal(second.indices, S.indices)


def test_a_csr_results_pattern_ends_at_the_inputs_last_entry(sddmm):
    """indptr[-1] ends the stored entries: indices and data past it (SciPy allows them) are not
    the result's; a strided indices view is copied contiguous."""
    kernel, S, B, C = sddmm
    padded = S.copy()
    padded.indices = np.concatenate([S.indices, [0, 1]]).astype(S.indices.dtype)
    padded.data = np.concatenate([S.data, [7.0, 8.0]])
    result = kernel(S=padded, B=B, C=C)
    assert result.indices.shape == (S.nnz,) and np.array_equal(result.indices, S.indices)
    assert_close(result, S.multiply(B @ C.T))
    strided = S.copy()
    strided.indices = np.repeat(S.indices, 2)[::2]
    assert not strided.indices.flags.c_contiguous
    result = kernel(S=strided, B=B, C=C)
    assert result.indices.flags.c_contiguous and np.array_equal(result.indices, S.indices)


def test_a_dlpack_csr_pattern_without_torch_is_an_error(sddmm):
    """The extension copies a csr result's pattern from a SciPy matrix only; a DLPackCsr's is
    torch's to copy (its results are torch tensors)."""
    kernel, S, B, C = sddmm
    m = in_place(S)
    given = react._react.DLPackCsr(*S.shape, *(a.__dlpack__() for a in (m.indptr, m.indices, m.data)))
    with pytest.raises(react.Error, match="result 'A': its pattern, input 'S', is no SciPy csr matrix"):
        kernel(S=given, B=B, C=C)
