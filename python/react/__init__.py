"""react: a compiler for sparse/dense tensor expressions, from Python (docs/python.md).

    kernel = react.compile("A = S * (B @ C.T)", S=S, B=B, C=C)   # S: scipy.sparse csr, B, C: NumPy
    A = kernel(S=S, B=B, C=C)                                     # a scipy.sparse.csr_matrix

    with react.lazy():                                            # record, fuse, compile, run at use
        A = react.wrap(S).multiply(react.wrap(B) @ react.wrap(C).T)
    A.tocsr()
"""

from ._react import Error, InternalError
from ._kernel import Kernel, compile
from ._lazy import Lazy, evaluate, exp, lazy, log, logsumexp, maximum, minimum, softmax, sqrt, wrap
from . import _react


def cache_dir():
    """The JIT cache kernels are compiled into and found in: $REACT_CACHE_DIR, else
    ~/.cache/react (react-gen's)."""
    return _react.cache_dir()


__all__ = ["Error", "InternalError", "Kernel", "Lazy", "cache_dir", "compile", "evaluate", "exp", "lazy", "log",
           "logsumexp", "maximum", "minimum", "softmax", "sqrt", "wrap"]
