#!/usr/bin/python3
"""react over a baseline measured side by side: for each (matrix, kernel and its sizes, storage), the
least of react's medians over the processes given (alternating runs of one build) against the
fastest baseline variant, as a markdown table with the geometric mean and least ratio per kernel,
and optionally a plot with the target ratio drawn in. Rows are matched by matrix and label alone
(threads and execution space are not part of the key): give it one thread count's runs. A label
without a type is float64 (bench_results.label). With --any-format, react's S in another format
(react-bench --format csc) is matched with the baseline's csr rows of the same type: give it one
format's runs (rows of several formats would share a key and the least would be taken).

    /usr/bin/python3 scripts/baseline_ratio.py --react run-1.csv run-2.csv --variant react-kokkos \\
        --baseline cusparse-float64.csv cusparse-float32.csv --baseline-prefix library-cusparse \\
        --target 3 --out docs/plot.png
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_results import geomean, label, load, ordered  # noqa: E402


def least(rows, accept, any_format=False):
    """{(matrix, label): least median seconds} over the rows `accept` takes; with `any_format`, the
    label without S's format."""
    out = {}
    for r in rows:
        if r["ok"] and accept(r["variant"]):
            key = (r["matrix"], label(dict(r, format="")) if any_format else r["label"])
            out[key] = min(out.get(key, r["median_s"]), r["median_s"])
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--react", nargs="+", required=True, help="react-bench CSVs (one per process)")
    p.add_argument("--variant", default="react-kokkos")
    p.add_argument("--baseline", nargs="+", required=True, help="the baseline's CSVs (react-bench's columns)")
    p.add_argument("--baseline-prefix", default="library-", help="baseline variants: those named with this prefix")
    p.add_argument("--target", type=float, help="the ratio to draw as a line")
    p.add_argument("--out", help="PNG or SVG")
    p.add_argument("--any-format", action="store_true", help="react's rows in any format of S against the baseline's csr")
    a = p.parse_args()
    react = least(load(*a.react), lambda v: v == a.variant, a.any_format)
    base = least(load(*a.baseline), lambda v: v.startswith(a.baseline_prefix), a.any_format)
    keys = [k for k in react if k in base]
    if not keys:
        sys.exit("baseline_ratio.py: no (matrix, kernel) both in --react and --baseline")
    labels, matrices = ordered(k[1] for k in keys), ordered(k[0] for k in keys)
    print("| matrix | " + " | ".join(labels) + " |\n|---|" + "---:|" * len(labels))
    for m in matrices:
        cells = ["%.2fx" % (base[(m, l)] / react[(m, l)]) if (m, l) in base and (m, l) in react else "" for l in labels]
        print("| " + m + " | " + " | ".join(cells) + " |")
    summary = []
    for l in labels:
        ratios = [base[k] / react[k] for k in keys if k[1] == l]
        g, n = geomean(ratios)
        summary.append("%.2fx (%d; least %.2fx)" % (g, n, min(ratios)))
    print("| geomean | " + " | ".join(summary) + " |")
    if a.out:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(matrices)), 4))
        width = 0.8 / len(labels)
        for n, l in enumerate(labels):
            xs = [i + n * width for i, m in enumerate(matrices) if (m, l) in react and (m, l) in base]
            ys = [base[(m, l)] / react[(m, l)] for m in matrices if (m, l) in react and (m, l) in base]
            ax.bar(xs, ys, width, label=l)
        if a.target:
            ax.axhline(a.target, color="black", linestyle="--", linewidth=1, label="target %gx" % a.target)
        ax.set_yscale("log")
        ax.set_ylim(bottom=0.8 * min([1.0] + [base[k] / react[k] for k in keys]))
        ax.axhline(1, color="grey", linewidth=0.5)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(matrices))])
        ax.set_xticklabels(matrices, rotation=30, ha="right")
        ax.set_ylabel(a.variant + " over the baseline")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.out)


if __name__ == "__main__":
    main()
