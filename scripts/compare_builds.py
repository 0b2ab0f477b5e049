#!/usr/bin/python3
"""Compares two builds of react on the same react-bench runs: new time over old time per (matrix,
kernel, variant, threads), the geometric mean and the worst matrix per kernel and variant, and a
plot of the ratios. Each side may have several rounds (CSV files); a side's time is the lowest of
its rounds' medians, so that one disturbed round does not decide.

    /usr/bin/python3 scripts/compare_builds.py --old old-*.csv --new new-*.csv [--out ratios.png]

Prints a Markdown table (docs/benchmarks.md) and exits 0.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_results import load  # noqa: E402


def best_times(paths):
    """(matrix, label, variant, threads) -> the lowest median over the rounds."""
    best = {}
    for r in load(*paths):
        if not r["ok"]:
            continue
        key = (r["matrix"], r["label"], r["variant"], r["threads"])
        best[key] = min(best.get(key, math.inf), r["median_s"])
    return best


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--old", nargs="+", required=True)
    p.add_argument("--new", nargs="+", required=True)
    p.add_argument("--out", help="PNG or SVG: the ratios per kernel and variant")
    args = p.parse_args()
    old, new = best_times(args.old), best_times(args.new)
    groups = {}
    for key in sorted(old.keys() & new.keys()):
        matrix, lab, variant, threads = key
        groups.setdefault((lab, variant, threads), []).append((new[key] / old[key], matrix))
    if not groups:
        sys.exit("compare_builds: no (matrix, kernel, variant, threads) ran in both builds")
    print("| kernel | variant | threads | matrices | new/old time, geomean | slowest (matrix) | fastest (matrix) |")
    print("|---|---|---|---|---|---|---|")
    for (lab, variant, threads), ratios in sorted(groups.items()):
        worst, best = max(ratios), min(ratios)
        print(f"| {lab} | {variant} | {threads} | {len(ratios)} | {geomean([r for r, _ in ratios]):.3f} | "
              f"{worst[0]:.3f} ({worst[1]}) | {best[0]:.3f} ({best[1]}) |")
    if args.out:
        plot(groups, args.out)


def plot(groups, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = sorted(groups)
    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(keys) + 2), 4.5))
    for x, key in enumerate(keys):
        ratios = [r for r, _ in groups[key]]
        ax.scatter([x] * len(ratios), ratios, s=10, color="#6baed6", zorder=2)
        ax.scatter([x], [geomean(ratios)], s=40, marker="_", color="black", linewidths=2, zorder=3)
    ax.axhline(1, color="black", linewidth=0.8)
    ax.axhline(1.05, color="#b00", linewidth=0.6, linestyle=":")
    ax.set_yscale("log")
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([f"{lab} {v} t={t}" for lab, v, t in keys], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("new / old time (log)")
    ax.set_title("react-bench, new build over old, per matrix (dots) and geomean (bars)", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
