#!/usr/bin/python3
"""Writes docs/benchmarks.md from a react-bench CSV (run by scripts/bench.sh).

    /usr/bin/python3 scripts/bench_report.py docs/benchmarks.csv --command "..." --seconds 812 \\
        --load-before "..." --load-after "..." --plot docs/benchmarks-t1.png --plot docs/benchmarks-t2.png
"""
import argparse
import os
import platform
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_results import device_block, Results, load  # noqa: E402

MODEL = """\
| kernel | program | useful flops | compulsory bytes |
|---|---|---|---|
| sddmm | `A = S * (B @ C)`, B: NI x K, C: K x NJ | nnz (2K + 1) | 20 nnz + 8 (NI+1) + 8 K (NI + NJ) |
| spmm_mm | `A = S @ C @ D`, C: NJ x NH, D: NH x NJ' | 2 nnz NH + 2 NI NH NJ' | 12 nnz + 8 (NI+1) + 8 (NJ NH + NH NJ') + 8 NI NJ' |
| norm_row | `A = S / sum(S, axis=1)` | 2 nnz (sum, divide) | 20 nnz + 8 (NI+1) |
| softmax | `A = exp(S) / sum(exp(S), axis=1)` | 3 nnz (exp, sum, divide) | 20 nnz + 8 (NI+1) |
| mttkrp | `A(i,j) = S(i,k,l) * D(l,j) * C(k,j)`, S: NI x NK x NL csf, C: NK x R, D: NL x R | 2R (nnz + nnz1) | 12 nnz + 12 nnz1 + 12 nnz0 + 32 + 8 R (NK + NL) + 8 NI R |
| ttm | `A(i,j,l) = S(i,j,k) * C(k,l)`, S: NI x NJ x NK csf, C: NK x R | 2R nnz | 12 nnz + 12 nnz1 + 12 nnz0 + 32 + 8 R NK + 8 NI NJ R |

S is read once as csr (8-byte values, 4-byte columns, 8-byte row positions), dense inputs once,
the output written once (sparse outputs: values only, they share S's pattern; NJ' = 16 is
spmm_mm's output width). Every variant is rated with the same model, so GFLOP/s, GB/s and the
bandwidth fraction compare useful work, not the redundant work an unfused or maximally fused
variant performs (that is in the CSV's `performed_flops`).

The tensor kernels read S as csf: per level its positions (8 bytes, one more than the level
above's entries) and coordinates (4 bytes), and the values (8 bytes); nnz0 is S's slices, nnz1 its
(i,k) fibres (i,j for ttm), nnz its entries. MTTKRP's useful flops are those of the evaluation
without redundancy: the sum over l per fibre (2R per entry), multiplied by C(k,j) once per fibre
(2R per fibre); maximal fusion performs 3R nnz. TTM writes its output dense (NI x NJ x R), and the
model counts that output: react runs no `{Sparse,Sparse,Dense}` output yet
([benchmarks-tensors.md](benchmarks-tensors.md)).

With `--format csc` or `dcsr`, S's bytes are those of that format's levels (csc: NJ+1 positions;
dcsr: the rows with entries, twice); with `--value-type float32`, every value (S's, the dense
inputs', the output's) counts 4 bytes instead of 8."""

