"""An independent NumPy evaluation of index-notation programs as react-fuzz prints them, with
react's semantics (docs/semantics.md): element-wise operators on a csr operand apply to its stored
entries only and keep its pattern; elsewhere an absent entry is zero; reductions reduce what is
present (an empty row gives the identity: 0 for sum, -inf for max); a sum of a product keeps the
pattern of a sparse factor with exactly its indices. The same rules as fuzz/reference.cpp, over
whole arrays instead of point by point.

A value is (array, indices, present): the array has one axis per index (size 1 where it does not
vary), `present` says where a csr-derived value has entries (broadcastable like the array).
"""

import re

import numpy as np

FUNCTIONS = {"exp": np.exp, "sqrt": np.sqrt, "log": np.log}
BINARY = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide,
          "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}
LEVELS = [("<", "<=", ">", ">=", "==", "!="), ("+", "-"), ("*", "/")]
TOKEN = re.compile(r"\s*(?:(\d+\.?\d*(?:[eE][-+]?\d+)?)|([A-Za-z_]\w*)|(<=|>=|==|!=|[-+*/<>(),=]))")


class Expr:
    def __init__(self, op, args=(), name=None, indices=(), value=None, reduce=None):
        self.op, self.args, self.name, self.indices, self.value, self.reduce = op, args, name, tuple(indices), value, reduce


def tokens(text):
    out, at = [], 0
    text = text.strip()
    while at < len(text):
        m = TOKEN.match(text, at)
        assert m and m.end() > at, f"cannot read {text[at:]!r}"
        out.append(m.group(1) and ("num", float(m.group(1))) or m.group(2) and ("name", m.group(2)) or ("op", m.group(3)))
        at = m.end()
    return out


