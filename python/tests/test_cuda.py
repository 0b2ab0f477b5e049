"""torch.cuda tensors on a CUDA build of react (target="kokkos"): inputs read in place on the
device, results allocated there, values against SciPy on the host. Skipped where torch has no
CUDA device (Debian's torch, CI); run on the GPU machine (docs/python.md, "Tests")."""

import numpy as np
import pytest
import scipy.sparse as sp
import torch

import react
from conftest import assert_close, random_csr, random_dense

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="torch has no CUDA device")


def cuda_csr(S, index_dtype=torch.int64, dtype=torch.float64):
    return torch.sparse_csr_tensor(torch.tensor(S.indptr, dtype=index_dtype), torch.tensor(S.indices, dtype=index_dtype),
                                   torch.tensor(S.data, dtype=dtype), size=S.shape, device="cuda")


def host_csr(A):
    A = A.cpu()
    return sp.csr_matrix((A.values().numpy(), A.col_indices().numpy(), A.crow_indices().numpy()), shape=A.shape)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_sddmm_on_the_device(dtype):
    S = random_csr(3000, 2000, 0.004, 1)
    B, C = random_dense((3000, 64), 2), random_dense((2000, 64), 3)
    tS, tB, tC = cuda_csr(S, dtype=dtype), torch.tensor(B, dtype=dtype, device="cuda"), torch.tensor(C, dtype=dtype, device="cuda")
    kernel = react.compile("A = S * (B @ C.T)", S=tS, B=tB, C=tC, target="kokkos", fusion="react")
    A = kernel(S=tS, B=tB, C=tC)
    assert A.layout == torch.sparse_csr and A.values().device.type == "cuda" and A.values().dtype == dtype
    # The dense inputs and the values are read where they are; torch's int64 coordinates narrow
    # to the kernel's int32 (one counted copy, on the device).
    assert kernel.last_copy_bytes == 4 * S.nnz
    want = S.multiply(B @ C.T).tocsr()
    numpy_type = np.float64 if dtype == torch.float64 else np.float32
    assert_close(host_csr(A), want, numpy_type)


def test_dense_result_and_softmax_on_the_device():
    S = random_csr(2000, 1500, 0.01, 4)
    x = random_dense((1500, 16), 5)
    tS, tx = cuda_csr(S), torch.tensor(x, device="cuda")
    spmm = react.compile("y = S @ x", S=tS, x=tx, target="kokkos", fusion="react")
    y = spmm(S=tS, x=tx)
    assert y.device.type == "cuda" and y.shape == (2000, 16)
    assert_close(y.cpu().numpy(), S @ x)
    softmax = react.compile("A = softmax(S, axis=1)", S=tS, target="kokkos", fusion="react")
    A = host_csr(softmax(S=tS))
    want = S.copy()
    for r in range(S.shape[0]):
        row = want.data[S.indptr[r]:S.indptr[r + 1]]
        if row.size:
            e = np.exp(row - row.max())
            row[:] = e / e.sum()
    assert_close(A, want)


def test_host_arrays_for_a_device_kernel_are_refused():
    S = random_csr(50, 40, 0.1, 6)
    tS = cuda_csr(S)
    kernel = react.compile("A = S / sum(S, axis=1)", S=tS, target="kokkos", fusion="react")
    with pytest.raises(react.Error, match="S"):
        kernel(S=S)
