#!/usr/bin/python3
"""Plots react-bench results: speedup of each variant over the library pipeline, per matrix, with
the geometric mean; one panel per kernel (rows) and thread count (columns), log scale.

    /usr/bin/python3 scripts/plot_bench.py results.csv [more.csv] --out speedups.png [--threads 2]
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_results import REACT_VARIANTS, Results, load  # noqa: E402

COLORS = {
    "none-openmp": "#c6dbef", "maximal-openmp": "#6baed6", "react-openmp": "#08519c",
    "none-kokkos": "#fdd0a2", "maximal-kokkos": "#fd8d3c", "react-kokkos": "#a63603",
}


def panel(ax, res, lab, threads, variants):
    groups = res.matrices + ["geomean"]
    width = 0.8 / len(variants)
    for n, v in enumerate(variants):
        xs, ys = [], []
        for g, matrix in enumerate(groups):
            if matrix == "geomean":
                y = res.geomean_speedup(lab, threads, v, "library")[0]
            else:
                y = res.speedup(matrix, lab, threads, v, "library")
            if y:
                xs.append(g - 0.4 + (n + 0.5) * width)
                ys.append(y)
                if matrix == "geomean":
                    ax.annotate(f"{y:.3g}", (xs[-1], y), xytext=(0, 2), textcoords="offset points", ha="center",
                                va="bottom", fontsize=6, rotation=90)
        ax.bar(xs, ys, width, color=COLORS.get(v, "grey"), label=v)
    for g, matrix in enumerate(res.matrices):
        if res.time(matrix, lab, threads, "library") is None:
            ax.text(g, 1, "library\ncannot run", ha="center", va="bottom", fontsize=6, rotation=90, color="#b00")
    ax.axhline(1, color="black", linewidth=0.8)
    ax.axvline(len(res.matrices) - 0.5, color="grey", linewidth=0.6, linestyle=":")
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}x"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.tick_params(axis="y", labelsize=7)
    ax.margins(y=0.15)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=45, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_title(f"{lab}, {threads} thread{'s' if threads > 1 else ''}", fontsize=10)
    ax.set_ylabel("speedup over library", fontsize=8)
    ax.grid(axis="y", which="major", alpha=0.3)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", nargs="+")
    p.add_argument("--out", required=True, help="PNG or SVG file")
    p.add_argument("--threads", type=int, action="append", help="only these thread counts")
    args = p.parse_args()
    res = Results(load(*args.csv))
    threads = args.threads or res.threads
    variants = [v for v in REACT_VARIANTS if v in res.variants]
    if not variants or not res.rows:
        sys.exit("plot_bench: no react variants in " + ", ".join(args.csv))
    fig, axes = plt.subplots(len(res.labels), len(threads), squeeze=False,
                             figsize=(max(8, 0.75 * len(res.matrices) + 2) * len(threads), 3.2 * len(res.labels)))
    for r, lab in enumerate(res.labels):
        for c, t in enumerate(threads):
            panel(axes[r][c], res, lab, t, variants)
    handles, names = axes[0][0].get_legend_handles_labels()
    top = 1 - (0.6 if fig.get_figwidth() >= 12 else 0.8) / fig.get_figheight()
    fig.suptitle("react-bench: speedup over the faster library pipeline (Eigen or Kokkos Kernels), log scale",
                 y=1 - 0.1 / fig.get_figheight(), va="top", fontsize=11)
    fig.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, 1 - 0.35 / fig.get_figheight()),
               ncol=len(variants) if fig.get_figwidth() >= 12 else 3, fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, top))
    fig.savefig(args.out, dpi=110)


if __name__ == "__main__":
    main()
