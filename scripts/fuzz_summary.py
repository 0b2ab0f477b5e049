"""Totals of scripts/fuzz_parallel.sh, per JIT flags: the chunks under DIR/K/chunk-SEED.txt, and
the findings (mismatch reproducers, kernels that crashed).   usage: fuzz_summary.py DIR"""
import collections
import glob
import re
import sys

root = sys.argv[1]
totals = collections.defaultdict(collections.Counter)
seeds = []
for path in sorted(glob.glob(root + "/*/chunk-*.txt")):
    seeds.append(int(re.search(r"chunk-(\d+)", path).group(1)))
    text = open(path).read()
    ended = re.search(r"^exit (\d+) flags (\S+)", text, re.M)
    if not ended:
        totals["still running"]["chunks"] += 1
        continue
    rc, flags = int(ended.group(1)), ended.group(2)
    t = totals[flags]
    summary = re.search(r"^react-fuzz: (\d+) programs \((\d+) statements\), (\d+) kernel runs, (\d+) mismatches in (\d+) s",
                        text, re.M)
    if rc == 124:
        t["chunks cut at the deadline (not counted)"] += 1
    elif summary:
        t["chunks"] += 1
        for key, value in zip(("programs", "statements", "kernel_runs", "mismatches", "seconds"), summary.groups()):
            t[key] += int(value)
        bounds = re.findall(r"kernel runs \((\d+) bounds-checked\)", text)
        t["bounds_checked_runs"] += int(bounds[-1]) if bounds else 0
    else:
        t["chunks that ended without a summary (exit %d)" % rc] += 1
        print("ended without a summary:", path)
for flags, t in sorted(totals.items()):
    print(flags, dict(t))
findings = glob.glob(root + "/*/mismatch-*.txt") + glob.glob(root + "/*/inflight.txt")
print("total programs", sum(t["programs"] for t in totals.values()), "mismatches",
      sum(t["mismatches"] for t in totals.values()), "findings", len(findings),
      "first seeds of chunks", min(seeds) if seeds else "-", "to", max(seeds) if seeds else "-")
for f in findings:
    print("finding:", f)