class Parser:
    """Index notation as Statement::str() prints it; `tensors`: the names that are tensors (a
    bare name that is not one is an index, a reduction's)."""

    def __init__(self, text, tensors):
        self.t, self.k, self.tensors = tokens(text), 0, tensors

    def peek(self):
        return self.t[self.k] if self.k < len(self.t) else ("end", None)

    def take(self, want=None):
        tok = self.peek()
        assert want is None or tok[1] == want, f"expected {want}, got {tok}"
        self.k += 1
        return tok

    def statement(self):
        _, lhs = self.take()
        indices = self.names_in_parentheses() if self.peek()[1] == "(" else ()
        self.take("=")
        rhs = self.expr(0)
        assert self.peek()[0] == "end"
        return lhs, indices, rhs

    def names_in_parentheses(self):
        self.take("(")
        names = []
        while self.peek()[1] != ")":
            names.append(self.take()[1])
            if self.peek()[1] == ",":
                self.take(",")
        self.take(")")
        return names

    def expr(self, level):
        if level == len(LEVELS):
            return self.unary()
        e = self.expr(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in LEVELS[level]:
            op = self.take()[1]
            e = Expr(op, (e, self.expr(level + 1)))
        return e

    def unary(self):
        if self.peek()[1] == "-":
            self.take()
            return Expr("neg", (self.unary(),))
        return self.primary()

    def primary(self):
        kind, value = self.take()
        if kind == "num":
            return Expr("literal", value=value)
        if value == "(":
            e = self.expr(0)
            self.take(")")
            return e
        if value in self.tensors or self.peek()[1] != "(":  # a tensor, or an index (a reduction's)
            indices = self.names_in_parentheses() if self.peek()[1] == "(" else ()
            return Expr("access", name=value, indices=indices)
        # a function: its arguments, then trailing index names make it a reduction
        self.take("(")
        args = [self.expr(0)]
        while self.peek()[1] == ",":
            self.take(",")
            args.append(self.expr(0))
        self.take(")")
        # As react reads them: sum's arguments after the first are indices, whatever else the
        # names are (a tensor may share its name with an index); max is a reduction when each
        # later argument is a bare name free in the first.
        bare = [a.op == "access" and not a.indices for a in args[1:]]
        if value == "sum" or (value == "max" and len(args) > 1 and all(bare) and
                              all(a.name in free(args[0]) for a in args[1:])):
            return Expr("reduce", (args[0],), indices=[a.name for a in args[1:]], reduce=value)
        return Expr(value, tuple(args))  # exp, sqrt, log; max, min (binary); where


def free(e):
    """Free indices, in first-appearance order."""
    if e.op == "access":
        return list(dict.fromkeys(e.indices))
    if e.op == "literal":
        return []
    if e.op == "reduce":
        return [i for i in free(e.args[0]) if i not in e.indices]
    out = []
    for a in e.args:
        out += [i for i in free(a) if i not in out]
    return out


class Evaluator:
    def __init__(self, sizes, values, csr):
        """sizes: index extents; values: tensor -> array (dense) or (dense values, stored mask)
        for csr ones; csr: the csr tensors (inputs and csr results)."""
        self.sizes, self.values, self.csr = sizes, values, csr
        self.typed = {}

    @staticmethod
    def align(x, indices, order):
        """x (axes: indices, each of its extent or 1) with axes in `order`, size 1 where absent."""
        if np.ndim(x) == 0:
            return x
        x = np.transpose(x, [indices.index(i) for i in order if i in indices])
        shape = iter(x.shape)
        return x.reshape([next(shape) if i in indices else 1 for i in order])

    def sparse_typed(self, e):
        if id(e) not in self.typed:
            if e.op == "access":
                typed = e.name in self.csr
            elif e.op == "reduce":
                typed = self.pattern_factor(e) is not None
            elif e.op == "literal":
                typed = False
            else:
                typed = any(self.sparse_typed(a) and sorted(free(a)) == sorted(free(e)) for a in e.args)
            self.typed[id(e)] = typed
        return self.typed[id(e)]

    def pattern_factor(self, e):
        if e.op != "reduce" or e.reduce != "sum":
            return None
        factors, stack = [], [e.args[0]]
        while stack:
            x = stack.pop()
            if x.op == "*":
                stack += [x.args[1], x.args[0]]
            else:
                factors.append(x)
        mine = sorted(free(e))
        return next((f for f in factors if sorted(free(f)) == mine and self.sparse_typed(f)), None)

    def access(self, e):
        value = self.values[e.name]
        array, present = value if e.name in self.csr else (value, True)
        # a repeated index reads a diagonal
        letters = "abcdefghijklmnop"
        names = list(dict.fromkeys(e.indices))
        spec = "".join(letters[names.index(i)] for i in e.indices) + "->" + letters[:len(names)]
        array = np.einsum(spec, array) if e.indices else np.asarray(array)
        if np.ndim(present):
            present = np.einsum(spec, present)
        return array, tuple(names), present

    def point(self, e):
        """fuzz/reference.cpp's evalPoint: absent where a csr operand has no entry."""
        if e.op == "access":
            return self.access(e)
        if e.op == "literal":
            return np.asarray(e.value), (), True
        if e.op == "reduce":
            array, outer, present = self.reduce_over(e.args[0], list(e.indices), e.reduce)
            if self.sparse_typed(e):  # present where its pattern factor is
                _, indices, present = self.point(self.pattern_factor(e))
                present = self.align(present, indices, outer)
            return array, outer, present
        order = free(e)
        x, present = [], True
        for a in e.args:
            array, indices, p = self.eval(a)
            x.append(self.align(array, indices, order))
            present = np.logical_and(present, self.align(p, indices, order))
        with np.errstate(all="ignore"):
            if e.op == "neg":
                r = -x[0]
            elif e.op in FUNCTIONS:
                r = FUNCTIONS[e.op](x[0])
            elif e.op in BINARY:
                r = BINARY[e.op](x[0], x[1]).astype(np.float64)
            elif e.op == "max":
                r = np.maximum(x[0], x[1])
            elif e.op == "min":
                r = np.minimum(x[0], x[1])
            elif e.op == "where":
                r = np.where(x[0] != 0, x[1], x[2])
            else:
                raise AssertionError(f"unknown operator {e.op}")
        return np.asarray(r, dtype=np.float64), tuple(order), present

    def eval(self, e):
        array, indices, present = self.point(e)
        if not self.sparse_typed(e):  # absent is zero
            array, present = np.where(present, array, 0.0), True
        return array, indices, present

    def reduce_over(self, body, over, op):
        """The sum or max over `over` of body's present values; present everywhere."""
        array, indices, present = self.eval(body)
        outer = [i for i in indices if i not in over]
        order = outer + list(over)
        array, present = self.align(array, indices, order), self.align(present, indices, order)
        full = [self.sizes[i] for i in order]
        identity = 0.0 if op == "sum" else -np.inf
        array = np.broadcast_to(np.where(present, array, identity), full)
        axes = tuple(range(len(outer), len(order)))
        result = array.sum(axis=axes) if op == "sum" else array.max(axis=axes, initial=-np.inf)
        return np.asarray(result, dtype=np.float64), tuple(outer), True

    def statement(self, lhs_indices, rhs):
        """The result over lhs_indices (absent points the reduction's identity)."""
        reduced = [i for i in free(rhs) if i not in lhs_indices]
        array, indices, _ = self.reduce_over(rhs, reduced, "sum")
        array = self.align(array, indices, list(lhs_indices))
        return np.broadcast_to(array, [self.sizes[i] for i in lhs_indices]).copy()
