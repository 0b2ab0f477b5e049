"""Errors are Python exceptions: react.Error (a ValueError) with react's message and position for
the user's mistakes, react.InternalError (a RuntimeError) for react's own bugs."""

import numpy as np
import pytest

import react
from conftest import random_csr, random_dense


def test_the_exception_classes():
    assert issubclass(react.Error, ValueError)
    assert issubclass(react.InternalError, RuntimeError)
    assert not issubclass(react.InternalError, react.Error)


def test_program_errors_carry_react_positions():
    S, B = random_csr(5, 5, 0.4, 1), random_dense((5, 5), 2)
    with pytest.raises(react.Error, match=r"^1:9: unknown tensor 'X'$"):
        react.compile("A = S * X", S=S)
    with pytest.raises(react.Error, match=r"^1:\d+: "):
        react.compile("A = S * (B @ B", S=S, B=B)
    with pytest.raises(react.Error, match=r"^2:\d+: "):
        react.compile("A = S * 2\nC = A @@ B", S=S, B=B)
    with pytest.raises(react.Error, match="dimension mismatch for '@'"):
        react.compile("A = B @ v", B=B, v=random_dense(4, 3))


def test_option_errors():
    B = random_dense((3, 3), 1)
    with pytest.raises(react.Error, match="unknown fusion mode 'fast'"):
        react.compile("A = B * 2", B=B, fusion="fast")
    with pytest.raises(react.Error, match="unknown target 'cuda'"):
        react.compile("A = B * 2", B=B, target="cuda")
    with pytest.raises(react.Error, match="dtype int64: react's results are float32 or float64"):
        react.compile("A = B * 2", B=B, dtype=np.int64)
    with pytest.raises(react.Error, match="input 'B': a complex128 array"):
        react.compile("A = B * 2", B=B.astype(complex))
