"""Random programs from react-fuzz (--print) through react.compile agree with an independent NumPy
evaluation (reference.py): 1-4 statements over csr matrices with empty rows, explicit zeros or no
entries, dense tensors, vectors and scalars, every operator and reduction, and names that broke
generated code once (C++ keywords, react's own identifiers). $REACT_PYTHON_FUZZ_PROGRAMS sets how
many programs (40; 300 took 75 s on 2 cores, with no difference)."""

import io
import os
import subprocess

import numpy as np
import scipy.io
import scipy.sparse as sp

import react
from conftest import BUILD
from reference import Evaluator, Parser

PROGRAMS = int(os.environ.get("REACT_PYTHON_FUZZ_PROGRAMS", "40"))
MODES = ["auto", "react", "maximal", "none"]


def reproducers(seed, count):
    """react-fuzz's programs as reproducer texts (fuzz/reproducer.hpp)."""
    fuzz = BUILD / "bin" / "react-fuzz"
    assert fuzz.is_file(), f"missing {fuzz} (build the target react-fuzz)"
    out = subprocess.run([str(fuzz), "--print", "--programs", str(count), "--seed", str(seed), "--max-statements", "4"],
                         check=True, capture_output=True, text=True).stdout
    return [text for text in out.split("# react-fuzz reproducer")[1:]]


def parse_reproducer(text):
    """(statements, index sizes, inputs by name, declared outputs)."""
    lines = iter(text.splitlines())
    statements, sizes, inputs, declared, shapes = [], {}, {}, set(), {}
    for line in lines:
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "program":
            statements = list(iter(lambda: next(lines), "end"))
        elif words[0] == "size":
            sizes[words[1]] = int(words[2])
        elif words[0] == "declare":
            declared.add(words[1])
        elif words[0] == "input":
            shapes[words[1]] = (words[2], () if words[3] == "scalar" else tuple(int(n) for n in words[3].split("x")))
        elif words[0] == "values":
            market = "\n".join(iter(lambda: next(lines), "end"))
            form, shape = shapes[words[1]]
            if form not in ("csr", "dense") or len(shape) > 2:
                return None  # csc, dcsr, csf and dense 3-tensors: the Python API takes csr and dense matrices
            value = scipy.io.mmread(io.StringIO(market))
            inputs[words[1]] = sp.csr_matrix(value) if form == "csr" else np.asarray(value, dtype=np.float64).reshape(shape)
    return statements, sizes, inputs, declared


def reference(statements, sizes, inputs, results):
    """Every result of the program, evaluated in NumPy; `results`: react's (for the csr ones'
    stored entries, which later statements read)."""
    values, csr = {}, set()
    for name, x in inputs.items():
        if sp.issparse(x):
            values[name] = (x.toarray(), sp.csr_matrix((np.ones(x.nnz), x.indices, x.indptr), shape=x.shape).toarray() > 0)
            csr.add(name)
        else:
            values[name] = x
    tensors = set(inputs)
    out = {}
    for text in statements:
        lhs, indices, rhs = Parser(text, tensors).statement()
        out[lhs] = Evaluator(sizes, values, csr).statement(indices, rhs)
        tensors.add(lhs)
        if sp.issparse(results[lhs]):
            r = results[lhs]
            values[lhs] = (out[lhs], sp.csr_matrix((np.ones(r.nnz), r.indices, r.indptr), shape=r.shape).toarray() > 0)
            csr.add(lhs)
        else:
            values[lhs] = out[lhs]
    return out


def check(got, want):
    if sp.issparse(got):  # compared at its stored entries
        rows = np.repeat(np.arange(got.shape[0]), np.diff(got.indptr))
        got, want = got.data, want[rows, got.indices]
    got = np.asarray(got).reshape(want.shape)
    finite = np.abs(want[np.isfinite(want)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * scale)


def test_react_fuzz_programs_agree_with_numpy():
    checked = 0
    # react-fuzz draws every format; about a third of its programs are over csr and dense matrices only
    for n, text in enumerate(reproducers(seed=1, count=4 * PROGRAMS)):
        if checked == PROGRAMS:
            break
        parsed = parse_reproducer(text)
        if parsed is None:
            continue
        statements, sizes, inputs, declared = parsed
        if declared:
            continue  # outputs declared with a format: the Python API declares inputs only
        program = "\n".join(statements)
        kernel = react.compile(program, fusion=MODES[n % len(MODES)], sizes=sizes, tensors=inputs)
        results = kernel(tensors=inputs)
        if len(kernel.results) == 1:
            results = {kernel.results[0]: results}
        want = reference(statements, sizes, inputs, results)
        for name, value in results.items():
            try:
                check(value, want[name])
            except AssertionError as e:
                raise AssertionError(f"program {n} (react-fuzz --print --seed {1 + n}), result {name}:\n{program}") from e
        checked += 1
    assert checked >= PROGRAMS // 2
