"""Lazy mode (docs/python.md, "Lazy mode"): operations on wrapped values are recorded inside
`with react.lazy():` and run as one fused kernel when a result is used (the model of PyFuser and
DelayRepay).

A recorded expression becomes an operator-form program whose tensors have generated names (x0,
x1, ... for the values it reads, r0, r1, ... for its results): nothing the user wrote becomes
program text, only the operators and integer axes. Product chains are written without the
parentheses Python's evaluation order implies, so fusion mode auto may re-associate them as it
does in C++. Kernels are kept per program and input shapes and types, so evaluating the same
expression again compiles nothing.
"""

import collections
import contextvars
import numbers
import operator

import numpy as np
import scipy.sparse as sp

from . import _inputs, _react, _torch
from ._kernel import compile

Error = _react.Error

_current = contextvars.ContextVar("react_lazy", default=None)  # the innermost active lazy(), or None


class lazy:
    """`with react.lazy():` records operations on wrapped values instead of running them. The
    options apply to what is evaluated while it is active."""

    def __init__(self, *, fusion="auto", target="openmp"):
        self.fusion, self.target = fusion, target

    def __enter__(self):
        self._token = _current.set(self)
        return self

    def __exit__(self, *exception):
        _current.reset(self._token)


class _Node:
    """One recorded operation: `op` over `args` (nodes); reductions and softmax hold their axis
    (None: all). `value`: a leaf's ("value") wrapped value, a "scalar"'s Python number, an
    operation's result once computed."""

    __slots__ = ("op", "args", "axis", "value")

    def __init__(self, op, args=(), axis=None, value=None):
        self.op, self.args, self.axis, self.value = op, args, axis, value


# Binding strength in react's operator form (src/indexnotation/syntax.cpp): comparisons, then
# + -, then * / @, then unary minus, then .T.
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "@": 2}
_NEGATION, _POSTFIX = 3, 4
_ASSOCIATIVE = {"+", "*", "@"}  # a right operand of the same operator needs no parentheses
_REDUCTIONS = {"sum", "max", "softmax", "logsumexp"}


def _text(tree, context=0, right=False, parent=None):
    """A value's tree (_Program.trees) as operator-form text, with the parentheses react's grammar
    needs and no more."""
    if type(tree) is int:  # an input
        return f"x{tree}"
    op, axis, *args = tree
    if op in _PRECEDENCE:
        level = _PRECEDENCE[op]
        a, b = args
        text = f"{_text(a, level, False, op)} {op} {_text(b, level, True, op)}"
        grouped = level < context or (level == context and right and not (op == parent and op in _ASSOCIATIVE))
        return f"({text})" if grouped else text
    if op == "neg":
        text = "-" + _text(args[0], _NEGATION)
        return f"({text})" if context > _NEGATION else text
    if op == "T":
        return _text(args[0], _POSTFIX) + ".T"
    arguments = ", ".join(_text(a) for a in args)
    if op in _REDUCTIONS and axis is not None:
        arguments += f", axis={axis:d}"
    return f"{op}({arguments})"


# NumPy's ufuncs as react's operators.
_UFUNCS = {np.add: "+", np.subtract: "-", np.multiply: "*", np.true_divide: "/", np.matmul: "@", np.negative: "neg",
           np.exp: "exp", np.log: "log", np.sqrt: "sqrt", np.maximum: "max", np.minimum: "min"}


_ARRAY_TYPES = (np.ndarray, sp.csr_matrix)


def _operand(x):
    if type(x) is Lazy or isinstance(x, Lazy):
        return x._node
    if type(x) in _ARRAY_TYPES:  # no number: spares the abstract class's slower check
        return _Node("value", (), None, x)
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return _Node("scalar", (), None, float(x))
    return _Node("value", (), None, x)


def _axis(axis):
    return None if axis is None else operator.index(axis)


def _record(op, *operands, axis=None):
    """A new lazy value; computed at once outside lazy() (eager mode). It keeps its operations
    either way, and a later program that reads it computes it again from the wrapped values: a
    csr result is a new matrix, and react combines csr operands only of one pattern tensor; a
    result has lost the axes sum(axis=) kept (docs/semantics.md)."""
    # map, not a comprehension: Python 3.11 makes a function object for each comprehension run.
    result = Lazy._of(_Node(op, tuple(map(_operand, operands)), axis))
    if _current.get() is None:
        evaluate(result)
    return result


