#!/usr/bin/env python3
"""Plot of the pairwise-alignment benchmarks: GCUPS per workload and engine, log scale.

usage: bench/plot_align.py PAIRS.tsv XDROP.tsv OUT.png   (Debian's /usr/bin/python3 has matplotlib)

PAIRS.tsv is bench/gpu/pairs_on_device.sh's table (bench/results/gpu_pairs_h100.tsv: GPU pair aligner,
whole call and GPU passes per workload); XDROP.tsv is bench/gpu/logan_on_device.sh's table
(bench/results/logan_side_by_side_h100.tsv: X-drop, LOGAN and warpsearch engines, one row per engine,
X and timing). Lines starting with '#' are comments.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_tsv(path):
    with open(path) as f:
        return list(csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    pairs, xdrop, out = sys.argv[1:]
    bars = []  # (group, engine, gcups)
    for row in read_tsv(pairs):
        group = row["label"].replace("_", " ")
        bars.append((group, "warpsearch GPU, whole call", float(row["gcups"])))
        bars.append((group, "warpsearch GPU, passes", float(row["passes_gcups"])))
    names = {"logan": "LOGAN GPU", "warpsearch_cpu": "warpsearch CPU (16 threads)",
             "warpsearch_gpu": "warpsearch GPU", "warpsearch-gpu": "warpsearch GPU"}
    for row in read_tsv(xdrop):
        if row["timing"] not in ("kernels", "process", "summary"):
            continue
        engine = names.get(row["engine"], row["engine"]) + ", " + row["timing"]
        bars.append(("X-drop X=%s, 10k reads 5-10 kb" % row["xdrop"], engine, float(row["gcups"])))
    groups = list(dict.fromkeys(g for g, _, _ in bars))
    engines = list(dict.fromkeys(e for _, e, _ in bars))
    colors = {e: "C%d" % k for k, e in enumerate(engines)}
    fig, ax = plt.subplots(figsize=(13, 6.5))
    labelled = set()
    for i, group in enumerate(groups):
        present = [(e, v) for g, e, v in bars if g == group]  # the engines measured on this workload
        width = 0.8 / len(present)
        for k, (engine, value) in enumerate(present):
            ax.bar(i + (k - (len(present) - 1) / 2) * width, value, width, color=colors[engine],
                   label=None if engine in labelled else engine)
            labelled.add(engine)
    ax.set_yscale("log")
    ax.set_ylabel("GCUPS (log scale)")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=20, ha="right", fontsize=8)
    ax.axhline(1000, color="grey", linestyle="--", linewidth=0.8)
    ax.text(-0.4, 1080, "1 TCUPS target (100k protein pairs, local)", ha="left", fontsize=8, color="grey")
    ax.set_title("warpsearch align: pairwise alignment throughput (H100)")
    ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
