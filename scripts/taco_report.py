#!/usr/bin/env python3
"""Markdown tables of the TACO baseline (docs/benchmarks-taco.md) from react-bench CSVs with the
taco variants, and optionally scripts/scipy_bench.py's CSVs of the same matrices: react's speedup
over taco-default and taco-best per kernel (geometric mean over the matrices where both ran), then
the median times per matrix and kernel, with the time taco-best's sddmm took to copy C into its
column-major layout (not timed). Several runs of the same items: each item's lowest median counts
(on a machine shared with other work, the run least disturbed).

usage: /usr/bin/python3 scripts/taco_report.py RESULTS.csv... [--scipy SCIPY.csv...] [--summary-only] [--plot PNG]
--plot draws react's speedup over taco-best per kernel and matrix (spmm_mm: react-openmp-right, and
over the better of SciPy's two orders where given).
"""
import argparse
import csv
import re

from bench_results import geomean, label, ordered

REACT = ("react-openmp", "react-openmp-right")
TACO = ("taco-default", "taco-best")
ORDER = REACT + TACO + ("library-eigen", "library-kokkoskernels", "scipy-left", "scipy-right")


def load(paths):
    """{(matrix, label, variant): the row with the lowest median (or any row, where none ran)}."""
    best = {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["threads"] != "1":
                    raise SystemExit(f"taco_report.py: {path}: the tables are for 1-thread runs (--threads 1)")
                r["label"] = label(r)
                r["median"] = float(r["median_s"]) if r["status"] == "ok" else None
                key = (r["matrix"], r["label"], r["variant"])
                old = best.get(key)
                if old is None or (r["median"] is not None and (old["median"] is None or r["median"] < old["median"])):
                    best[key] = r
    return best


LAYOUT = re.compile(r"C transposed to column-major when prepared, in ([0-9.e+-]+) ms")


def median(rows, matrix, lab, variant):
    """Median seconds, or None where the variant did not run (or is not in the files)."""
    r = rows.get((matrix, lab, variant))
    return r["median"] if r else None


def layout_ms(rows, matrix, lab):
    """taco-best's copy of C into column-major (sddmm), in ms, or None."""
    r = rows.get((matrix, lab, "taco-best"))
    found = LAYOUT.search(r["note"]) if r else None
    return float(found.group(1)) if found else None


def summary(rows, matrices, labels):
    out = ["| kernel | react variant | over taco-default | over taco-best |", "|---|---|---:|---:|"]
    for lab in labels:
        for react in REACT:
            cells = []
            for taco in TACO:
                pairs = [(median(rows, m, lab, react), median(rows, m, lab, taco)) for m in matrices]
                ratios = [t / r for r, t in pairs if r and t]
                mean, n = geomean(ratios)
                cells.append(f"{mean:.2f}x ({n}; {min(ratios):.2f}–{max(ratios):.2f})" if n else "—")
            if any(median(rows, m, lab, react) for m in matrices):
                out.append(f"| {lab} | {react} | " + " | ".join(cells) + " |")
    return out


def medians(rows, matrices, labels):
    nnz = {m: r["nnz"] for (m, _, _), r in rows.items()}
    out = []
    for lab in labels:
        # The taco columns even where they cannot run (sddmm's default); others where they ran.
        present = {v for (m, l, v) in rows if l == lab and (v in TACO or any(median(rows, x, lab, v) for x in matrices))}
        variants = [v for v in ORDER if v in present] + sorted(present - set(ORDER))
        layout = any(layout_ms(rows, m, lab) for m in matrices)
        head = variants + (["taco-best's C copy (not timed)"] if layout else [])
        out += ["", f"{lab}, 1 thread (median ms; — : cannot run):", "",
                "| matrix | nnz | " + " | ".join(head) + " |", "|---|---:|" + "---:|" * len(head)]
        for m in matrices:
            cells = [f"{t * 1e3:.4g}" if t else "—" for t in (median(rows, m, lab, v) for v in variants)]
            if layout:
                copy = layout_ms(rows, m, lab)
                cells.append(f"{copy:.3g}" if copy else "—")
            out.append(f"| {m} | {nnz[m]} | " + " | ".join(cells) + " |")
    return out


def plot(rows, matrices, labels, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.8 / len(matrices)
    for n, m in enumerate(matrices):
        heights = []
        for lab in labels:
            react = median(rows, m, lab, "react-openmp-right") or median(rows, m, lab, "react-openmp")
            anchors = [median(rows, m, lab, v) for v in ("taco-best", "scipy-left", "scipy-right")]
            anchors = [a for a in anchors if a]
            heights.append(min(anchors) / react if react and anchors else 0)
        ax.bar([k + n * width for k in range(len(labels))], heights, width, label=m)
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(labels))], labels)
    ax.set_ylabel("react over the best of taco-best and SciPy")
    ax.set_yscale("log")
    ax.set_yticks([0.5, 0.7, 1, 1.5, 2, 3], ["0.5x", "0.7x", "1x", "1.5x", "2x", "3x"])
    ax.minorticks_off()
    ax.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", nargs="+", help="react-bench CSVs (--threads 1), e.g. several runs of the same items")
    p.add_argument("--scipy", nargs="*", default=[], help="scripts/scipy_bench.py's CSVs of the same matrices")
    p.add_argument("--summary-only", action="store_true")
    p.add_argument("--plot", help="a PNG of react's speedups (see above)")
    args = p.parse_args()
    rows = load(args.csv + args.scipy)
    react_keys = [k for k in rows if k[2].startswith("react-")]
    matrices = ordered(m for m, _, _ in react_keys)
    labels = ordered(lab for _, lab, _ in react_keys)
    out = summary(rows, matrices, labels)
    if not args.summary_only:
        out += medians(rows, matrices, labels)
    print("\n".join(out))
    if args.plot:
        plot(rows, matrices, labels, args.plot)


if __name__ == "__main__":
    main()
