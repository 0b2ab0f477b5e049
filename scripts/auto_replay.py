#!/usr/bin/python3
"""Replays fusion mode auto's decisions on measurements already taken.

For every (matrix, kernel, dims) of react-bench CSVs (scripts/auto_bench.sh's), asks the current
build (react-gen -fusion=auto -print-decisions, with the machine model in --cache-dir) what it
would choose, and times that choice with the CSVs' measurements of the fixed variants (pooled by
kernel file, as scripts/auto_eval.py does). Two models compared on the same measurements differ
only by their choices, not by the machine's noise of the day.

usage: /usr/bin/python3 scripts/auto_replay.py --csv OUT/*.csv --synthetic OUT/synthetic [--cache-dir DIR]
       [--machine machine-16t.txt]   (measurements of another machine: decide for its stored model)
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_results import storage  # noqa: E402

FIXED = ["none-openmp", "maximal-openmp", "react-openmp", "none-openmp-right", "maximal-openmp-right",
         "react-openmp-right"]
HERE = os.path.dirname(os.path.abspath(__file__))


def measurements(files):
    best, kernel = {}, {}
    for f in files:
        for r in csv.DictReader(open(f)):
            # program() writes S in csr and float64: rows of another --format or --value-type are not replayed
            if r["status"] != "ok" or r["variant"] not in FIXED or storage(r):
                continue
            key, v = (r["matrix"], r["kernel"], r["dims"]), r["variant"]
            best[(key, v)] = min(best.get((key, v), float("inf")), float(r["median_s"]))
            for part in r["note"].split(";"):
                if part.strip().startswith("kernel "):
                    kernel[(key, v)] = part.strip()[len("kernel "):]
    pooled = {}
    for (key, v), t in best.items():
        same = [w for (k, w) in best if k == key and kernel.get((k, w)) and kernel.get((k, w)) == kernel.get((key, v))]
        pooled[(key, v)] = min([t] + [best[(key, w)] for w in same])
    return pooled


def program(kernel, dims):
    d = dict(x.split("=") for x in dims.split())
    if kernel == "spmm_mm":
        return ["A = S @ C @ D", "-g=C:u", "-g=D:u", "-d=h:" + d["NH"], "-d=j:" + d["NJ"]]
    if kernel == "sddmm":
        return ["A = S * (B @ C)", "-g=B:u", "-g=C:u", "-d=k:" + d["K"]]
    if kernel == "norm_row":
        return ["A = S / sum(S, axis=1)"]
    return ["A = exp(S) / sum(exp(S), axis=1)"]


def choice(gen, args, matrix, cache, machine):
    extra = ["-machine=" + machine] if machine else []
    out = subprocess.run([gen] + args + extra + ["-i=S:" + matrix, "-fusion=auto", "-print-decisions", "-cache-dir=" + cache],
                         capture_output=True, text=True, check=True).stdout
    label = re.search(r"^choice: \d+ \((.*)\), estimated", out, re.M).group(1)
    if "(" in label.split(",")[0]:
        return None, label  # a fusion plan: a kernel no fixed variant runs
    return label.split()[0].rstrip(",") + "-openmp" + ("-right" if "re-associated" in label else ""), label


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--csv", nargs="+", required=True)
    p.add_argument("--synthetic", required=True, help="folder of the synthetic matrices (auto_bench.sh's OUT/synthetic)")
    p.add_argument("--matrices", default=os.path.join(HERE, "..", "..", "shared", "data", "matrices"))
    p.add_argument("--cache-dir", default=os.path.join(HERE, "..", "build", "jit-cache"))
    p.add_argument("--machine", help="a stored machine model (the measured machine's machine-<N>t.txt)")
    p.add_argument("--gen", default=os.path.join(HERE, "..", "build", "bin", "react-gen"))
    a = p.parse_args()
    pooled = measurements(a.csv)
    ratios, over, skipped = [], [], []
    for key in sorted({k for (k, _) in pooled}):
        m, kernel, dims = key
        path = os.path.join(a.matrices, m + ".mtx")
        if not os.path.exists(path):
            path = os.path.join(a.synthetic, m + ".mtx")
        variant, label = choice(a.gen, program(kernel, dims), path, a.cache_dir, a.machine)
        fixed = {v: pooled[(key, v)] for v in FIXED if (key, v) in pooled}
        if variant not in fixed:
            skipped.append("%s %s %s: %s" % (m, kernel, dims, label))
            continue
        best = min(fixed, key=fixed.get)
        ratios.append(fixed[variant] / fixed[best])
        if ratios[-1] > 1.05:
            over.append("  - %s, %s %s: chose %s, best %s, %.2fx" % (m, kernel, dims, variant, best, ratios[-1]))
    print("%d cases; geometric mean of the choice over the best fixed choice: %.3f; more than 5%% slower: %d" % (
        len(ratios), math.exp(sum(map(math.log, ratios)) / len(ratios)), len(over)))
    print("\n".join(over))
    for s in skipped:
        print("  not replayable (no fixed variant runs its kernel): " + s)


main()
