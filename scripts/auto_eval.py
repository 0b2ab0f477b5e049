#!/usr/bin/python3
"""Evaluates fusion mode auto from react-bench CSVs (and optionally scripts/scipy_bench.py CSVs).

For every (matrix, kernel, dims, threads): the best fixed choice is the fastest of none, maximal
and react in either association (variants none/maximal/react-openmp and their -right forms);
auto's time is that of the fixed variant it chose, whose kernel it is (same source, same
library). Variants that run the same kernel file (react-bench's note names it) are one code, and
their measurements are pooled: auto-openmp's is one more sample of its choice (react-bench measures react-openmp first on every item, which on a shared machine makes its
first measurement slower; pooling keeps that from deciding which fixed choice is best). Several CSVs of the same runs may be given: each variant's time is the smallest median
over them. Prints a markdown report: the geometric mean of auto / best, the cases over 5%, and
auto's speedup over SciPy's best association.

usage: /usr/bin/python3 scripts/auto_eval.py --react a.csv [b.csv ...] [--scipy s.csv ...]
"""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_results import storage  # noqa: E402

FIXED = ["none-openmp", "maximal-openmp", "react-openmp", "none-openmp-right", "maximal-openmp-right",
         "react-openmp-right"]


def load(files):
    best = {}
    notes = {}
    kernel_of = {}  # (item, variant) -> the kernel library react-bench names in the note
    for f in files:
        for r in csv.DictReader(open(f)):
            if r["status"] != "ok":
                continue
            key = (r["matrix"], r["kernel"], r["dims"] + storage(r), r["threads"])
            t = float(r["median_s"])
            v = r["variant"]
            if (key, v) not in best or t < best[(key, v)]:
                best[(key, v)] = t
            if r["note"].startswith("auto chose"):
                notes[key] = r["note"]
            for part in r["note"].split(";"):
                if part.strip().startswith("kernel "):
                    kernel_of[(key, v)] = part.strip()[len("kernel "):]
    # Variants that run the same kernel (same generated source, e.g. react and none where react
    # fuses nothing, or auto and its choice) are one code: their samples are pooled.
    pooled = dict(best)
    for (key, v), lib in kernel_of.items():
        same = [w for (k2, w), l2 in kernel_of.items() if k2 == key and l2 == lib]
        pooled[(key, v)] = min(best[(key, w)] for w in same if (key, w) in best)
    by_item = defaultdict(dict)
    for (key, v), t in pooled.items():
        by_item[key][v] = t
    return by_item, notes, kernel_of


def chosen_variant(note, key, kernel_of):
    # "auto chose react re-associated; ..." -> react-openmp-right (a chain of 3: the other order).
    # A choice with limited merges ("auto chose react (T0 -> A unfused) as written") is the fixed
    # variant that runs the same kernel file if one does, else auto's own kernel ("auto-openmp").
    head = note.split(";")[0]
    words = head.split()
    fixed = words[2] + "-openmp" + ("-right" if "re-associated" in words else "")
    if "(" not in head:
        return fixed
    mine = kernel_of.get((key, "auto-openmp"))
    same = [v for v in FIXED if mine is not None and kernel_of.get((key, v)) == mine]
    return same[0] if same else "auto-openmp"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--react", nargs="+", required=True)
    p.add_argument("--scipy", nargs="*", default=[])
    a = p.parse_args()
    items, notes, kernel_of = load(a.react)
    scipy_items = load(a.scipy)[0] if a.scipy else {}
    rows = []
    for key in sorted(items):
        v = items[key]
        fixed = {n: v[n] for n in FIXED if n in v}
        if "auto-openmp" not in v or not fixed:
            continue
        chose = chosen_variant(notes[key], key, kernel_of) if key in notes else "?"
        # auto-openmp runs exactly the chosen variant's kernel (same source, same library): its
        # measurement is one more sample of that kernel, pooled on both sides of the ratio (load()
        # already pools by kernel file where react-bench names it).
        if chose in fixed:
            fixed[chose] = min(fixed[chose], v["auto-openmp"])
        best_name = min(fixed, key=fixed.get)
        best = fixed[best_name]
        # A kernel no fixed variant runs (per-edge fusion) is measured as auto-openmp only.
        chosen_t = v["auto-openmp"] if chose == "auto-openmp" else fixed.get(chose)
        # SciPy's sparse products use one thread whatever --threads says: matched on the item alone.
        sc = {}
        for skey, sv in scipy_items.items():
            if skey[:3] == key[:3]:
                sc.update(sv)
        scipy_best = min(sc.values()) if sc else None
        scipy_name = min(sc, key=sc.get) if sc else ""
        rows.append((key, best_name, best, v["auto-openmp"], chose, chosen_t, scipy_best, scipy_name))
    table = ["| matrix | kernel | threads | best fixed | best ms | auto ms (measured) | auto's choice | choice ms | choice / best | SciPy best | auto speedup over SciPy |",
             "|---|---|---|---|---:|---:|---|---:|---:|---:|---|"]
    ratios_measured, ratios_choice, over_scipy, bad = [], [], [], []
    per_kernel = defaultdict(list)
    for key, best_name, best, auto_t, chose, chosen_t, scipy_best, scipy_name in rows:
        m, k, d, th = key
        rc = chosen_t / best if chosen_t else float("nan")
        ratios_measured.append(auto_t / best)
        if chosen_t:
            ratios_choice.append(rc)
            if rc > 1.05:
                bad.append((key, best_name, chose, rc))
        spd = ""
        if scipy_best:
            s = scipy_best / (chosen_t or auto_t)
            over_scipy.append(s)
            per_kernel[k].append(s)
            spd = "%.2fx (%s)" % (s, scipy_name)
        table.append("| %s | %s %s | %s | %s | %.3f | %.3f | %s | %s | %.3f | %s | %s |" % (
            m, k, d, th, best_name, best * 1e3, auto_t * 1e3, chose, "%.3f" % (chosen_t * 1e3) if chosen_t else "-", rc,
            "%.3f ms" % (scipy_best * 1e3) if scipy_best else "-", spd))
    out = ["<!-- auto-summary -->"]
    out.append("- %d cases (matrix, kernel, dense sizes) with auto and at least one fixed choice measured." % len(rows))
    out.append("- geometric mean of auto's time over the best fixed choice (none, maximal, react in either "
               "association): **%.3f** (auto-openmp as measured: %.3f); largest %.2f." % (
                   geomean(ratios_choice), geomean(ratios_measured), max(ratios_choice) if ratios_choice else float("nan")))
    if over_scipy:
        out.append("- geometric mean speedup of auto over SciPy's best association: **%.2fx** (%d cases, %.2fx to %.2fx)." % (
            geomean(over_scipy), len(over_scipy), min(over_scipy), max(over_scipy)))
        out.append("  per kernel: " + "; ".join("%s %.2fx (%d)" % (k, geomean(v), len(v)) for k, v in sorted(per_kernel.items())))
    out.append("- cases where auto's choice is more than 5%% slower than the best fixed choice: **%d** of %d%s" % (
        len(bad), len(rows), ":" if bad else "."))
    for key, best_name, chose, rc in bad:
        out.append("  - %s, %s %s (%s threads): chose %s, best %s, %.2fx" % (key[0], key[1], key[2], key[3], chose,
                                                                            best_name, rc))
    out.append("<!-- /auto-summary -->")
    print("\n".join(out + [""] + table))


main()
