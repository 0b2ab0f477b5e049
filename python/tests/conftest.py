"""Shared by the Python tests (ctest runs them with PYTHONPATH=<build>/python and
REACT_BUILD_DIR=<build>): the JIT cache, the real matrices and helpers."""

import os
import pathlib

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("REACT_BUILD_DIR", REPO / "build"))
# The C++ tests' cache (test/support.cpp): $REACT_CACHE_DIR, else the build's jit-cache.
os.environ.setdefault("REACT_CACHE_DIR", str(BUILD / "jit-cache"))

# The matrices beside the checkout, as the C++ tests find them: missing ones fail the tests.
MATRICES = REPO.parent / "shared" / "data" / "matrices"


def read_matrix(name):
    path = MATRICES / name
    assert path.is_file(), f"missing {path}"
    return sp.csr_matrix(scipy.io.mmread(str(path)))


@pytest.fixture(scope="session")
def cora():
    return read_matrix("cora.mtx")


def random_csr(rows, cols, density, seed, dtype=np.float64):
    """Values in [0.5, 1.5), so that row sums and products stay away from zero."""
    m = sp.random(rows, cols, density=density, format="csr", random_state=seed, dtype=np.float64)
    m.data = (m.data + 0.5).astype(dtype)
    return m


def random_dense(shape, seed, dtype=np.float64):
    return (np.random.default_rng(seed).random(shape) + 0.5).astype(dtype)


def tolerance(dtype):
    return 1e-4 if np.dtype(dtype) == np.float32 else 1e-10


def assert_close(got, want, dtype=np.float64):
    """got (a react result) equals want (SciPy/NumPy's) to a relative tolerance; a csr result
    also has want's stored entries."""
    if sp.issparse(got):
        assert isinstance(got, sp.csr_matrix)
        assert got.dtype == np.dtype(dtype)
        got.check_format(full_check=True)
        want = sp.csr_matrix(want)
        assert got.shape == want.shape
        got, want = got.toarray(), want.toarray()
    else:
        assert isinstance(got, np.ndarray) and got.dtype == np.dtype(dtype)
        want = want.toarray() if sp.issparse(want) else np.asarray(want)
    assert got.shape == want.shape
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=tolerance(dtype), atol=tolerance(dtype) * scale)


def pytest_configure(config):
    # torch 1.13 says so once per process, about the tensors it builds for react's csr results too.
    config.addinivalue_line("filterwarnings", "ignore:Sparse CSR tensor support is in beta state")
