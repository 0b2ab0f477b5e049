"""Lazy mode: operations on react.wrap() values are recorded inside react.lazy(), run as one
program when used, agree with SciPy/NumPy, and compile once per program and input signature."""

import numpy as np
import pytest
import scipy.sparse as sp

import react
from react import _lazy
from conftest import assert_close, random_csr, random_dense
from test_kernels import row_normalised, row_softmax


def at_stored_entries(S, f):
    """f applied to S's stored entries (react's semantics of element-wise operators on csr)."""
    out = sp.csr_matrix(S, dtype=np.float64, copy=True)
    out.data = f(out.data)
    return out


@pytest.fixture
def data():
    S = random_csr(60, 50, 0.1, 1)
    return S, random_dense((60, 16), 2), random_dense((50, 16), 3), random_dense((16, 4), 4)


def test_sddmm_is_recorded_then_run_as_one_program(data):
    S, B, C, _ = data
    with react.lazy():
        s, b, c = react.wrap(S), react.wrap(B), react.wrap(C)
        A = s.multiply(b @ c.T)
        assert isinstance(A, react.Lazy)
        assert A.program() == "r0 = x0 * (x1 @ x2.T)"
    assert_close(A.tocsr(), S.multiply(B @ C.T))
    assert_close(np.asarray(A), S.multiply(B @ C.T).toarray())


def test_every_operator_agrees_with_numpy_and_scipy(data):
    S, B, C, D = data
    with react.lazy():
        s, b, c, d = (react.wrap(x) for x in (S, B, C, D))
        cases = {
            "norm_row": (s / s.sum(axis=1), row_normalised(S)),
            "softmax": (react.softmax(s, axis=1), row_softmax(S)),
            "spmm_mm": (s @ c @ d, S @ C @ D),
            "exp": (react.exp(s), at_stored_entries(S, np.exp)),
            # A transposed csr value is dense (its entries are at S's stored entries, transposed).
            "scaled": (-(s * 2).T + 1, at_stored_entries(S.T, lambda v: -2 * v + 1)),
            "dense": (react.sqrt(b) / 3 - b * b, np.sqrt(B) / 3 - B * B),
            "reduce": ((b @ d).max(axis=0), (B @ D).max(axis=0)),  # a result's kept axis is dropped
            "numpy_left": (B.T @ s, B.T @ S),  # an ndarray on the left: NumPy's matmul, recorded
            "log_max": (react.log(react.maximum(b, 1.0)), np.log(np.maximum(B, 1.0))),
            "ufuncs": (np.exp(s) / np.maximum(s, 1.0) - np.sqrt(s),
                       at_stored_entries(S, lambda v: np.exp(v) / np.maximum(v, 1.0) - np.sqrt(v))),
        }
    for name, (got, want) in cases.items():
        try:
            assert_close(react.evaluate(got), want)
        except Exception as e:
            raise AssertionError(f"{name}: {got.program()}") from e


def test_numpy_functions_react_does_not_have_are_refused(data):
    with react.lazy():
        s = react.wrap(data[0])
        with pytest.raises(TypeError):
            np.sin(s)
        with pytest.raises(TypeError):
            np.exp(s, out=np.empty(3))


def test_re_association_and_the_decision_are_autos(data):
    S, _, C, D = data
    with react.lazy():
        M = react.wrap(S) @ react.wrap(C) @ react.wrap(D)
    # Python evaluates S @ C @ D as (S @ C) @ D; the program leaves auto free to choose.
    assert M.program() == "r0 = x0 @ x1 @ x2"
    assert "chain 1:" in M.kernel().decisions()


@pytest.fixture
def compiled(monkeypatch):
    """The programs lazy mode compiles from here on (its kernels kept so far forgotten)."""
    programs = []

    def compile(program, **options):
        programs.append(program)
        return react.compile(program, **options)

    monkeypatch.setattr(_lazy, "compile", compile)
    _lazy._kernels.clear()
    _lazy._texts.clear()
    return programs