class Lazy:
    """A value wrapped by react.wrap(), or an operation on such values recorded by react.lazy().

    Operators follow NumPy and react's operator form: `*` and `/` are element-wise (as NumPy's,
    not SciPy's matrix `*`), `@` is the matrix product, `.T` transposes, `.sum(axis=)` and
    `.max(axis=)` keep the reduced axis with size 1 (as SciPy's sparse matrices do). The value is
    computed when it is used: np.asarray(x), x.toarray(), x.tocsr(), react.evaluate(x)."""

    __slots__ = ("_node",)

    def __array_ufunc__(self, ufunc, method, *inputs, **options):
        """NumPy's ufuncs that react has, recorded (np.exp(x), ndarray @ x); others refused."""
        op = _UFUNCS.get(ufunc)
        if op is None or method != "__call__" or options:
            return NotImplemented
        return _record(op, *inputs)

    @classmethod
    def _of(cls, node):
        x = cls.__new__(cls)
        x._node = node
        return x

    @property
    def _value(self):
        """The value, once computed (a leaf's at once); None before."""
        return self._node.value

    def __matmul__(self, other): return _record("@", self, other)
    def __rmatmul__(self, other): return _record("@", other, self)
    def __mul__(self, other): return _record("*", self, other)
    def __rmul__(self, other): return _record("*", other, self)
    def __truediv__(self, other): return _record("/", self, other)
    def __rtruediv__(self, other): return _record("/", other, self)
    def __add__(self, other): return _record("+", self, other)
    def __radd__(self, other): return _record("+", other, self)
    def __sub__(self, other): return _record("-", self, other)
    def __rsub__(self, other): return _record("-", other, self)
    def __neg__(self): return _record("neg", self)

    def multiply(self, other):
        """The element-wise product (SciPy's S.multiply)."""
        return _record("*", self, other)

    @property
    def T(self):
        return _record("T", self)

    def transpose(self):
        return _record("T", self)

    def sum(self, axis=None):
        return _record("sum", self, axis=_axis(axis))

    def max(self, axis=None):
        return _record("max", self, axis=_axis(axis))

    def __array__(self, dtype=None):
        value = evaluate(self)
        if sp.issparse(value):
            value = value.toarray()
        elif _torch.is_tensor(value):
            value = _torch.to_numpy(value)
        return np.asarray(value, dtype=dtype)

    def toarray(self):
        return np.asarray(self)

    def tocsr(self):
        value = self._node.value
        if type(value) is sp.csr_matrix:  # computed: SciPy's tocsr() would return it as it is
            return value
        value = evaluate(self)
        return value.tocsr() if sp.issparse(value) else sp.csr_matrix(np.asarray(self))

    def program(self):
        """The operator-form program this value is computed by."""
        return _Program([self]).text

    def kernel(self):
        """The Kernel that computes this value (compiled, not run): its tree(), source(), decisions()."""
        return _Program([self]).kernel(*_options(None, None))[0]

    def __repr__(self):
        if self._node.op == "value":
            return f"react.wrap({self._value!r})"
        return f"<react.Lazy: {self.program()}>"


def wrap(x):
    """x (a NumPy array, SciPy sparse matrix, torch tensor or number) as a value whose operations
    react records inside lazy() and runs at once outside it."""
    return x if isinstance(x, Lazy) else Lazy._of(_operand(x))


def exp(x): return _record("exp", x)
def log(x): return _record("log", x)
def sqrt(x): return _record("sqrt", x)
def maximum(a, b): return _record("max", a, b)
def minimum(a, b): return _record("min", a, b)


def softmax(x, axis=None):
    """exp(x) / sum(exp(x), axis) in the stable form (the maximum subtracted first); on a csr
    value over its stored entries, as torch.sparse.softmax."""
    return _record("softmax", x, axis=_axis(axis))


def logsumexp(x, axis=None):
    return _record("logsumexp", x, axis=_axis(axis))


def _signature(x):
    """What a kernel is compiled for of an input: format, shape, value type."""
    if type(x) is np.ndarray:
        return ("dense", x.shape, _inputs.value_dtype(x.dtype))
    if type(x) is sp.csr_matrix:
        return ("csr", x.shape, _inputs.value_dtype(x.dtype))
    if _torch.is_tensor(x):
        return ("torch", x.layout, tuple(x.shape), _torch.dtype_name(x))
    if sp.issparse(x):
        return ("csr", x.shape, _inputs.value_dtype(x.dtype))
    a = np.asarray(x)
    return ("dense", a.shape, _inputs.value_dtype(a.dtype))