METHOD = """\
- **Variants.** `none`, `maximal` and `react` are react's fusion modes (no fusion, TACO-style
  maximal fusion, redundancy-aware partial fusion), each JIT-compiled by the OpenMP emitter and by
  the Kokkos emitter. Debian's Kokkos is Serial-only, so the `*-kokkos` variants and
  `library-kokkoskernels` run on **one thread** whatever `--threads` says (the CSV's
  `variant_threads`; they are measured once and that measurement is reported for each thread
  count). `library-eigen` is the unfused pipeline written with Eigen 3.4 (dense GEMM,
  sparse x dense products, `asDiagonal` scaling; OpenMP-parallel where Eigen is), and
  `library-kokkoskernels` the one written with Kokkos Kernels 3.4 (`KokkosSparse::spmv` on rank-2
  views = SpMM, `KokkosBlas::gemm`, which calls Debian's reference BLAS, plus `parallel_for` loops
  for the element-wise steps; Kokkos Kernels has no SDDMM, softmax or row scaling).
  **library** in the speedups and plots is the faster of the two library variants for each
  (matrix, kernel, threads).
- **TACO.** A react-bench configured with `-DREACT_TACO_DIR` (`scripts/taco_baseline.sh`) also
  has `taco-default` (each kernel in TACO's index notation, scheduled as TACO's
  `TensorBase::compile()` schedules it) and `taco-best` (the fastest schedule written by hand),
  compiled through TACO's C++ API when prepared and timed as TACO's compute functions alone,
  checked like every other variant. This report's runs are built without TACO; the schedules, what
  TACO cannot express and its results are in [benchmarks-taco.md](benchmarks-taco.md).
- **Check before timing.** Each variant's warm-up result is compared with react-openmp's (1e-9
  relative to the largest entry, same pattern); a disagreement stops the run (exit status 3).
- **Formats and value types** (`--format LIST`, `--value-type LIST`). `--format csr,csc,dcsr` runs
  the matrix kernels with S stored in each format (the same values: drawn in csr, then converted;
  the tensor kernels read csf whatever `--format` says), and `--value-type float64,float32` with
  every tensor (inputs, temporaries, result) in each type (the float64 inputs rounded). Rows and
  the CSV (columns `format` and `value_type`, appended after `note`) name both; a row in csc or
  dcsr shows its median over the same (matrix, kernel, variant, threads, type) on csr (`x csr`),
  and the summary their geometric mean and largest over the matrices, the measure of "a csc or
  dcsr input costs at most 1.1x the same kernel on csr":
  `react-bench --matrix M.mtx --format csr,csc,dcsr --threads 1 --variants react-openmp,maximal-openmp,auto-openmp`.
  The library and TACO variants read csr in float64 only, and say so in their rows. sddmm,
  norm_row and softmax store their result at S's pattern in S's format (a csc S's result is csc,
  [formats.md](formats.md)), which the check converts to csr's order; until 2026-11-27 react
  refused them on csc and dcsr, and spmm_mm (dense result) was the only kernel the format
  comparison measured. Every run, in any format and type, is checked against the first variant
  on csr float64 (run untimed when csr float64 is not asked for).
- **float32 check.** A float32 result is compared with the float64 reference to a tolerance
  derived, not chosen: each float32 rounding (of an input, a product, an addition) is within
  u = 2^-24 relative, libmvec's `expf` within 4 ulps (8 roundings); an entry computed through at
  most m roundings is within gamma_m = m u / (1 - m u) of the sum of |terms| it adds up, in any
  summation order (Higham, *Accuracy and Stability of Numerical Algorithms*, Lemma 3.1). m is
  n + 2f - 2 for a sum of n products of f inputs (sddmm: n = K, f = 3; spmm_mm: NH x the longest
  row, 3; mttkrp: the largest slice, 3; ttm: the longest fibre, 2), n + 2 for norm_row and n + 20
  for softmax (n: the longest row). The sum of |terms| of each entry is the kernel's value on |S|
  (the dense inputs are in [0, 1)), so the tolerance on max|got - want| / max|want| is
  gamma_m max|result on |S|| / max|want|; the row's note gives it (`apps/bench/check.cpp`). It is a
  worst-case bound: on cora, spmm_mm's is 2.6e-3 and the measured errors are about 5e-7.
  `scripts/cusparse_bench.py --dtype float32` runs cuSPARSE in float32 and checks it the same way.
- **Timing.** `std::chrono::steady_clock` around the kernel call alone (inputs bound, outputs and
  the library pipelines' temporaries allocated once; react's unshrunk temporaries are allocated per
  call, as the generated code does). One warm-up, then up to `--reps` runs, fewer (at least one)
  where they would exceed the per-item `--budget`; the CSV's `runs` says how many. Median, min and
  max are reported.
- **Refusals.** A variant whose dense temporaries need more than `--max-temp-gb` (the NI x NJ
  product of unfused sddmm: the type-4 redundancy react removes) or that performs more than
  `--max-flops` flops per run is reported as "cannot run" with the reason, and left out of the
  speedups over it (the `(n)` counts say over how many matrices each mean is taken).
- **Bandwidth.** Measured once per thread count by the harness: a copy between two 512 MiB arrays
  (first-touched by the copying threads), best of 5, counting bytes read plus bytes written.
  Small matrices fit in the 32 MB L3 cache, so their fractions can exceed 100%."""


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine():
    cpu = re.search(r"Model name:\s*(.*)", sh("lscpu"))
    l3 = re.search(r"L3 cache:\s*(.*)", sh("lscpu"))
    mem = re.search(r"MemTotal:\s*(\d+)", open("/proc/meminfo").read())
    return [
        f"CPU: {cpu.group(1) if cpu else platform.processor()}, {os.cpu_count()} cores"
        + (f", L3 {l3.group(1)}" if l3 else ""),
        f"memory: {int(mem.group(1)) / 2**20:.0f} GiB" if mem else "memory: unknown",
        f"OS: {platform.system()} {platform.release()}; compiler: {sh('c++ --version | head -n 1')}"
        " (`-O3 -march=native` for the JIT kernels and the library pipelines)",
        "libraries: Eigen 3.4, Kokkos / Kokkos Kernels 3.4 (Debian, Serial backend), reference BLAS"
        f" ({sh('readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3') or 'libblas3'})",
    ]


