"""Reads react-bench CSV files: rows, the library baseline, speedups and geometric means.

Shared by plot_bench.py (the figure) and bench_report.py (docs/benchmarks.md).
`library` is the faster of library-eigen and library-kokkoskernels for each (matrix, kernel,
threads), as in react-bench's own table and summary.
"""
import csv
import math

LIBRARIES = ("library-eigen", "library-kokkoskernels")
REACT_VARIANTS = ("none-openmp", "maximal-openmp", "react-openmp", "none-kokkos", "maximal-kokkos", "react-kokkos")


def storage(row):
    """" [csc float32]" for a row whose S is in another format or whose tensors are of another type
    than the input as loaded (react-bench --format, --value-type); "" for csr (csf) float64 and for
    CSVs written before the format and value_type columns."""
    fmt, vt = row.get("format") or "", row.get("value_type") or ""
    if fmt in ("", "csr", "csf") and vt in ("", "float64"):
        return ""
    return " [" + " ".join(x for x in (fmt, vt) if x) + "]"


def label(row):
    """The kernel and its sizes, and the storage where not the default: "spmm_mm NH=256 NJ=16 [csc float64]"."""
    return row["kernel"] + (" " + row["dims"] if row["dims"] else "") + storage(row)


def load(*paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                row["threads"] = int(row["threads"])
                row["label"] = label(row)
                row["ok"] = row["status"] == "ok"
                row["median_s"] = float(row["median_s"]) if row["ok"] else None
                # scipy_bench.py writes no bandwidth fraction (it measures no copy bandwidth).
                row["bw_fraction"] = float(row["bw_fraction"]) if row["ok"] and row.get("bw_fraction") else None
                rows.append(row)
    return rows


def ordered(values):
    """Unique values in first-appearance order."""
    return list(dict.fromkeys(values))


class Results:
    def __init__(self, rows):
        self.rows = rows
        self.index = {(r["matrix"], r["label"], r["threads"], r["variant"]): r for r in rows}
        self.matrices = ordered(r["matrix"] for r in rows)
        self.labels = ordered(r["label"] for r in rows)
        self.threads = sorted(set(r["threads"] for r in rows))
        self.variants = ordered(r["variant"] for r in rows)

    def row(self, matrix, lab, threads, variant):
        return self.index.get((matrix, lab, threads, variant))

    def time(self, matrix, lab, threads, variant):
        """Median seconds, or None where the variant did not run."""
        if variant == "library":
            times = [self.time(matrix, lab, threads, v) for v in LIBRARIES]
            times = [t for t in times if t is not None]
            return min(times) if times else None
        r = self.row(matrix, lab, threads, variant)
        return r["median_s"] if r and r["ok"] else None

    def speedup(self, matrix, lab, threads, variant, over):
        """time(over) / time(variant), or None."""
        a, b = self.time(matrix, lab, threads, variant), self.time(matrix, lab, threads, over)
        return b / a if a and b else None

    def geomean_speedup(self, lab, threads, variant, over):
        """(geometric mean over the matrices where both ran, how many)."""
        xs = [self.speedup(m, lab, threads, variant, over) for m in self.matrices]
        return geomean([x for x in xs if x is not None])

    def bandwidth(self, lab, threads, variant):
        """(geometric mean, min, max) of the bandwidth fraction over the matrices, or None."""
        xs = [self.row(m, lab, threads, variant) for m in self.matrices]
        xs = [r["bw_fraction"] for r in xs if r and r["ok"] and r["bw_fraction"] is not None]
        if not xs:
            return None
        return geomean(xs)[0], min(xs), max(xs)


def geomean(xs):
    xs = list(xs)
    if not xs:
        return None, 0
    return math.exp(sum(math.log(x) for x in xs) / len(xs)), len(xs)


DEVICE_BEGIN, DEVICE_END = "<!-- device results: begin -->", "<!-- device results: end -->"


def device_block(docs):
    """The GPU and 16-core results (docs/benchmarks-device.md, scripts/device_report.py) as lines for
    docs/benchmarks.md, headings one level down, between markers; [] when there are none."""
    import os
    path = os.path.join(docs, "benchmarks-device.md")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        lines = [line.rstrip("\n") for line in f if not line.startswith("<!--")]
    out, fenced = [DEVICE_BEGIN], False
    for line in lines:
        fenced ^= line.startswith("```")
        out.append("#" + line if line.startswith("#") and not fenced else line)  # not shell comments
    return out + [DEVICE_END]
