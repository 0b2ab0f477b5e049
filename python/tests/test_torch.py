"""PyTorch tensors through DLPack: dense and sparse CSR inputs read in place where their layout
is the kernel's, torch results, the device checks, and the refusal of CUDA memory on a host
build (a DLPack capsule made here, since this torch has no CUDA)."""

import ctypes

import numpy as np
import pytest
import scipy.sparse as sp
import torch  # python3-torch: a test dependency (scripts/install-deps.sh)

import react
from react import _torch
from conftest import assert_close, random_csr, random_dense

def torch_csr(S, index_dtype=torch.int64, dtype=torch.float64):
    return torch.sparse_csr_tensor(torch.tensor(S.indptr, dtype=index_dtype), torch.tensor(S.indices, dtype=index_dtype),
                                   torch.tensor(S.data, dtype=dtype), size=S.shape)


def dense_of(t):
    return _torch.to_numpy(t)


@pytest.fixture(scope="module")
def sddmm():
    S = random_csr(40, 30, 0.15, 1)
    B, C = random_dense((40, 8), 2), random_dense((30, 8), 3)
    kernel = react.compile("A = S * (B @ C.T)", S=torch_csr(S), B=torch.from_numpy(B), C=torch.from_numpy(C))
    return kernel, S, B, C


def test_dense_tensors_are_read_in_place_and_results_are_tensors():
    B, C = random_dense((20, 6), 1), random_dense((6, 5), 2)
    tb, tc = torch.from_numpy(B), torch.from_numpy(C)
    kernel = react.compile("A = exp(B @ C) / 2", B=tb, C=tc)
    A = kernel(B=tb, C=tc)
    assert isinstance(A, torch.Tensor) and A.dtype == torch.float64 and kernel.last_copy_bytes == 0
    assert_close(A.numpy(), np.exp(B @ C) / 2)
    # Gradients are not react's: a tensor that requires them is read detached, still in place.
    assert_close(kernel(B=tb.clone().requires_grad_(), C=tc).numpy(), np.exp(B @ C) / 2)
    assert kernel.last_copy_bytes == 0
    # A transposed view is made contiguous, a float32 tensor float64: counted copies.
    kernel(B=tb, C=tc.T.contiguous().T)
    assert kernel.last_copy_bytes == C.nbytes
    kernel(B=tb.float(), C=tc)
    assert kernel.last_copy_bytes == B.nbytes


def test_coiteration_of_sparse_csr_tensors():
    # The kernel assembles the union of the two patterns; the result is a torch tensor of it.
    S, T = random_csr(30, 20, 0.2, 4), random_csr(30, 20, 0.3, 5)
    kernel = react.compile("A = S + T", S=torch_csr(S), T=torch_csr(T))
    A = kernel(S=torch_csr(S), T=torch_csr(T))
    assert A.layout == torch.sparse_csr and A.shape == S.shape
    assert A.values().shape[0] == (S + T).nnz
    assert_close(sp.csr_matrix(dense_of(A)), S + T)
    # Another csr result, at T's pattern, beside it.
    kernel = react.compile("B = S - T\nE = T * 2", S=torch_csr(S), T=torch_csr(T))
    got = kernel(S=torch_csr(S), T=torch_csr(T))
    assert got["E"].layout == torch.sparse_csr and got["E"].values().shape[0] == T.nnz
    assert_close(sp.csr_matrix(dense_of(got["B"])), S - T)
    assert_close(sp.csr_matrix(dense_of(got["E"])), T * 2)


def test_sparse_csr_tensors(sddmm):
    kernel, S, B, C = sddmm
    tB, tC = torch.from_numpy(B), torch.from_numpy(C)
    want = S.multiply(B @ C.T)
    A = kernel(S=torch_csr(S), B=tB, C=tC)
    assert A.layout == torch.sparse_csr and A.shape == S.shape
    assert_close(sp.csr_matrix(dense_of(A)), want)
    # torch keeps crow and col of one type: int64 coordinates narrow, int32 positions widen.
    assert kernel.last_copy_bytes == 4 * S.nnz
    kernel(S=torch_csr(S, torch.int32), B=tB, C=tC)
    assert kernel.last_copy_bytes == 8 * (S.shape[0] + 1)
    # COO becomes CSR (a counted copy).
    assert_close(sp.csr_matrix(dense_of(kernel(S=torch_csr(S).to_sparse_coo(), B=tB, C=tC))), want)
    assert kernel.last_copy_bytes > 4 * S.nnz


