#!/usr/bin/python3
"""GCUPS per query length, warpsearch against CUDASW++ 4.0, one panel per database.

usage: bench/plot_gcups_per_query.py RESULTS.tsv OUT.png   (Debian's /usr/bin/python3)

RESULTS.tsv is a side-by-side table (bench/results/gpu_vs_cudasw4_*.tsv): columns db, query, length,
warpsearch_gcups and cudasw4_gcups (other columns and '#' comment lines are ignored; rows whose query
starts with ALL are totals and are left out of the plot). Needs python3-matplotlib (Debian).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = []
    with open(sys.argv[1]) as f:
        lines = [line for line in f if not line.startswith("#")]
    for row in csv.DictReader(lines, delimiter="\t"):
        if row["query"].startswith("ALL"):
            continue
        rows.append(row)
    dbs = sorted({r["db"] for r in rows})
    fig, axes = plt.subplots(1, len(dbs), figsize=(6 * len(dbs), 4.2), squeeze=False)
    for ax, db in zip(axes[0], dbs):
        points = sorted((int(r["length"]), float(r["warpsearch_gcups"]), float(r["cudasw4_gcups"]))
                        for r in rows if r["db"] == db)
        lengths = [p[0] for p in points]
        ax.plot(lengths, [p[1] / 1000 for p in points], "o-", label="warpsearch")
        ax.plot(lengths, [p[2] / 1000 for p in points], "s--", label="CUDASW++ 4.0 --dpx")
        residues = next((r.get("db_residues") for r in rows if r["db"] == db and r.get("db_residues")), None)
        ax.set_title(f"{db}" + (f" ({int(residues) / 1e6:.0f} M residues)" if residues else ""))
        ax.set_xscale("log")
        ax.set_xlabel("query length (residues)")
        ax.set_ylabel("TCUPS")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
