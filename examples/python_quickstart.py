import numpy as np
import scipy.io
import scipy.sparse as sp

import react

S = sp.csr_matrix(scipy.io.mmread("../shared/data/matrices/cora.mtx"))  # 2708 x 2708
rng = np.random.default_rng(0)
B, C = rng.random((S.shape[0], 64)), rng.random((S.shape[1], 64))

# SDDMM with SciPy: the dense 2708 x 2708 product B @ C.T, then the entries S keeps.
want = S.multiply(B @ C.T).tocsr()

# Compiled once (fusion "auto" decides on S's statistics), then called: a csr_matrix.
sddmm = react.compile("A = S * (B @ C.T)", S=S, B=B, C=C)
A = sddmm(S=S, B=B, C=C)
print("compile + call:", abs(A - want).max(), "copied", sddmm.last_copy_bytes, "bytes")
print(sddmm.decisions())

# The same SciPy code, recorded: fused, compiled and run when the result is used.
with react.lazy():
    s, b, c = react.wrap(S), react.wrap(B), react.wrap(C)
    A2 = s.multiply(b @ c.T)
print("lazy:", A2.program(), abs(A2.tocsr() - want).max())

# Row softmax and row normalisation, as torch.sparse.softmax and SciPy define them.
P = react.evaluate(react.softmax(react.wrap(S), axis=1))
N = react.evaluate(react.wrap(S) / react.wrap(S).sum(axis=1))
print("rows sum to 1:", np.allclose(P.sum(axis=1), 1), np.allclose(N.sum(axis=1), 1))
