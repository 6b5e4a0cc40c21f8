#!/usr/bin/env python3
"""Compares warpsearch's scores and E-values with BLAST+'s on the (query, subject) pairs both report.

usage: composition_compare.py BLAST_TSV WARPSEARCH_TSV MIN_FRACTION MIN_SHARED

Both files are "-outfmt '6 qseqid sseqid score evalue bitscore'". For each pair the first line (the best
HSP) of each tool is taken; the pair agrees when the raw score, the E-value and the bit score are
printed the same. Prints the number of pairs each reports, the shared pairs, the fraction that agrees
and every pair that does not; exit status 1 when fewer than MIN_SHARED pairs are shared or the
fraction is below MIN_FRACTION.
"""
import sys


def best_lines(path):
    pairs = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            pairs.setdefault((fields[0], fields[1]), fields[2:5])
    return pairs


def main():
    blast, ours = best_lines(sys.argv[1]), best_lines(sys.argv[2])
    minimum_fraction, minimum_shared = float(sys.argv[3]), int(sys.argv[4])
    shared = [pair for pair in blast if pair in ours]
    differing = [pair for pair in shared if blast[pair] != ours[pair]]
    fraction = (len(shared) - len(differing)) / len(shared) if shared else 0.0
    print(f"BLAST+ reports {len(blast)} pairs, warpsearch {len(ours)}, both {len(shared)}; "
          f"same score, E-value and bit score on {len(shared) - len(differing)} ({fraction:.1%})")
    for pair in differing:
        print(f"  {pair[0]} {pair[1]}: BLAST+ {' '.join(blast[pair])}, warpsearch {' '.join(ours[pair])}")
    if len(shared) < minimum_shared:
        print(f"fewer than {minimum_shared} shared pairs")
        return 1
    return 0 if fraction >= minimum_fraction else 1


if __name__ == "__main__":
    sys.exit(main())
