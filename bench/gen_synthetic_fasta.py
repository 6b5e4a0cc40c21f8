#!/usr/bin/env python3
"""Writes a synthetic protein FASTA of a given number of residues, fast (disk-bound).

Lengths follow a log-normal distribution (median about 300, like UniProt) with a few sequences of
100,000+ residues; lines are wrapped at 60. Residues are slices of a pre-wrapped random pool, so each
record costs one slice: the generator writes several hundred MB/s.

usage: gen_synthetic_fasta.py OUT RESIDUES [SEED]      (RESIDUES accepts K/M/G suffixes, binary)
"""
import random
import sys

WIDTH = 60
LETTERS = b"ACDEFGHIKLMNPQRSTVWY"


def parse_count(text):
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    return int(text[:-1] if scale > 1 else text) * scale


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    out_path, target = sys.argv[1], parse_count(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) == 4 else 1)

    pool_lines = (1 << 26) // (WIDTH + 1)
    letters = bytes(rng.choice(LETTERS) for _ in range(WIDTH * 4096))
    lines = [letters[i:i + WIDTH] for i in range(0, len(letters), WIDTH)]
    pool = b"\n".join(rng.choice(lines) for _ in range(pool_lines)) + b"\n"
    max_in_pool = (pool_lines - 1) * WIDTH

    written, index, parts, part_bytes = 0, 0, [], 0
    with open(out_path, "wb") as out:
        while written < target:
            length = 150000 + index if index % 50000 == 7 else int(rng.lognormvariate(5.7, 0.8)) + 1
            length = min(length, target - written, max_in_pool)
            start = rng.randrange(pool_lines - length // WIDTH - 1) * (WIDTH + 1)
            body = pool[start:start + (length // WIDTH) * (WIDTH + 1) + length % WIDTH]
            record = b">syn%d synthetic protein %d\n%s\n" % (index, length, body.rstrip(b"\n"))
            parts.append(record)
            part_bytes += len(record)
            written += length
            index += 1
            if part_bytes >= 1 << 26:
                out.write(b"".join(parts))
                parts, part_bytes = [], 0
        out.write(b"".join(parts))
    print("%s: %d sequences, %d residues" % (out_path, index, written), file=sys.stderr)


if __name__ == "__main__":
    main()