def fmt_speedup(pair):
    value, n = pair
    return f"{value:.2f}x ({n})" if n else "-"


def fmt_ms(seconds):
    if seconds is None:
        return "—"
    ms = seconds * 1e3
    return f"{ms:.3g}" if ms < 1000 else f"{ms:.0f}"


def summary(res, out):
    for emitter in ("openmp", "kokkos"):
        react = f"react-{emitter}"
        if react not in res.variants:
            continue
        out.append(f"\n**{react}** (speedup = time of the other variant / time of {react}; geometric mean over the "
                   "matrices where both ran, their number in parentheses):\n")
        out.append("| kernel | threads | over maximal | over none | over library | bandwidth fraction: geomean (min–max) |")
        out.append("|---|---:|---:|---:|---:|---|")
        for lab in res.labels:
            for t in res.threads:
                bw = res.bandwidth(lab, t, react)
                bwtext = f"{100 * bw[0]:.1f}% ({100 * bw[1]:.1f}–{100 * bw[2]:.1f}%)" if bw else "-"
                out.append(f"| {lab} | {t} | {fmt_speedup(res.geomean_speedup(lab, t, react, 'maximal-' + emitter))} | "
                           f"{fmt_speedup(res.geomean_speedup(lab, t, react, 'none-' + emitter))} | "
                           f"{fmt_speedup(res.geomean_speedup(lab, t, react, 'library'))} | {bwtext} |")


def tables(res, out):
    reasons = {}
    for lab in res.labels:
        for t in res.threads:
            out.append(f"\n#### {lab}, {t} thread{'s' if t > 1 else ''} (median ms)\n")
            out.append("| matrix | nnz | " + " | ".join(res.variants) + " | react-openmp GB/s (%BW) |")
            out.append("|---|---:|" + "---:|" * len(res.variants) + "---:|")
            for m in res.matrices:
                cells = []
                for v in res.variants:
                    r = res.row(m, lab, t, v)
                    if r and not r["ok"]:
                        key = r["note"]
                        reasons.setdefault(key, len(reasons) + 1)
                        cells.append(f"—[^{reasons[key]}]")
                    else:
                        cells.append(fmt_ms(res.time(m, lab, t, v)))
                ref = res.row(m, lab, t, "react-openmp")
                bw = (f"{float(ref['gbs']):.2f} ({100 * ref['bw_fraction']:.0f}%)"
                      if ref and ref["ok"] and ref["bw_fraction"] is not None else "-")
                nnz = res.row(m, lab, t, res.variants[0])["nnz"]
                out.append(f"| {m} | {nnz} | " + " | ".join(cells) + f" | {bw} |")
    out.append("")
    for reason, n in reasons.items():
        out.append(f"[^{n}]: {reason}")