class _Program:
    """The program that computes some lazy values: each value's tree of operations over its
    inputs, which are numbered in the order the trees reach them (x0, x1, ... in the text), and
    the inputs' signature.

    A tree is an input's number, or (op, axis, operand trees...): it determines the program text,
    so kernels are found by trees and signature without writing the text again (_texts).
    """

    def __init__(self, values):
        inputs, scalars = [], []
        numbers = {}  # an input's number by the id of its wrapped object: one input per object

        def tree(node):
            op = node.op
            if op == "value" or op == "scalar":
                # A number is an input of its own (of its node): numbers that are equal objects
                # may still be distinct inputs.
                key = id(node.value) if op == "value" else id(node)
                n = numbers.get(key)
                if n is None:
                    n = numbers[key] = len(inputs)
                    inputs.append(node.value)
                    if op == "scalar":
                        scalars.append(n)
                return n
            return (op, node.axis, *map(tree, node.args))  # map: no comprehension's function object

        self.trees = tuple([tree(v._node) for v in values])
        signature = list(map(_signature, inputs)) if not scalars else \
            [None if n in scalars else _signature(x) for n, x in enumerate(inputs)]
        if scalars:
            # Numbers take the inputs' type, as NumPy's Python scalars do: float32 with float32 arrays.
            types = {s[-1] for s in signature if s is not None}
            scalar_type = np.float32 if types == {"float32"} else np.float64
            for n in scalars:
                inputs[n] = np.array(inputs[n], dtype=scalar_type)
                signature[n] = ("dense", (), scalar_type.__name__)
        self.inputs = inputs
        self.signature = tuple(signature)

    @property
    def text(self):
        text = _texts.get(self.trees)
        if text is None:
            if len(_texts) >= _MAX_TEXTS:
                _texts.clear()
            text = _texts[self.trees] = "\n".join(f"r{k} = {_text(t)}" for k, t in enumerate(self.trees))
        return text

    def kernel(self, fusion, target):
        """The kernel for this program and these options, which inputs it takes in its argument
        order (their numbers), and which value each of its results is (their numbers, k of rk)."""
        key = (self.text, fusion, target, self.signature)
        found = _kernels.get(key)
        if found is None:
            kernel = compile(self.text, fusion=fusion, target=target,
                             tensors={f"x{n}": x for n, x in enumerate(self.inputs)})
            input_numbers = tuple(int(name[1:]) for name in kernel.inputs)  # x<n>
            result_numbers = tuple(int(name[1:]) for name in kernel.results)  # r<k>
            found = kernel, input_numbers, result_numbers
            if len(_kernels) >= _MAX_KERNELS:
                _kernels.popitem(last=False)
            _kernels[key] = found
        _kernels.move_to_end(key)
        return found


# Kernels (with their inputs' and results' numbers) by program text, options and input
# signature, the least recently used dropped first (a compiled kernel is also on disk, in the JIT
# cache: compiling it again is a cache hit).
_MAX_KERNELS = 256
_kernels = collections.OrderedDict()
# Program texts by trees, so that evaluating a program again writes no text; trees that differ
# may write one text (a * b * c associated either way), which then finds one kernel.
_MAX_TEXTS = 1024
_texts = {}


def _options(fusion, target):
    active = _current.get()
    return (fusion or (active.fusion if active else "auto"), target or (active.target if active else "openmp"))


def evaluate(*values, fusion=None, target=None):
    """Computes lazy values, all in one fused kernel, and returns the result (a tuple for several):
    NumPy arrays, scipy.sparse.csr_matrix or torch tensors as for react.compile's kernels. Values
    already computed are not computed again. fusion and target default to the active lazy()'s."""
    lazies = list(map(wrap, values))
    pending = [v for v in lazies if v._value is None]
    if pending:
        program = _Program(pending)
        kernel, input_numbers, result_numbers = program.kernel(*_options(fusion, target))
        inputs = program.inputs
        results = kernel._run([inputs[n] for n in input_numbers])
        for k, value in zip(result_numbers, results):
            pending[k]._node.value = value
    return lazies[0]._value if len(lazies) == 1 else tuple(v._value for v in lazies)
