#!/usr/bin/python3
"""SDDMM on the GPU against what any kernel must gather: react-bench's react-kokkos times beside
scripts/sddmm_floor_probe.cu (the rows a kernel walking S by rows or by columns must read, and
nothing else) and scripts/sddmm_flat_probe.cu (whole hand-written SDDMM kernels walking by rows
and by columns), all from one lease. Per matrix, type and K: the times, react over the faster
flat kernel by rows, and each one's share of the measured bandwidth (react-bench's work-model
bytes over its machine_gbs). The probes time the kernel alone (CUDA events); react-bench's time is
a whole call, about 10 us more. Geometric means per type and K.

    /usr/bin/python3 scripts/gpu_floor_report.py --react sddmm.csv --floor floor.csv --flat flat.csv \\
        [--target 0.3] [--plot docs/plot.png]

Prints a Markdown table; the plot shows the bandwidth shares on the matrices of at least 2M
stored entries.
"""
import argparse
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_results import geomean, load  # noqa: E402

def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--react", nargs="+", required=True)
    p.add_argument("--floor", required=True)
    p.add_argument("--flat", nargs="+", required=True, help="the least time of each kernel over the files")
    p.add_argument("--target", type=float, default=0.3, help="bandwidth share drawn as a line")
    p.add_argument("--plot")
    args = p.parse_args()

    react = {}
    for r in load(*args.react):
        if r["ok"] and r["kernel"] == "sddmm" and r["variant"] == "react-kokkos":
            key = (r["matrix"], r["value_type"], r["dims"].removeprefix("K="))
            best = react.get(key)
            if best is None or r["median_s"] < best[0]:
                react[key] = (r["median_s"], float(r["model_bytes"]), float(r["machine_gbs"]) * 1e9, int(r["nnz"]))
    floor, flat = {}, {}
    with open(args.floor, newline="") as f:
        for r in csv.DictReader(f):
            floor[(r["matrix"], r["value_type"], r["K"], r["order"])] = float(r["median_s"])
    for path in args.flat:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                order = "columns" if r["form"].endswith("-columns") else "rows"
                key = (r["matrix"], r["value_type"], r["K"], order)
                flat[key] = min(flat.get(key, math.inf), float(r["median_s"]))

    print("| matrix | type | K | react ms | flat by rows | flat by columns | floor by rows | floor by columns "
          "| react / flat by rows | bandwidth: react, flat rows, flat columns |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    ratios, large = {}, []
    for key in sorted(react, key=lambda k: (k[1], int(k[2]), k[0])):
        (m, vt, k), (t, nbytes, gbs, nnz) = key, react[key]
        fr, fc = flat[(m, vt, k, "rows")], flat[(m, vt, k, "columns")]
        lr, lc = floor[(m, vt, k, "rows")], floor[(m, vt, k, "columns")]
        share = [nbytes / x / gbs for x in (t, fr, fc, lr, lc)]
        ratios.setdefault((vt, k), []).append(t / fr)
        print(f"| {m} | {vt} | {k} | {t * 1e3:.4f} | {fr * 1e3:.4f} | {fc * 1e3:.4f} | {lr * 1e3:.4f} | {lc * 1e3:.4f} "
              f"| {t / fr:.2f}x | {share[0]:.1%}, {share[1]:.1%}, {share[2]:.1%} |")
        if nnz >= 2_000_000:
            large.append((f"{m}\n{vt} K={k}", share))
    print()
    for (vt, k), v in sorted(ratios.items()):
        print(f"- {vt} K={k}: react over the flat kernel by rows, geomean {geomean(v)[0]:.2f}x ({min(v):.2f}-{max(v):.2f})")

    if args.plot and large:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        names = ("react", "flat by rows", "flat by columns", "floor by rows", "floor by columns")
        fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(large)), 4.5))
        width = 0.16
        for n, name in enumerate(names):
            ax.bar([i + (n - 2) * width for i in range(len(large))], [100 * s[n] for _, s in large], width, label=name)
        ax.axhline(100 * args.target, color="black", linestyle="--", linewidth=1, label=f"target {args.target:.0%}")
        ax.set_xticks(range(len(large)))
        ax.set_xticklabels([label for label, _ in large], fontsize=7)
        ax.set_ylabel("% of the measured bandwidth")
        ax.set_title("SDDMM on the GPU, matrices of 2M+ stored entries: react, hand-written kernels, gather floors")
        ax.legend(fontsize=7, ncol=3)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()