def findings(res, scal, out):
    """Observations computed from the data, each with the structural reason behind it."""
    t = res.threads[0]
    g = lambda lab, v, over: res.geomean_speedup(lab, t, v, over)[0]  # noqa: E731
    notes = []
    sddmm = [lab for lab in res.labels if lab.startswith("sddmm")]
    if sddmm:
        refused = sorted({m for m in res.matrices for lab in sddmm if res.time(m, lab, t, "library") is None})
        notes.append(f"sddmm: the unfused pipelines (`none-*`, `library-*`) compute the dense NI x NJ product B @ C "
                     f"and keep nnz of its entries; they cannot run on {len(refused)} of {len(res.matrices)} matrices "
                     f"({', '.join(refused)}) within 4 GB / 6e10 flops, which is ReACT's type-4 redundancy (SciPy ran out "
                     "of memory on 5 of 10 matrices in the paper).")
    spmm = next((lab for lab in res.labels if lab.startswith("spmm_mm")), None)
    if spmm and g(spmm, "react-openmp", "maximal-openmp"):
        notes.append(f"spmm_mm: maximal fusion evaluates S(i,k) C(k,h) D(h,j) in one loop nest, nnz NH NJ terms "
                     f"(S @ C recomputed for every output column), so "
                     f"react-openmp is {g(spmm, 'react-openmp', 'maximal-openmp'):.1f}x faster at {t} thread{'s' if t > 1 else ''}.")
        lib = g(spmm, "react-openmp", "library")
        if lib and lib < 1:
            notes.append(f"spmm_mm: the library pipeline is faster than react-openmp ({1 / lib:.2f}x at {t} thread{'s' if t > 1 else ''}): "
                         "react's second product T0 @ D is a plain loop nest, Eigen's GEMM is blocked and vectorised.")
    if "norm_row" in res.labels and g("norm_row", "react-kokkos", "maximal-kokkos") and \
            g("norm_row", "react-kokkos", "maximal-kokkos") < 1:
        notes.append(f"norm_row: react-kokkos is slower than maximal-kokkos "
                     f"({1 / g('norm_row', 'react-kokkos', 'maximal-kokkos'):.2f}x): its shrunk row sum lives in a "
                     "one-element team-scratch view with a team reduction and barriers per row, which costs more on "
                     "Kokkos::Serial than the pass it saves; the OpenMP emitter keeps it in a per-thread buffer without "
                     "synchronisation.")
    if scal:
        per = {}
        for kind in ("uniform", "banded"):
            rows = [r for r in scal.rows if r["matrix"].startswith(kind) and r["variant"] == "react-openmp"
                    and r["kernel"] == "sddmm" and r["ok"]]
            if rows:
                big = max(rows, key=lambda r: int(r["nnz"]))
                per[kind] = big["median_s"] * 1e9 / int(big["nnz"])
        if len(per) == 2:
            notes.append(f"sddmm reads C (K x NJ, row-major) down a column for every stored entry: on the largest "
                         f"uniform matrix react-openmp takes {per['uniform']:.0f} ns per entry, on the banded one, "
                         f"whose columns are close together, {per['banded']:.0f} ns; hence the low bandwidth fractions.")
    if notes:
        out += ["", "## Findings", ""] + [f"- {n}" for n in notes]


# ReACT's reported geometric means (16 threads, 16-core Xeon; TACO = maximal fusion).
PAPER = {"sddmm K=64": ("1.5x", "57.3x"), "spmm_mm NH=256 NJ=16": ("5.9x", "5.7x"), "softmax": ("2.0x", "23.5x")}