def test_torch_beside_scipy_gives_torch_results(sddmm):
    kernel, S, B, C = sddmm
    A = kernel(S=S, B=torch.from_numpy(B), C=C)
    assert A.layout == torch.sparse_csr
    assert_close(sp.csr_matrix(dense_of(A)), S.multiply(B @ C.T))


def test_float32_tensors():
    S = random_csr(30, 30, 0.2, 4, np.float32)
    v = random_dense((30, 3), 5, np.float32)
    tS, tv = torch_csr(S, torch.int32, torch.float32), torch.from_numpy(v)
    kernel = react.compile("A = S @ v", S=tS, v=tv)
    A = kernel(S=tS, v=tv)
    assert A.dtype == torch.float32
    assert_close(A.numpy(), S.astype(np.float64) @ v.astype(np.float64), np.float32)


def test_csr_checks_on_the_device_side():
    """check_csr is what a CUDA tensor gets (the extension checks host memory itself): on CPU
    tensors here."""
    S = random_csr(6, 5, 0.5, 6)
    crow, col = torch.tensor(S.indptr, dtype=torch.int64), torch.tensor(S.indices, dtype=torch.int32)
    _torch.check_csr("S", crow, col, 6, 5)
    row = int(np.argmax(np.diff(S.indptr)))
    swapped = col.clone()
    first = int(crow[row])
    swapped[first], swapped[first + 1] = col[first + 1], col[first]
    with pytest.raises(react.Error, match="tensor 'S': invalid CSR matrix: unsorted or duplicate"):
        _torch.check_csr("S", crow, swapped, 6, 5)
    with pytest.raises(react.Error, match="a column outside 0..3"):
        _torch.check_csr("S", crow, col, 6, 4)
    with pytest.raises(react.Error, match="crow_indices has 7 entries, expected rows\\+1 = 6"):
        _torch.check_csr("S", crow, col, 5, 5)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


def capsule(array, device_type=1, strides=None, name=b"dltensor"):
    """A DLPack capsule of a float64 NumPy array's memory, claimed to be on `device_type`
    (2: CUDA); the array and the struct must outlive it."""
    shape = (ctypes.c_int64 * array.ndim)(*array.shape)
    stride = (ctypes.c_int64 * array.ndim)(*strides) if strides else None
    t = _DLManagedTensor(array.ctypes.data, _DLDevice(device_type, 0), array.ndim, _DLDataType(2, 64, 1), shape,
                         stride, 0, None, None)
    keep = (shape, stride, t)
    new = ctypes.pythonapi.PyCapsule_New
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(ctypes.addressof(t), name, None), keep


def test_dlpack_capsules_and_the_cuda_refusal_of_a_host_build():
    B = random_dense((4, 3), 7)
    kernel = react.compile("A = B * 2", B=B)
    host, keep = capsule(B)
    assert_close(kernel(B=host), 2 * B)
    assert kernel.last_copy_bytes == 0
    cuda, keep = capsule(B, device_type=2)  # never read: refused first
    with pytest.raises(react.Error, match="input 'B' is in CUDA device memory, but this kernel runs on the host"):
        kernel(B=cuda)
    used, keep = capsule(B, name=b"used_dltensor")
    with pytest.raises(react.Error, match="used already"):
        kernel(B=used)
    strided, keep = capsule(B, strides=(1, 4))
    with pytest.raises(react.Error, match="strided DLPack tensor"):
        kernel(B=strided)
    vulkan, keep = capsule(B, device_type=7)
    with pytest.raises(react.Error, match="DLPack device type 7"):
        kernel(B=vulkan)
