#!/usr/bin/env python3
"""The DNA pairs of the pair-aligner benchmarks: 4,000 pairs of 1..5 kb, the target a copy of the query
with 10% substitutions and indels (seeded; python3 only). Writes DIR/dna_q.fa and DIR/dna_t.fa.
Usage: make_dna_pairs.py DIR"""
import random
import sys

work = sys.argv[1]
rng = random.Random(7)
with open(f"{work}/dna_q.fa", "w") as q, open(f"{work}/dna_t.fa", "w") as t:
    for k in range(4000):
        s = "".join(rng.choice("ACGT") for _ in range(rng.randint(1000, 5000)))
        out = []
        for c in s:
            x = rng.random()
            if x < 0.034: out.append(rng.choice("ACGT"))
            elif x < 0.067: out.append(c + rng.choice("ACGT"))
            elif x < 0.1: continue
            else: out.append(c)
        q.write(f">q{k}\n{s}\n")
        t.write(f">t{k}\n{''.join(out)}\n")