def test_kernels_are_compiled_once_per_program_and_signature(data, compiled):
    S, B, C, _ = data

    def sddmm(S, B, C):
        with react.lazy():
            return react.evaluate(react.wrap(S).multiply(react.wrap(B) @ react.wrap(C).T))

    first = sddmm(S, B, C)
    assert compiled == ["r0 = x0 * (x1 @ x2.T)"]
    for scale in (2, 3):  # new objects, one signature: the kernel found again
        assert_close(sddmm(S * scale, B.copy(), C), scale * first)
    assert len(compiled) == 1 and len(_lazy._kernels) == 1
    sddmm(S.astype(np.float32), B.astype(np.float32), C.astype(np.float32))  # another signature
    assert len(compiled) == 2 and len(_lazy._kernels) == 2


def test_programs_that_differ_only_in_an_axis_or_an_input_find_their_own_kernels(data, compiled):
    S, B, _, _ = data
    B2 = B + 1
    s, b, b2 = react.wrap(S), react.wrap(B), react.wrap(B2)
    cases = [
        (lambda: s.sum(axis=0), "r0 = sum(x0, axis=0)", np.asarray(S.sum(axis=0)).ravel()),
        (lambda: s.sum(axis=1), "r0 = sum(x0, axis=1)", np.asarray(S.sum(axis=1)).ravel()),
        (lambda: b * b, "r0 = x0 * x0", B * B),
        (lambda: b * react.wrap(B), "r0 = x0 * x0", B * B),  # B wrapped again: one object, one input
        (lambda: b * b2, "r0 = x0 * x1", B * B2),
    ]
    for _ in range(2):  # the second time, each finds its kernel
        for value, program, want in cases:
            with react.lazy():
                got = value()
            assert got.program() == program
            assert_close(react.evaluate(got), want)
    assert compiled == ["r0 = sum(x0, axis=0)", "r0 = sum(x0, axis=1)", "r0 = x0 * x0", "r0 = x0 * x1"]


def test_several_values_evaluate_together_and_once(data):
    S, B, C, _ = data
    with react.lazy():
        s = react.wrap(S)
        total, normalised = s.sum(axis=1), s / s.sum(axis=1)
    r, n = react.evaluate(total, normalised)
    assert_close(r, np.asarray(S.sum(axis=1)).ravel())  # a result's kept axis is dropped
    assert_close(n, row_normalised(S))
    assert react.evaluate(normalised) is n  # computed already


def test_numbers_take_the_inputs_type(data):
    S, B, _, _ = data
    with react.lazy():
        r = react.wrap(B.astype(np.float32)) * 0.5 + 1
    assert react.evaluate(r).dtype == np.float32
    assert_close(react.evaluate(r), B.astype(np.float32) * 0.5 + 1, np.float32)


def test_outside_lazy_operations_run_at_once(data):
    S, B, _, _ = data
    s = react.wrap(S)
    scaled = s * 3  # compiled and run now
    assert isinstance(scaled, react.Lazy) and scaled._value is not None
    assert_close(scaled.tocsr(), 3 * S)
    # A later program computes a value again from the wrapped ones: a csr result combines with
    # its pattern's other values, and a row sum keeps its axis.
    ratio = scaled / s
    assert ratio.program() == "r0 = x0 * x1 / x0"
    assert_close(ratio.tocsr(), at_stored_entries(S, lambda v: 3.0 + 0 * v))
    sums = s.sum(axis=1)
    assert react.evaluate(sums).shape == (S.shape[0],)  # a result drops the kept axis
    assert_close((s / sums).tocsr(), row_normalised(S))


def test_lazy_options_and_errors(data):
    S, B, C, _ = data
    with react.lazy(fusion="none"):
        A = react.wrap(S) * (react.wrap(B) @ react.wrap(C).T)
        assert A.kernel().decisions() is None
    assert_close(A.tocsr(), S.multiply(B @ C.T))
    with react.lazy():
        wrong = react.wrap(B) @ react.wrap(B)  # 60x16 @ 60x16
    with pytest.raises(react.Error, match="1:"):
        react.evaluate(wrong)
