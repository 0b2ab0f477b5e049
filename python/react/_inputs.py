"""Inputs as react takes them: what compile() declares of each, and what a call hands the kernel.

NumPy arrays and SciPy csr matrices go to the extension as they are (it reads them in place or
converts them once, counting the bytes: docs/python.md, "Copies"); other SciPy formats become csr
here, PyTorch tensors DLPack capsules (_torch.py).
"""

import numpy as np
import scipy.sparse as sp

from . import _react, _torch

Error = _react.Error


_FLOAT32 = np.dtype(np.float32)


def value_dtype(dtype):
    """The value type react gives values of NumPy dtype `dtype`: float32 stays, anything else is
    float64."""
    return "float32" if dtype == _FLOAT32 else "float64"


def csr_statistics(indptr, shape):
    """What fusion mode auto weighs of a csr input: rows, columns, stored entries, longest row."""
    rows = int(shape[0])
    longest = int(np.diff(indptr).max()) if rows else 0
    return (rows, int(shape[1]), int(indptr[-1]), longest)


def describe(name, x):
    """(shape, csr, value dtype, csr statistics or None) of an input given to compile()."""
    if _torch.is_tensor(x):
        return _torch.describe(x)
    if sp.issparse(x):
        x = x.tocsr()
        return x.shape, True, value_dtype(x.dtype), csr_statistics(x.indptr, x.shape)
    try:
        a = np.asarray(x)
    except Exception as e:
        raise Error(f"input '{name}': not an array ({e})") from None
    if a.dtype.kind not in "biuf":
        raise Error(f"input '{name}': a {a.dtype} array; react computes on float32 and float64 values")
    return a.shape, False, value_dtype(a.dtype), None


def prepare(name, x, dtype):
    """What a call hands the kernel for input `name` (taking `dtype` values).

    Returns (argument, csr source, bytes copied, torch?): the csr source is the csr form of a
    sparse input, whose indptr and indices a csr result with this pattern copies.
    """
    if _torch.is_tensor(x):
        argument, source, copied = _torch.prepare(name, x, dtype)
        return argument, source, copied, True
    if sp.issparse(x) and x.format != "csr":
        x = x.tocsr()
        x.sum_duplicates()  # our own copy: sorted columns, no duplicates, as react needs
        return x, x, x.data.nbytes + x.indices.nbytes + x.indptr.nbytes, False
    return x, x, 0, False


# A csr result is assembled without csr_matrix's constructor, which checks its arrays in Python
# (about 15 us, most of a small kernel's call): react checked its pattern, and the attributes are
# those SciPy's constructor gives. If this SciPy's csr_matrix keeps other state, the constructor
# is used (the check below).
_CSR_ATTRIBUTES = {k: v for k, v in vars(sp.csr_matrix((1, 1))).items()
                   if k not in ("data", "indices", "indptr", "_shape")}
_CSR_ATTRIBUTES.update(_has_canonical_format=True, _has_sorted_indices=True)


def _assembled_csr(data, indices, indptr, shape):
    m = sp.csr_matrix.__new__(sp.csr_matrix)
    m.__dict__.update(_CSR_ATTRIBUTES)
    m.data, m.indices, m.indptr, m._shape = data, indices, indptr, shape
    return m


def _constructed_csr(data, indices, indptr, shape):
    return sp.csr_matrix((data, indices, indptr), shape=shape, copy=False)


def _assembly_works():
    reference = sp.csr_matrix(np.array([[1.0, 0, 2], [0, 0, 3]]))
    m = _assembled_csr(reference.data.copy(), reference.indices.copy(), reference.indptr.copy(), reference.shape)
    try:
        m.check_format(full_check=True)
    except Exception:
        return False
    return set(vars(m)) >= set(vars(reference)) and (m != reference).nnz == 0


_csr = _assembled_csr if _assembly_works() else _constructed_csr


def csr_result(values, indices, indptr, shape):
    """A csr_matrix of `values` with the pattern `indices`, `indptr`: the extension's copies of a
    checked input's arrays, which no one else holds."""
    return _csr(values, indices, indptr, shape)