def anchors(res, out):
    out += ["", "## Against the paper's anchors", "",
            "ReACT's geometric means (PACT 2022: 16 threads; its softmax inputs were synthetic 16384² matrices) next "
            "to react-openmp's here. The paper's unfused baseline was SciPy; here it is the faster of Eigen (a tuned, "
            "multi-threaded GEMM) and Kokkos Kernels, a much stronger baseline for the dense products.", "",
            "| kernel | paper: over TACO | here: over maximal | paper: over SciPy | here: over library |",
            "|---|---:|---:|---:|---:|"]
    for lab, (taco, scipy) in PAPER.items():
        if lab not in res.labels:
            continue
        here = lambda over: " / ".join(fmt_speedup(res.geomean_speedup(lab, t, "react-openmp", over))  # noqa: E731
                                      + f" at {t}t" for t in res.threads)
        out.append(f"| {lab} | {taco} | {here('maximal-openmp')} | {scipy} | {here('library')} |")


def scaling(res, command, out):
    out += ["", "## Scaling with nnz (synthetic matrices)", "",
            "Uniform random, power-law (skewed rows, exponent 2) and banded N x N matrices with 16 stored entries "
            "per row on average (`--synthetic KIND:N:16`), 1 thread:", "", "```sh", command, "```", ""]
    variants = [v for v in ("react-openmp", "maximal-openmp", "library-eigen") if v in res.variants]
    out.append("| kernel | matrix | nnz | " + " | ".join(f"{v} ms" for v in variants) + " | react-openmp ns per entry |")
    out.append("|---|---|---:|" + "---:|" * len(variants) + "---:|")
    for lab in res.labels:
        for m in res.matrices:
            r = res.row(m, lab, 1, variants[0])
            if not r:
                continue
            cells = [fmt_ms(res.time(m, lab, 1, v)) for v in variants]
            t = res.time(m, lab, 1, "react-openmp")
            per = f"{t * 1e9 / int(r['nnz']):.1f}" if t else "-"
            out.append(f"| {lab} | {m} | {r['nnz']} | " + " | ".join(cells) + f" | {per} |")
    out.append("\n— : cannot run (for sddmm's library pipeline: the dense N x N product needs more than 4 GB).")


DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")


def marked_block(text, name):
    """The lines between <!-- name --> and <!-- /name -->, or None."""
    if f"<!-- {name} -->" not in text:
        return None
    return text.split(f"<!-- {name} -->")[1].split(f"<!-- /{name} -->")[0].strip("\n")


def auto_section(out):
    """The summaries of docs/benchmarks-auto*.md (scripts/auto_bench.sh), when they exist."""
    files = sorted(f for f in os.listdir(DOCS) if f.startswith("benchmarks-auto") and f.endswith(".md"))
    blocks = []
    for f in files:
        text = open(os.path.join(DOCS, f)).read()
        block = marked_block(text, "auto-summary")
        if block is None:
            continue
        run = next((line for line in text.splitlines() if "thread(s), and" in line), "")
        threads = run.split(" at ")[-1].split(" thread(s)")[0] if run else "?"
        cpu = next((line[len("Machine: "):].rstrip(".") for line in text.splitlines() if line.startswith("Machine: ")), "")
        blocks += ["", f"[{f}]({f}), {threads} thread(s){', ' + cpu if cpu else ''}:", "", block]
    if not blocks:
        return
    out += ["", "## Fusion mode auto", "",
            "Auto (docs/auto.md), the default fusion mode where the inputs' statistics are known, against the "
            "best of none, maximal and react in either association, and against SciPy's best association, from "
            "`bash scripts/auto_bench.sh` (10 real and 3 synthetic matrices, sddmm K = 4, 64, 512, spmm_mm "
            "(NH, NJ) = (4, 512), (32, 32), (256, 16), (512, 4), norm_row, softmax; full tables, commands and "
            "method in the linked files). On the 16 otherwise idle cores of the GPU machine no case is more than "
            "5% slower than the best fixed choice; on this shared 2-core machine the misses are near-ties "
            "(left against right at NH = NJ = 32), within the spread of one kernel measured twice "
            "(docs/auto.md, \"How well it chooses\")."] + blocks


