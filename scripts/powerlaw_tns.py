#!/usr/bin/python3
"""Writes a 3-tensor with power-law slices as a FROSTT .tns file (1-based coordinates), for
react-gen -i=B:FILE.tns: slice i is drawn with probability proportional to 1 / (rank of i)^s
(a Zipf law over a shuffled order of the slices), so a few slices hold most entries and many
hold none; k and l are uniform. Repeated coordinates are dropped.

usage: powerlaw_tns.py OUT.tns --shape 2000x2000x20000 --entries 3000000 [--zipf 1.3] [--seed 1]
"""
import argparse

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--shape", default="2000x2000x20000")
    ap.add_argument("--entries", type=int, default=3000000)
    ap.add_argument("--zipf", type=float, default=1.3, help="exponent s of the slices' Zipf law (default 1.3)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    ni, nk, nl = (int(d) for d in a.shape.split("x"))
    rng = np.random.default_rng(a.seed)
    weights = 1.0 / np.arange(1, ni + 1, dtype=np.float64) ** a.zipf
    slices = rng.permutation(ni)[rng.choice(ni, size=a.entries, p=weights / weights.sum())]
    k = rng.integers(0, nk, size=a.entries)
    l = rng.integers(0, nl, size=a.entries)
    keys = np.unique((slices.astype(np.int64) * nk + k) * nl + l)
    i, rest = np.divmod(keys, nk * nl)
    k, l = np.divmod(rest, nl)
    values = rng.uniform(0.0, 1.0, size=keys.size)
    counts = np.bincount(i, minlength=ni)
    table = np.column_stack([i + 1, k + 1, l + 1, values])
    np.savetxt(a.out, table, fmt=["%d", "%d", "%d", "%.17g"], delimiter=" ")
    print("%s: %d x %d x %d, %d entries, %d non-empty slices, heaviest slice %d entries (%.1f%%)"
          % (a.out, ni, nk, nl, keys.size, np.count_nonzero(counts), counts.max(), 100.0 * counts.max() / keys.size))


if __name__ == "__main__":
    main()
