"""react.compile and the kernels it returns (docs/python.md)."""

import numpy as np
import scipy.sparse as sp

from . import _inputs, _react, _torch

Error = _react.Error


def compile(program, *, fusion="auto", target="openmp", dtype=None, sizes=None, cache_dir=None, tensors=None,
            **inputs):
    """Compiles `program` for the inputs given by keyword and returns a callable Kernel.

    program: operator form ("A = S * (B @ C.T)") or index notation ("A(i,j) = S(i,j) * B(i,k) * C(k,j)"),
        statements separated by ';' or new lines.
    inputs: each input tensor by name, as it will be given to the kernel (NumPy arrays, SciPy sparse
        matrices, torch tensors): their shapes, formats (a sparse matrix is csr) and value types
        are declared from them, and fusion "auto" decides on their statistics.
    fusion: "auto" (association and fusion from react's cost model), "react", "maximal" or "none".
    target: "openmp" or "kokkos".
    dtype: the results' value type, float32 or float64; by default float32 when every input is
        float32, else float64.
    sizes: extents of indices no input gives (index notation), e.g. {"k": 64}.
    cache_dir: the JIT cache; by default $REACT_CACHE_DIR or ~/.cache/react, as for react-gen.
    tensors: inputs by name, for names that are Python keywords or these parameters' names.
    """
    inputs = {**inputs, **(tensors or {})}
    declarations, statistics, dtypes = [], {}, []
    for name, x in inputs.items():
        shape, csr, value_dtype, stats = _inputs.describe(name, x)
        declarations.append((name, list(shape), csr, value_dtype))
        dtypes.append(value_dtype)
        if stats is not None:
            statistics[name] = stats
    if dtype is None:
        result_dtype = "float32" if dtypes and all(t == "float32" for t in dtypes) else "float64"
    elif np.dtype(dtype) in (np.float32, np.float64):
        result_dtype = np.dtype(dtype).name
    else:
        raise Error(f"dtype {np.dtype(dtype).name}: react's results are float32 or float64")
    native = _react.compile(program, declarations, dict(sizes or {}), result_dtype, fusion, target, cache_dir or "",
                            statistics)
    return Kernel(native, inputs)


class Kernel:
    """A compiled program. kernel(S=..., B=...) runs it on these inputs and returns its result (a
    dict by name when it has several): NumPy arrays for dense results, scipy.sparse.csr_matrix for
    csr ones, torch tensors when any input is a torch tensor."""

    def __init__(self, native, declared):
        self._native = native
        self._inputs = tuple(native.inputs)
        self._declared = frozenset(declared)  # may be given to a call, whether the program reads them or not
        self._dtypes = tuple(native.input_dtype(name) for name in self._inputs)
        # (name, csr, the input whose shape (and pattern, unless assembled) a csr result has)
        self._results = tuple((name, csr, self._inputs.index(pattern) if csr else None)
                              for name, csr, pattern, _, _ in native.results)
        # A kernel that assembles a result's pattern (co-iteration) runs on copies: its csr
        # results all come as new arrays.
        self._on_copies = any(assembled for *_, assembled in native.results)
        self.last_copy_bytes = 0
        """Bytes the last call's inputs were copied into, to be read as the kernel reads them (0:
        every input was read in place)."""

    @property
    def inputs(self):
        """The inputs the kernel reads, in its argument order."""
        return self._inputs

    @property
    def results(self):
        """The results' names, in the order a call returns them."""
        return tuple(name for name, _, _ in self._results)

    def tree(self):
        """The fused index tree the kernel was compiled from (react-gen -print-tree)."""
        return self._native.tree

    def loops(self):
        """The loop IR after the target's passes (react-gen -print-loops)."""
        return self._native.loops

    def source(self):
        """The generated C++ source (react-gen -print-source)."""
        return self._native.source

    def decisions(self):
        """Fusion mode auto's candidates, their estimated times and its choice, as react-gen
        -print-decisions prints them; None for a fixed fusion mode."""
        return self._native.decisions or None

    @property
    def library(self):
        """The compiled library's path in the JIT cache."""
        return self._native.library

    def _check_names(self, tensors):
        """Raises Error for a name that is no input, or an input without a value."""
        unknown = set(tensors) - self._declared - set(self._inputs)
        if unknown:
            raise Error(f"kernel: no input {', '.join(repr(n) for n in sorted(unknown))} (inputs: {', '.join(self._inputs)})")
        for name in self._inputs:
            if name not in tensors:
                raise Error(f"kernel: no value given for input {name!r}")

    def __call__(self, *, tensors=None, **inputs):
        if tensors:
            inputs.update(tensors)
        if len(inputs) != len(self._inputs):
            self._check_names(inputs)
        try:
            args = [inputs[name] for name in self._inputs]
        except KeyError:
            self._check_names(inputs)
        values = self._run(args)
        if len(values) == 1:
            return values[0]
        return {name: value for (name, _, _), value in zip(self._results, values)}

    def _run(self, args):
        """A call on `args`, a new list of the inputs in the kernel's order (lazy mode's kernels
        are called so, without names): the results' values in the order of `results`."""
        sources = args
        copied = 0
        torch_results = False
        for k, x in enumerate(args):
            if type(x) is np.ndarray or type(x) is sp.csr_matrix:
                continue  # read in place or converted by the extension
            if sources is args:
                sources = args[:]
            args[k], sources[k], bytes_copied, is_torch = _inputs.prepare(self._inputs[k], x, self._dtypes[k])
            copied += bytes_copied
            torch_results |= is_torch
        # The extension copies a SciPy pattern's indptr and indices for a csr result; torch's are
        # copied by torch. An assembled pattern comes as new arrays.
        values, extension_copied = self._native.run(args, not torch_results)
        self.last_copy_bytes = copied + extension_copied
        for k, (_, csr, pattern) in enumerate(self._results):
            if csr and self._on_copies:
                data, indices, indptr = values[k]
                shape = sources[pattern].shape
                values[k] = (_torch.csr_of(data, indices, indptr, shape) if torch_results
                             else _inputs.csr_result(data, indices, indptr, shape))
            elif torch_results:
                values[k] = _torch.csr_result(values[k], sources[pattern]) if csr else _torch.dense_result(values[k])
            elif csr:
                data, indices, indptr = values[k]
                values[k] = _inputs.csr_result(data, indices, indptr, sources[pattern].shape)
        return values

    def _kernel_seconds(self, calls, **inputs):
        """The kernel's own time on these inputs (NumPy and SciPy ones): the seconds of each of
        `calls` calls from C++, without Python in between (what python/benchmarks measure a
        call's overhead against)."""
        return self._native.time_raw([inputs[name] for name in self._inputs], calls)

    def __repr__(self):
        return f"<react.Kernel {', '.join(self.results)} from {', '.join(self._inputs)}>"
