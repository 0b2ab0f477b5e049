#!/usr/bin/python3
"""Writes docs/benchmarks-device.md and its plots from a run on the GPU machine: react's Kokkos
kernels on the GPU (react-bench built against a CUDA Kokkos) beside PyTorch's cuSPARSE-backed
calls (scripts/cusparse_bench.py), and react's OpenMP and Kokkos-OpenMP kernels at 1 to 16 CPU
threads. bench_report.py includes the file in docs/benchmarks.md.

    /usr/bin/python3 scripts/device_report.py --gpu docs/benchmarks-gpu.csv \\
        --cusparse docs/benchmarks-cusparse.csv --cpu docs/benchmarks-cpu16.csv --facts FACTS.txt
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_results import DEVICE_BEGIN, DEVICE_END, Results, device_block, geomean, load  # noqa: E402

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")
GPU_VARIANTS = ("react-kokkos", "maximal-kokkos", "none-kokkos")
CUSPARSE = "library-cusparse"
COLORS = {"react-kokkos": "#a63603", "maximal-kokkos": "#fd8d3c", "none-kokkos": "#fdd0a2",
          "library-cusparse-right": "#9e9ac8"}

COMMANDS = """\
# Kokkos 4.6.99 from github.com/kokkos/kokkos (the fetched snapshot), built on the GPU machine, never
# committed. For CUDA 13 two calls in core/src/Cuda/Kokkos_Cuda_Instance.hpp are adjusted in that
# build's copy: cudaGraphAddDependencies(graph, from, to, nullptr, n) (edge data) and
# cudaMemPrefetchAsync(p, n, cudaMemLocation{cudaMemLocationTypeDevice, dev}, 0, stream); and
# bin/nvcc_wrapper's default_arch becomes sm_90 (CUDA 13 dropped sm_70).
cmake -S kokkos -B kokkos-cuda-build -G Ninja -DCMAKE_CXX_COMPILER=$PWD/kokkos/bin/nvcc_wrapper \\
  -DKokkos_ENABLE_CUDA=ON -DKokkos_ARCH_HOPPER90=ON -DKokkos_ENABLE_SERIAL=ON -DBUILD_SHARED_LIBS=ON \\
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_INSTALL_PREFIX=$K/kokkos-cuda
cmake -S kokkos -B kokkos-omp-build -G Ninja -DCMAKE_CXX_COMPILER=g++ -DKokkos_ENABLE_OPENMP=ON \\
  -DKokkos_ENABLE_SERIAL=ON -DKokkos_ARCH_NATIVE=ON -DBUILD_SHARED_LIBS=ON -DCMAKE_BUILD_TYPE=Release \\
  -DCMAKE_CXX_STANDARD=17 -DCMAKE_INSTALL_PREFIX=$K/kokkos-omp        # then cmake --build, --install
# react, once per Kokkos (no source change; Eigen and Boost headers carried in CMAKE_PREFIX_PATH):
cmake -S . -B build-cuda -G Ninja -DKokkos_ROOT=$K/kokkos-cuda -DREACT_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release
cmake -S . -B build-omp  -G Ninja -DKokkos_ROOT=$K/kokkos-omp  -DREACT_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release
# GPU: react's Kokkos kernels on the GPU, react-openmp on the 16 cores as the reference
OMP_WAIT_POLICY=passive build-cuda/bin/react-bench --kernel all --matrix matrices \\
  --variants react-openmp,none-kokkos,maximal-kokkos,react-kokkos --threads 16 --reps 20 --budget 1 \\
  --jobs 16 --csv docs/benchmarks-gpu.csv
