#!/usr/bin/python3
"""SDDMM against its read floor: scripts/sddmm_floor_probe.cpp's times (the rows any SDDMM kernel
must gather, read by a loop that does nothing else, walking S by rows and by columns) beside
react-bench's react-openmp and taco-best on the same matrices, one thread. Per matrix and K: both
floors, react, taco-best, react over the floor of its walk (rows), react over taco-best, and
taco-best over the lower floor: the most any kernel walking S either way can gain over taco-best.
Each item's least time over the CSVs given (alternating processes). Geometric means per K.

    /usr/bin/python3 scripts/floor_report.py --floor floor-1.csv floor-2.csv \\
        --bench sddmm-1.csv sddmm-2.csv [--target 2] [--plot docs/plot.png]

--scaling N instead: N threads over 1 for react-bench's sddmm (react-openmp) and spmm_mm
(react-openmp-right) rows, with the N-thread time's share of the N-thread copy roofline (the
model's bytes over the highest copy bandwidth react-bench measured; above 100% where reads are
faster than a copy, or hit the caches) and, for SDDMM where --floor gives it, the N-thread floor
of S walked by rows.
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_results import geomean, load, ordered  # noqa: E402


def floors(paths, threads):
    """{(matrix, K, order): least median seconds} of the probe's rows at that thread count."""
    out = {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if int(r["threads"]) != threads:
                    continue
                key = (r["matrix"], int(r["K"]), r["order"])
                out[key] = min(out.get(key, float("inf")), float(r["median_s"]))
    return out


def bench(paths, threads):
    """{(matrix, K, variant): least median seconds} of react-bench's sddmm rows."""
    out = {}
    for r in load(*paths):
        if r["ok"] and r["kernel"] == "sddmm" and r["threads"] == threads and not r["label"].endswith("]"):
            key = (r["matrix"], int(r["dims"].split("=")[1]), r["variant"])
            out[key] = min(out.get(key, r["median_s"]), r["median_s"])
    return out


def scaling(floor_paths, bench_paths, threads):
    rows = [r for r in load(*bench_paths) if r["ok"] and not r["label"].endswith("]") and
            (r["kernel"], r["variant"]) in (("sddmm", "react-openmp"), ("spmm_mm", "react-openmp-right"))]
    bandwidth = max(float(r["machine_gbs"]) for r in rows if r["threads"] == threads) * 1e9
    floor = floors(floor_paths, threads)
    least = {}
    for r in rows:
        key = (r["matrix"], r["label"], r["threads"])
        least[key] = min(least.get(key, r["median_s"]), r["median_s"])
    print("%d threads over 1; the %d-thread copy bandwidth %.1f GB/s (ms; ratios of times)\n" % (threads, threads, bandwidth / 1e9))
    print("| matrix | kernel | 1 thread | %d threads | ratio | of the copy roofline | floor by rows |" % threads)
    print("|---|---|---:|---:|---:|---:|---:|")
    for m in ordered(r["matrix"] for r in rows):
        for lab in ordered(r["label"] for r in rows if r["matrix"] == m):
            one, many = least.get((m, lab, 1)), least.get((m, lab, threads))
            if one is None or many is None:
                continue
            moved = next(float(r["model_bytes"]) for r in rows if r["matrix"] == m and r["label"] == lab) / bandwidth
            k = int(lab.split("=")[1]) if lab.startswith("sddmm") else None
            walk = floor.get((m, k, "rows"))
            print("| %s | %s | %.2f | %.2f | %.2fx | %.0f%% | %s |" % (
                m, lab, one * 1e3, many * 1e3, one / many, 100 * moved / many, "%.2f" % (walk * 1e3) if walk else ""))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--floor", nargs="*", default=[], help="sddmm_floor_probe CSVs (with --scaling: optional)")
    p.add_argument("--bench", nargs="+", required=True, help="react-bench CSVs: react-openmp and taco-best (with --scaling: 1 and N threads)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--target", type=float, help="react over taco-best to draw as a line")
    p.add_argument("--plot", help="PNG or SVG")
    p.add_argument("--scaling", type=int, metavar="N", help="N threads over 1 (see above)")
    a = p.parse_args()
    if a.scaling:
        return scaling(a.floor, a.bench, a.scaling)
    if not a.floor:
        p.error("--floor is required without --scaling")
    fl, times = floors(a.floor, a.threads), bench(a.bench, a.threads)
    keys = [(m, k) for (m, k, v) in times if v == "react-openmp" and (m, k, "taco-best") in times
            and (m, k, "rows") in fl and (m, k, "columns") in fl]
    if not keys:
        sys.exit("floor_report.py: no (matrix, K) with both floors, react-openmp and taco-best")
    matrices, sizes = ordered(m for m, _ in keys), sorted(set(k for _, k in keys))
    table = {}
    for k in sizes:
        print("\n**K=%d** (ms; ratios of times)\n" % k)
        print("| matrix | floor, by rows | floor, by columns | react | taco-best | react / floor by rows "
              "| react over taco-best | taco-best / lower floor |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        cols = {"over_floor": [], "over_taco": [], "bound": []}
        for m in matrices:
            if (m, k) not in keys:
                continue
            rows, columns = fl[(m, k, "rows")], fl[(m, k, "columns")]
            react, taco = times[(m, k, "react-openmp")], times[(m, k, "taco-best")]
            row = (react / rows, taco / react, taco / min(rows, columns))
            table[(m, k)] = row
            for name, x in zip(cols, row):
                cols[name].append(x)
            print("| %s | %.3f | %.3f | %.3f | %.3f | %.2f | %.2fx | %.2fx |"
                  % (m, rows * 1e3, columns * 1e3, react * 1e3, taco * 1e3, *row))
        g = {name: geomean(xs)[0] for name, xs in cols.items()}
        print("| geomean | | | | | %.2f | %.2fx (least %.2fx) | %.2fx (least %.2fx) |"
              % (g["over_floor"], g["over_taco"], min(cols["over_taco"]), g["bound"], min(cols["bound"])))
    if a.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(sizes), figsize=(max(6, 1.1 * len(matrices)) * len(sizes) / 1.5, 4), squeeze=False)
        for ax, k in zip(axes[0], sizes):
            ms = [m for m in matrices if (m, k) in table]
            xs = range(len(ms))
            ax.bar([x - 0.2 for x in xs], [table[(m, k)][1] for m in ms], 0.4, label="react over taco-best")
            ax.bar([x + 0.2 for x in xs], [table[(m, k)][2] for m in ms], 0.4, label="taco-best over the read floor")
            if a.target:
                ax.axhline(a.target, color="black", linestyle="--", linewidth=1, label="target %gx" % a.target)
            ax.axhline(1, color="grey", linewidth=0.5)
            ax.set_xticks(list(xs))
            ax.set_xticklabels(ms, rotation=30, ha="right")
            ax.set_title("SDDMM K=%d, %d thread%s" % (k, a.threads, "" if a.threads == 1 else "s"))
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.plot)


if __name__ == "__main__":
    main()
