#!/usr/bin/env python3
"""Device time per kernel (summed over launches) from an ncu CSV report.

On the device, for example:
  ncu --csv --metrics gpu__time_duration.sum --kernel-name regex:'pair_kernel|reverse|span|compact' \
      carry/bin/gpu_pair_bench --fasta protdb.fa --pairs 100000 --mode local --repeat 1 > kernels.csv
  python3 bench/gpu/ncu_kernel_times.py kernels.csv
ncu runs the kernels one at a time, so the sum is what they would take without overlap.
"""
import collections
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
start = next(i for i, r in enumerate(rows) if "Kernel Name" in r and "Metric Value" in r)
header = rows[start]
name_at, metric_at, value_at = header.index("Kernel Name"), header.index("Metric Name"), header.index("Metric Value")
total = collections.defaultdict(float)
launches = collections.Counter()
for r in rows[start + 1:]:
    if len(r) <= value_at or r[metric_at] != "gpu__time_duration.sum":
        continue
    kernel = r[name_at].split("(")[0]
    total[kernel] += float(r[value_at].replace(",", ""))
    launches[kernel] += 1
for kernel, ns in sorted(total.items(), key=lambda kv: -kv[1]):
    print(f"{ns / 1e6:8.3f} ms {launches[kernel]:4d} {kernel[:90]}")
print(f"total {sum(total.values()) / 1e6:.3f} ms")