def taco_section(out):
    """The summary of docs/benchmarks-taco.md (react-bench built with TACO), when it exists."""
    path = os.path.join(DOCS, "benchmarks-taco.md")
    block = marked_block(open(path).read(), "taco-summary") if os.path.exists(path) else None
    if block is not None:
        out += ["", "## TACO", "", block]


def tensor_section(out):
    """The summary of docs/benchmarks-tensors.md (MTTKRP and TTM on 3-tensors), when it exists."""
    path = os.path.join(DOCS, "benchmarks-tensors.md")
    block = marked_block(open(path).read(), "tensor-summary") if os.path.exists(path) else None
    if block is not None:
        out += ["", "## Tensors", "",
                "MTTKRP and TTM on csf 3-tensors ([benchmarks-tensors.md](benchmarks-tensors.md): command, "
                "fibre statistics, the variants, the fused MTTKRP's code generation, the GPU's fibre chunks).",
                "", block]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv")
    p.add_argument("--command", required=True)
    p.add_argument("--seconds", type=float, required=True, help="wall time of the run")
    p.add_argument("--load-before", default="")
    p.add_argument("--load-after", default="")
    p.add_argument("--plot", action="append", default=[], help="PNG paths, relative to docs/")
    p.add_argument("--scaling", help="CSV of the synthetic scaling run")
    p.add_argument("--scaling-command", default="")
    p.add_argument("--keep", help="the previous report: its hand-written sections are carried over")
    args = p.parse_args()
    res = Results(load(args.csv))
    bandwidth = {r["threads"]: float(r["machine_gbs"]) for r in res.rows}

    out = ["# Benchmarks", "",
           "Generated by `bash scripts/bench.sh` (builds react-bench, runs it, writes this file, the CSV and the "
           "plots); do not edit by hand, except between the `hand-written` markers, which the script keeps. The harness, its options and the fetch script for the ReACT matrix set "
           "are described in the README.", "",
           "## Run", "", "```sh", args.command, "```", "",
           f"- {len(res.matrices)} matrices (`../shared/data/matrices`), {len(res.labels)} kernels, "
           f"{len(res.variants)} variants, threads {', '.join(map(str, res.threads))}; "
           f"{len(res.rows)} rows in [benchmarks.csv](benchmarks.csv).",
           f"- Wall time of this run: {args.seconds / 60:.1f} min, plus the scaling run below (compiling the 40 "
           "kernels when the JIT cache is cold adds about 40 s; compilation is never inside a timing).",
           f"- Load average (1, 5, 15 min) before: {args.load_before or '?'}; after: {args.load_after or '?'}. "
           "The machine has 2 cores shared with other work (builds, fuzzers): with a load above 2 the "
           "2-thread runs competed for the cores. `OMP_WAIT_POLICY=passive` keeps a descheduled OpenMP thread "
           "from stalling every barrier for a whole time slice (with libgomp's default spinning, norm_row on "
           "cora took 12 ms instead of 25 us at 2 threads under such load), but 2-thread times remain noisier "
           "than 1-thread ones.",
           "", "## Machine", ""]
    out += [f"- {line}" for line in machine()]
    out += [f"- measured copy bandwidth: " + ", ".join(f"{bandwidth[t]:.2f} GB/s at {t} thread{'s' if t > 1 else ''}"
                                                       for t in sorted(bandwidth))]
    out += ["", "## Summary"]
    summary(res, out)
    out += ["", "## Plots", ""]
    out += [f"![speedups over library]({os.path.basename(path)})" for path in args.plot]
    scal = Results(load(args.scaling)) if args.scaling else None
    anchors(res, out)
    findings(res, scal, out)
    if scal:
        scaling(scal, args.scaling_command, out)
    auto_section(out)
    taco_section(out)
    tensor_section(out)
    kept = marked_block(open(args.keep).read(), "hand-written") if args.keep and os.path.exists(args.keep) else None
    if kept is not None:
        out += ["", "<!-- hand-written -->", kept, "<!-- /hand-written -->"]
    out += [""] + device_block(DOCS)
    out += ["", "## Method", "", METHOD, "", "### Work model", "", MODEL, "", "## All results"]
    tables(res, out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
