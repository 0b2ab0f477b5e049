"""PyTorch tensors through DLPack (docs/python.md, "PyTorch and DLPack").

Dense tensors and sparse CSR tensors (crow_indices, col_indices, values) reach the kernel as
DLPack capsules, on the CPU or a CUDA device, without copies where their layout is the kernel's;
conversions happen here, with torch, on the tensor's own device, and are counted. torch is
imported only by its users: these functions see a tensor only once torch is loaded.
"""

import sys

import numpy as np

from . import _react

Error = _react.Error


def _torch():
    return sys.modules["torch"]


def is_tensor(x):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def dtype_name(t):
    """The value type react gives the values of tensor t."""
    return "float32" if t.dtype == _torch().float32 else "float64"


def _csr_form(x):
    """x as a sparse CSR tensor (a COO one converted, a copy) and the bytes copied."""
    torch = _torch()
    if x.layout == torch.sparse_csr:
        return x, 0
    if x.layout == torch.sparse_coo:
        y = x.coalesce().to_sparse_csr()
        return y, sum(_bytes(t) for t in (y.crow_indices(), y.col_indices(), y.values()))
    raise Error(f"torch layout {x.layout} is not supported (dense, sparse_csr or sparse_coo)")


def _bytes(t):
    return t.numel() * t.element_size()


def describe(x):
    """(shape, csr, value dtype, csr statistics or None), as _inputs.describe."""
    torch = _torch()
    if x.layout == torch.strided:
        return tuple(x.shape), False, dtype_name(x), None
    x, _ = _csr_form(x)
    crow = x.crow_indices()
    rows, cols = x.shape
    longest = int((crow[1:] - crow[:-1]).max()) if rows else 0
    return (rows, cols), True, dtype_name(x), (rows, cols, int(crow[-1]), longest)


def _converted(t, dtype):
    """t detached, of `dtype` and contiguous (a copy where it was not), and the bytes copied."""
    t = t.detach()  # no copy; DLPack refuses tensors that require gradients
    if t.dtype == dtype and t.is_contiguous():
        return t, 0
    t = t.to(dtype).contiguous()
    return t, _bytes(t)


def _ready(t):
    """t once the work torch queued for it on its device is done: a Kokkos kernel runs on its own
    execution space instance, not on torch's current stream (it fences before it returns, so
    its results are ready for any stream)."""
    if t.device.type == "cuda":
        _torch().cuda.current_stream(t.device).synchronize()
    return t


def prepare(name, x, dtype):
    """(DLPack argument, csr source, bytes copied) for input `name` taking `dtype` values."""
    torch = _torch()
    to_dlpack = torch.utils.dlpack.to_dlpack
    values_dtype = torch.float32 if dtype == "float32" else torch.float64
    if x.layout == torch.strided:
        values, copied = _converted(x, values_dtype)
        return to_dlpack(_ready(values)), x, copied
    x, copied = _csr_form(x)
    rows, cols = x.shape
    crow, col = x.crow_indices(), x.col_indices()
    if col.dtype != torch.int32 and col.numel() and (int(col.min()) < 0 or int(col.max()) >= cols):
        raise Error(f"input '{name}': column indices outside 0..{cols - 1}")  # narrowing would wrap them
    positions, c1 = _converted(crow, torch.int64)
    coordinates, c2 = _converted(col, torch.int32)
    values, c3 = _converted(x.values(), values_dtype)
    if x.device.type != "cpu":  # the extension checks host arrays itself
        check_csr(name, positions, coordinates, rows, cols)
    argument = _react.DLPackCsr(rows, cols, to_dlpack(positions), to_dlpack(coordinates), to_dlpack(_ready(values)))
    return argument, x, copied + c1 + c2 + c3


def check_csr(name, crow, col, rows, cols):
    """Raises Error unless crow/col are a valid csr pattern of rows x cols (kernels read them
    unchecked): the checks the extension makes on host arrays, in torch ops on the device."""
    torch = _torch()
    nnz = col.numel()

    def fail(what):
        raise Error(f"tensor '{name}': invalid CSR matrix: {what}")

    if crow.numel() != rows + 1:
        fail(f"crow_indices has {crow.numel()} entries, expected rows+1 = {rows + 1}")
    if int(crow[0]) != 0 or int(crow[-1]) != nnz:
        fail(f"crow_indices runs from {int(crow[0])} to {int(crow[-1])}, expected 0 to nnz = {nnz}")
    if rows and bool((crow[1:] < crow[:-1]).any()):
        fail("crow_indices decreases")
    if nnz and (int(col.min()) < 0 or int(col.max()) >= cols):
        fail(f"a column outside 0..{cols - 1}")
    # Within a row, each column is above the one before: only where a row starts may it not be.
    starts = torch.zeros(nnz, dtype=torch.bool, device=col.device)
    starts[crow[:-1][crow[:-1] < nnz].long()] = True
    if nnz > 1 and bool(((col[1:] <= col[:-1]) & ~starts[1:]).any()):
        fail("unsorted or duplicate columns in a row")


def to_numpy(t):
    """A host NumPy array of tensor t's values (dense)."""
    if t.layout != _torch().strided:
        t = t.to_dense()
    return t.detach().cpu().numpy()


def dense_result(value):
    """A torch tensor of a dense result: a NumPy array (host memory) or a DLPack capsule (device),
    taken over without a copy."""
    torch = _torch()
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value)
    return torch.utils.dlpack.from_dlpack(value)


def csr_result(values, pattern):
    """A sparse CSR tensor of `values` at the stored entries of `pattern`: a sparse CSR tensor, or
    a SciPy csr matrix given beside torch inputs."""
    torch = _torch()
    if is_tensor(pattern):
        crow, col = pattern.crow_indices().clone(), pattern.col_indices().clone()
    else:  # torch wants positions and coordinates of one type
        crow, col = (torch.from_numpy(a.astype(np.int64)) for a in (pattern.indptr, pattern.indices[:values.shape[0]]))
    return torch.sparse_csr_tensor(crow, col, dense_result(values), size=tuple(pattern.shape))


def csr_of(values, indices, indptr, shape):
    """A sparse CSR tensor of NumPy arrays the extension made (a pattern it assembled)."""
    torch = _torch()
    return torch.sparse_csr_tensor(torch.from_numpy(indptr), torch.from_numpy(indices.astype(np.int64)),
                                   torch.from_numpy(values), size=tuple(shape))
