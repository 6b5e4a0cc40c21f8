#!/usr/bin/env python3
"""Compares warpsearch blastn with blastn, both with DUST as hard masking, on the (query, subject) pairs both report.

usage: dust_compare.py BLAST_TSV WARPSEARCH_TSV DUST_INTERVALS MIN_FRACTION MIN_SHARED

Both TSV files are "-outfmt '6 qseqid sseqid score evalue qstart qend sstart send'"; DUST_INTERVALS is
dustmasker's "-outfmt interval" of the queries. For each pair the first line (the best HSP) of each tool
is taken; the pair agrees when the raw score and the four coordinates are the same. Pairs whose blastn
alignment covers dusted query bases (scored as N by both) are counted apart as well. Prints the pairs each
reports, the shared pairs, the fraction that agrees and every pair that does not; exit status 1 when fewer
than MIN_SHARED pairs are shared or the fraction is below MIN_FRACTION.
"""
import sys


def best_lines(path):
    pairs = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            pairs.setdefault((fields[0], fields[1]), fields[2:8])
    return pairs


def dust_intervals(path):
    masked, query = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                query = line[1:].split()[0]
                masked[query] = []
            elif line:
                begin, end = line.split(" - ")
                masked[query].append((int(begin) + 1, int(end) + 1))  # 1-based, inclusive
    return masked


def main():
    blast, ours = best_lines(sys.argv[1]), best_lines(sys.argv[2])
    masked = dust_intervals(sys.argv[3])
    minimum_fraction, minimum_shared = float(sys.argv[4]), int(sys.argv[5])

    def covers_dust(pair):
        qstart, qend = sorted((int(blast[pair][2]), int(blast[pair][3])))
        return any(b <= qend and qstart <= e for b, e in masked.get(pair[0], []))

    shared = [pair for pair in blast if pair in ours]
    agree = lambda pair: [blast[pair][0]] + blast[pair][2:] == [ours[pair][0]] + ours[pair][2:]
    agreeing = sum(agree(pair) for pair in shared)
    dusted = [pair for pair in shared if covers_dust(pair)]
    fraction = agreeing / len(shared) if shared else 0.0
    print(f"{agreeing} of {len(shared)} shared pairs agree ({100 * fraction:.1f}%), "
          f"{sum(agree(pair) for pair in dusted)} of the {len(dusted)} whose blastn alignment covers dusted bases; "
          f"blastn reports {len(blast)} pairs, warpsearch {len(ours)}")
    for pair in shared:
        if not agree(pair):
            kind = "dusted bases" if covers_dust(pair) else "no dusted bases"
            print(f"  {pair[0]} {pair[1]} ({kind}): blastn {' '.join(blast[pair])}, "
                  f"warpsearch {' '.join(ours[pair])}")
    return 0 if len(shared) >= minimum_shared and fraction >= minimum_fraction else 1

if __name__ == "__main__":
    sys.exit(main())
