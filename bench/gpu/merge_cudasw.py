#!/usr/bin/env python3
"""Side-by-side table of warpsearch and CUDASW++ 4.0 per query, from one device run's outputs.

usage: bench/gpu/merge_cudasw.py DB_NAME WARPSEARCH.tsv CUDASW.log >> RESULTS.tsv   [--header]

WARPSEARCH.tsv is bench/gpu_score_bench's --tsv output (one row per query, then ALL_per_query and
ALL_one_call); CUDASW.log is `align --verbose` output, whose "Done. Scan time: S s, G GCUPS" lines come
one per query in the query file's order. Writes rows of: db, query, length, db_residues, warpsearch
seconds and GCUPS, CUDASW++ seconds and GCUPS, and their ratio (warpsearch / CUDASW++, by GCUPS); the
totals (sum of per-query times, and warpsearch's one call for all queries) close the table.
"""
import csv
import re
import sys

HEADER = ["db", "query", "length", "db_residues", "warpsearch_s", "warpsearch_gcups", "cudasw4_s", "cudasw4_gcups",
          "ratio"]


def main():
    args = [a for a in sys.argv[1:] if a != "--header"]
    if len(args) != 3:
        sys.exit(__doc__)
    db, ours_path, theirs_path = args
    with open(ours_path) as f:
        ours = list(csv.DictReader(f, delimiter="\t"))
    per_query = [r for r in ours if not r["query"].startswith("ALL")]
    totals = {r["query"]: r for r in ours if r["query"].startswith("ALL")}
    with open(theirs_path) as f:
        theirs = [(float(s), float(g)) for s, g in re.findall(r"Done\. Scan time: ([0-9.eE+-]+) s, ([0-9.eE+-]+) GCUPS",
                                                               f.read())]
    if len(theirs) != len(per_query):
        sys.exit(f"{theirs_path}: {len(theirs)} scan times for {len(per_query)} queries")
    out = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
    if "--header" in sys.argv:
        out.writerow(HEADER)
    cells = 0.0
    for row, (seconds, gcups) in zip(per_query, theirs):
        cells += int(row["length"]) * int(row["db_residues"])
        out.writerow([db, row["query"], row["length"], row["db_residues"], row["seconds"], row["gcups"],
                      f"{seconds:.6f}", f"{gcups:.1f}", f"{float(row['gcups']) / gcups:.2f}"])
    their_total = sum(s for s, _ in theirs)
    residues = per_query[0]["db_residues"]
    for name in ("ALL_per_query", "ALL_one_call"):
        if name in totals:
            ours_s = float(totals[name]["seconds"])
            out.writerow([db, name, "", residues, f"{ours_s:.6f}", f"{cells / ours_s / 1e9:.1f}", f"{their_total:.6f}",
                          f"{cells / their_total / 1e9:.1f}", f"{their_total / ours_s:.2f}"])


if __name__ == "__main__":
    main()
