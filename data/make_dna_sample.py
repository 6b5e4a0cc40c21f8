#!/usr/bin/env python3
"""Makes data/dna_sample.fa and data/dna_queries.fa from real human DNA, the same every time.

Source: /usr/share/doc/plast-example/db/sapiens_1Mo.fa.gz (Debian package plast-example): 15 unplaced
genomic scaffolds of the human genome, GenBank TPA records GJ063650.1 .. GJ063664.1 (984,163 nt).

- dna_sample.fa: scaffolds 1..12 (510,903 nt) cut, in order, into fragments of 40..3,000 nt (lengths from a
  fixed linear congruential sequence), each named ACCESSION:START-END (1-based, inclusive): many subjects of
  many lengths, as a database holds.
- dna_queries.fa: 8 fragments of 150..700 nt of scaffold 14, which is not in the database: their hits are
  the repeats (Alu, L1, ...) that human DNA shares, on both strands.

usage: data/make_dna_sample.py [SOURCE.fa.gz]   (writes into the directory of this script)
"""
import gzip
import os
import sys


def read_fasta(path):
    records, header, parts = [], None, []
    with gzip.open(path, "rt") as text:
        for line in text:
            line = line.strip()
            if line.startswith(">"):
                if header is not None:
                    records.append((header, "".join(parts)))
                header, parts = line[1:], []
            elif line:
                parts.append(line)
    if header is not None:
        records.append((header, "".join(parts)))
    return records


def accession(header):
    fields = header.split("|")
    return fields[3] if len(fields) > 3 else header.split()[0]


def lengths(seed, low, high):
    state = seed
    while True:
        state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
        yield low + (state >> 33) % (high - low + 1)


def write_fasta(path, records):
    with open(path, "w") as out:
        for name, description, sequence in records:
            out.write(">%s %s\n" % (name, description))
            for i in range(0, len(sequence), 70):
                out.write(sequence[i:i + 70] + "\n")


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/doc/plast-example/db/sapiens_1Mo.fa.gz"
    here = os.path.dirname(os.path.abspath(__file__))
    scaffolds = read_fasta(source)
    if len(scaffolds) != 15:
        sys.exit("expected the 15 scaffolds of plast-example's sapiens_1Mo.fa.gz, found %d records" % len(scaffolds))

    subjects, pick = [], lengths(20251121, 40, 3000)
    for number, (header, sequence) in enumerate(scaffolds[:12], start=1):
        start = 0
        while start < len(sequence):
            end = min(len(sequence), start + next(pick))
            subjects.append(("%s:%d-%d" % (accession(header), start + 1, end),
                             "Homo sapiens scaffold%d fragment" % number, sequence[start:end]))
            start = end
    write_fasta(os.path.join(here, "dna_sample.fa"), subjects)

    header, sequence = scaffolds[13]
    queries, pick, start = [], lengths(7, 150, 700), 1000
    for _ in range(8):
        end = start + next(pick)
        queries.append(("%s:%d-%d" % (accession(header), start + 1, end), "Homo sapiens scaffold14 fragment",
                        sequence[start:end]))
        start = end + 9000
    write_fasta(os.path.join(here, "dna_queries.fa"), queries)
    print("dna_sample.fa: %d fragments, %d nt; dna_queries.fa: %d queries, %d nt" %
          (len(subjects), sum(len(s) for _, _, s in subjects), len(queries), sum(len(s) for _, _, s in queries)))


if __name__ == "__main__":
    main()