python3 scripts/cusparse_bench.py --matrix matrices --csv docs/benchmarks-cusparse.csv --reps 20 --budget 1
# CPU: one process per thread count (Kokkos fixes its threads when it starts)
for t in 1 2 4 8 16; do
  OMP_NUM_THREADS=$t OMP_PROC_BIND=spread OMP_PLACES=cores OMP_WAIT_POLICY=passive build-omp/bin/react-bench \\
    --kernel all --matrix matrices/{wave,bcsstk16,email-Enron,pubmed,bayer10,ca-CondMat}.mtx \\
    --variants react-openmp,react-kokkos --threads $t --reps 5 --budget 1 --jobs 16 --csv cpu-$t.csv
done   # concatenated into docs/benchmarks-cpu16.csv"""


def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def gpu_section(gpu, cus, facts, out):
    both = Results(gpu.rows + cus.rows)
    t_gpu = gpu.threads[0]
    gpu_name = next(r["space"] for r in cus.rows)[len("cuda ("):-1]
    kokkos_bw = next(float(r["machine_gbs"]) for r in gpu.rows if r["variant"] == "react-kokkos")
    torch_bw = float(cus.rows[0]["machine_gbs"])
    errors = [float(r["rel_error"]) for r in gpu.rows if r["ok"] and r["variant"].endswith("-kokkos")]
    out += ["", "## GPU: react's Kokkos kernels against cuSPARSE", "",
            f"- GPU: {gpu_name}; " + "; ".join(facts),
            f"- Measured memory bandwidth (device-to-device copy of 1 GiB, bytes read + written, best of 10): "
            f"{kokkos_bw:.0f} GB/s through Kokkos (react-bench), {torch_bw:.0f} GB/s through PyTorch. "
            "Fractions below use react-bench's figure.",
            "- Inputs are copied to the GPU once, outside the timed runs; each timed run ends with a device fence "
            "(react) or a CUDA event (cuSPARSE). Medians of up to 20 runs after a warm-up.",
            f"- Correctness: every GPU result was compared with react-openmp on the CPU before timing; the largest "
            f"relative error (max |gpu - cpu| / max |cpu|) over all {len(errors)} GPU rows (14 matrices, 5 kernels, "
            f"3 fusion modes) is {max(errors):.1e}. cusparse_bench.py checks PyTorch's results against SciPy "
            "the same way.",
            "", "| kernel | react over cuSPARSE: geomean (min–max) | react over maximal | react over none | "
            "react bandwidth fraction: geomean (max) | cuSPARSE bandwidth fraction: geomean (max) |",
            "|---|---:|---:|---:|---:|---:|"]
    for lab in gpu.labels:
        xs = [x for x in (speedup(both, m, lab, t_gpu, "react-kokkos", CUSPARSE) for m in gpu.matrices) if x]
        g, n = geomean(xs)
        mx = gpu.geomean_speedup(lab, t_gpu, "react-kokkos", "maximal-kokkos")
        nn = gpu.geomean_speedup(lab, t_gpu, "react-kokkos", "none-kokkos")
        rb = gpu.bandwidth(lab, t_gpu, "react-kokkos")
        cb = bandwidth(cus, lab, CUSPARSE)
        out.append(f"| {lab} | {fmt(g)}x ({fmt(min(xs))}–{fmt(max(xs))}, {n}) | {fmt(mx[0])}x ({mx[1]}) | "
                   f"{fmt(nn[0])}x ({nn[1]}) | {100 * rb[0]:.1f}% ({100 * rb[2]:.1f}%) | "
                   f"{100 * cb[0]:.1f}% ({100 * cb[1]:.1f}%) |")
    right = [speedup(both, m, "spmm_mm NH=256 NJ=16", t_gpu, "react-kokkos", "library-cusparse-right")
             for m in gpu.matrices]
    right = [x for x in right if x]
    if right:
        out.append(f"\nspmm_mm against cuSPARSE in the other association, `S @ (C @ D)`: react (which computes "
                   f"`(S @ C) @ D` fused) {fmt(geomean(right)[0])}x (geomean).")
    out += ["", "![GPU speedups over cuSPARSE](benchmarks-gpu.png)", "",
            "Per matrix (milliseconds, median):", "",
            "| kernel | matrix | nnz | react | maximal | none | cuSPARSE | cuSPARSE S@(C@D) | react over cuSPARSE |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for lab in gpu.labels:
        for m in gpu.matrices:
            r = gpu.row(m, lab, t_gpu, "react-kokkos")
            cells = [both.time(m, lab, t_gpu if v.endswith("kokkos") else 1, v)
                     for v in ("react-kokkos", "maximal-kokkos", "none-kokkos", CUSPARSE, "library-cusparse-right")]
            cells = ["-" if c is None else f"{1e3 * c:.3f}" for c in cells]
            out.append(f"| {lab} | {m} | {r['nnz']} | " + " | ".join(cells) +
                       f" | {fmt(speedup(both, m, lab, t_gpu, 'react-kokkos', CUSPARSE))} |")


def speedup(res, matrix, lab, threads, variant, over):
    a, b = res.time(matrix, lab, threads, variant), res.time(matrix, lab, 1, over)
    return b / a if a and b else None


def bandwidth(res, lab, variant):
    xs = [r["bw_fraction"] for r in res.rows
          if r["label"] == lab and r["variant"] == variant and r["ok"] and r["bw_fraction"] is not None]
    return geomean(xs)[0], max(xs)


def gpu_plot(gpu, cus, path):
    both = Results(gpu.rows + cus.rows)
    t_gpu = gpu.threads[0]
    fig, axes = plt.subplots(len(gpu.labels), 1, figsize=(12, 2.6 * len(gpu.labels)), sharex=True)
    groups = gpu.matrices + ["geomean"]
    variants = list(GPU_VARIANTS) + ["library-cusparse-right"]
    for ax, lab in zip(axes, gpu.labels):
        width = 0.8 / len(variants)
        for n, v in enumerate(variants):
            if v == "library-cusparse-right":
                xs = [(lambda a, b: b / a if a and b else None)(both.time(m, lab, 1, v), both.time(m, lab, 1, CUSPARSE))
                      for m in gpu.matrices]
            else:
                xs = [speedup(both, m, lab, t_gpu, v, CUSPARSE) for m in gpu.matrices]
            if not any(xs):
                continue
            g = geomean([x for x in xs if x])[0]
            ys = [x or 0 for x in xs] + [g]
            ax.bar([k + n * width for k in range(len(groups))], ys, width, color=COLORS[v],
                   label=v if v != "library-cusparse-right" else "cuSPARSE S@(C@D)")
        ax.axhline(1, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_ylabel("speedup over\ncuSPARSE")
        ax.set_title(lab, fontsize=10)
    axes[-1].set_xticks([k + 0.4 - 0.4 / len(variants) for k in range(len(groups))])
    axes[-1].set_xticklabels(groups, rotation=30, ha="right")
    for ax in axes:
        ax.legend(ncol=4, fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def cpu_section(cpu, out):
    threads = cpu.threads
    bw = {r["threads"]: float(r["machine_gbs"]) for r in cpu.rows}
    out += ["", "## 16 CPU cores: scaling of react's OpenMP and Kokkos-OpenMP kernels", "",
            f"- Matrices: {', '.join(cpu.matrices)} (the larger ones of the set; one process per thread count).",
            "- Measured copy bandwidth: " + ", ".join(f"{bw[t]:.1f} GB/s at {t}" for t in threads) + " threads.",
            "", "Speedup over 1 thread (geometric mean over the matrices of time(1) / time(t)); last column: "
            "bandwidth fraction at 16 threads (geomean).", "",
            "| kernel | emitter | " + " | ".join(f"{t}" for t in threads) + " | BW at 16 |",
            "|---|---|" + "---:|" * (len(threads) + 1)]
    for lab in cpu.labels:
        for v in ("react-openmp", "react-kokkos"):
            cells = []
            for t in threads:
                xs = [cpu.time(m, lab, 1, v) / cpu.time(m, lab, t, v) for m in cpu.matrices
                      if cpu.time(m, lab, 1, v) and cpu.time(m, lab, t, v)]
                cells.append(f"{geomean(xs)[0]:.2f}x" if xs else "-")
            b = cpu.bandwidth(lab, threads[-1], v)
            out.append(f"| {lab} | {v} | " + " | ".join(cells) + (f" | {100 * b[0]:.1f}% |" if b else " | - |"))
    out += ["", "![CPU scaling](benchmarks-cpu16.png)"]


def cpu_plot(cpu, path):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, v in zip(axes, ("react-openmp", "react-kokkos")):
        for lab in cpu.labels:
            ys = []
            for t in cpu.threads:
                xs = [cpu.time(m, lab, 1, v) / cpu.time(m, lab, t, v) for m in cpu.matrices
                      if cpu.time(m, lab, 1, v) and cpu.time(m, lab, t, v)]
                ys.append(geomean(xs)[0])
            ax.plot(cpu.threads, ys, marker="o", label=lab)
        ax.plot(cpu.threads, cpu.threads, color="gray", linestyle=":", label="linear")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xticks(cpu.threads)
        ax.set_xticklabels(cpu.threads)
        ax.set_xlabel("threads")
        ax.set_title(v)
    axes[0].set_ylabel("speedup over 1 thread (geomean)")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


HAND_WRITTEN = "<!-- written by hand from here on; scripts/device_report.py keeps it -->"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gpu", required=True)
    p.add_argument("--cusparse", required=True)
    p.add_argument("--cpu", required=True)
    p.add_argument("--facts", action="append", default=[], help="a line about the machine (repeatable)")
    a = p.parse_args()
    gpu, cus, cpu = Results(load(a.gpu)), Results(load(a.cusparse)), Results(load(a.cpu))
    out = ["<!-- generated by scripts/device_report.py from the CSVs named below; do not edit by hand above the "
           "hand-written marker -->",
           "# Benchmarks on the GPU machine", "",
           "CSV: [benchmarks-gpu.csv](benchmarks-gpu.csv) (react), [benchmarks-cusparse.csv](benchmarks-cusparse.csv) "
           "(cuSPARSE), [benchmarks-cpu16.csv](benchmarks-cpu16.csv) (CPU scaling). Commands, on that machine:",
           "", "```sh", COMMANDS, "```"]
    gpu_section(gpu, cus, a.facts, out)
    cpu_section(cpu, out)
    gpu_plot(gpu, cus, os.path.join(DOCS, "benchmarks-gpu.png"))
    cpu_plot(cpu, os.path.join(DOCS, "benchmarks-cpu16.png"))
    # What follows the marker in the file is written by hand (measurements of one change, with their
    # own commands): kept as it is, after the generated part.
    device_md = os.path.join(DOCS, "benchmarks-device.md")
    kept = ""
    if os.path.exists(device_md):
        with open(device_md) as f:
            text = f.read()
        if HAND_WRITTEN in text:
            kept = "\n" + text[text.index(HAND_WRITTEN):]
    with open(device_md, "w") as f:
        f.write("\n".join(out) + "\n" + kept)
    # The same section inside docs/benchmarks.md (bench_report.py adds it when it rewrites the file).
    path = os.path.join(DOCS, "benchmarks.md")
    with open(path) as f:
        text = f.read()
    block = "\n".join(device_block(DOCS))
    if DEVICE_BEGIN in text:
        text = text[:text.index(DEVICE_BEGIN)] + block + text[text.index(DEVICE_END) + len(DEVICE_END):]
    else:
        text = text.replace("\n## Method\n", "\n" + block + "\n\n## Method\n", 1)
    with open(path, "w") as f:
        f.write(text)
    print("wrote docs/benchmarks-device.md (and its section in benchmarks.md), docs/benchmarks-gpu.png, "
          "docs/benchmarks-cpu16.png")


if __name__ == "__main__":
    main()
