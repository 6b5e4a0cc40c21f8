#!/usr/bin/env python3
"""Benchmark inputs for `warpsearch align` (bench/align_bench.sh), the same every time (seeded).

protein OUTDIR SOURCE.fa N
    N pairs of real proteins of 100..1,000 residues: OUTDIR/protein_a.fa and OUTDIR/protein_b.fa, record i of
    one to be aligned with record i of the other (local mode). Both members of a pair are drawn at random,
    with replacement, from the proteins of SOURCE.fa within that length range (data/uniprot_sample.fa: 4,000
    UniProt proteins, 3,344 of them in range), so most pairs are unrelated: the cost of a full local
    alignment does not depend on similarity.

reads OUTDIR GENOME.fa[.gz] N
    N read pairs of 5..10 kb at about 15% divergence, simulated from a real genome (the lambda phage of
    Debian's bowtie2-examples, 48,502 bp), for X-drop: OUTDIR/reads_a.fa, OUTDIR/reads_b.fa and
    OUTDIR/reads_pairs.tsv ('a_i b_i query_seed target_seed 17', seeds 1-based).
    The simulator: a region of L residues (L uniform in 5,000..10,000) at a uniform position of the genome
    (the genome is read as circular, so every region has its full length), on the forward strand. Each read
    of the pair is the region mutated on its own at 7.5% of the positions, so the two reads differ at about
    15% of positions: 60% of the events are substitutions (to one of the three other bases), 20% insertions
    and 20% deletions, of length 1 + a geometric number of further residues with mean 0.5 (most indels are
    1 or 2 bases long). The seed is a 17-mer of the region that both reads kept intact, the one nearest the
    middle of the region; pairs where there is none are drawn again.

Only python3's standard library is used, so the data can be made on a machine without network access.
"""
import gzip
import random
import sys

SEED_LENGTH = 17
BASES = "ACGT"


def read_fasta(path):
    opener = gzip.open if path.endswith(".gz") else open
    records, name, parts = [], None, []
    with opener(path, "rt") as handle:
        for line in handle:
            line = line.strip()
            if line.startswith(">"):
                if name is not None:
                    records.append((name, "".join(parts)))
                name, parts = line[1:].split()[0] if len(line) > 1 else "", []
            elif line:
                parts.append(line)
    if name is not None:
        records.append((name, "".join(parts)))
    return records


def write_fasta(path, records):
    with open(path, "w") as out:
        for name, sequence in records:
            out.write(">%s\n" % name)
            for i in range(0, len(sequence), 80):
                out.write(sequence[i : i + 80] + "\n")


def proteins(outdir, source, count):
    rng = random.Random(20261121)
    pool = [(name, seq) for name, seq in read_fasta(source) if 100 <= len(seq) <= 1000]
    if not pool:
        sys.exit("align_make_data: no protein of 100..1,000 residues in %s" % source)
    a, b = [], []
    for i in range(count):
        qa, qb = rng.choice(pool), rng.choice(pool)
        a.append(("p%d_%s" % (i, qa[0]), qa[1]))
        b.append(("p%d_%s" % (i, qb[0]), qb[1]))
    write_fasta(outdir + "/protein_a.fa", a)
    write_fasta(outdir + "/protein_b.fa", b)
    residues = sum(len(s) for _, s in a) + sum(len(s) for _, s in b)
    cells = sum(len(x[1]) * len(y[1]) for x, y in zip(a, b))
    print("protein: %d pairs from %d proteins of %s, %d residues, %.3g cells" % (count, len(pool), source, residues, cells))


def simulate_read(rng, region, rate):
    """A read mutated from region, and where each intact region position landed in the read (or None)."""
    read = []
    position = [None] * len(region)
    p = 0
    while p < len(region):
        base = region[p]
        if rng.random() >= rate:
            position[p] = len(read)
            read.append(base)
            p += 1
            continue
        length = 1
        while rng.random() < 1.0 / 3.0:
            length += 1
        event = rng.random()
        if event < 0.6:
            read.append(rng.choice([c for c in BASES if c != base]))
            p += 1
        elif event < 0.8:
            position[p] = len(read)  # kept; the inserted bases break the run of consecutive positions after it
            read.append(base)
            read.extend(rng.choice(BASES) for _ in range(length))
            p += 1
        else:
            p += length
    return "".join(read), position


def reads(outdir, genome_path, count):
    rng = random.Random(20261122)
    records = read_fasta(genome_path)
    if not records:
        sys.exit("align_make_data: no sequence in %s" % genome_path)
    genome = "".join(seq for _, seq in records).upper()
    genome = "".join(c if c in BASES else "A" for c in genome)
    a, b, pairs = [], [], []
    rate = 0.075
    while len(a) < count:
        length = rng.randint(5000, 10000)
        start = rng.randrange(len(genome))
        if length > len(genome):
            sys.exit("align_make_data: the genome (%d bp) is shorter than a read" % len(genome))
        region = (genome + genome)[start : start + length]
        read_a, where_a = simulate_read(rng, region, rate)
        read_b, where_b = simulate_read(rng, region, rate)
        seed = None
        middle = length // 2
        for offset in range(0, length):
            for p in (middle - offset, middle + offset):
                if p < 0 or p + SEED_LENGTH > length:
                    continue
                ok = True
                for k in range(SEED_LENGTH):
                    pa, pb = where_a[p + k], where_b[p + k]
                    if pa is None or pb is None or pa != where_a[p] + k or pb != where_b[p] + k:
                        ok = False
                        break
                if ok:
                    seed = (where_a[p], where_b[p])
                    break
            if seed is not None:
                break
        if seed is None:
            continue
        assert read_a[seed[0] : seed[0] + SEED_LENGTH] == read_b[seed[1] : seed[1] + SEED_LENGTH]
        i = len(a)
        a.append(("a%d" % i, read_a))
        b.append(("b%d" % i, read_b))
        pairs.append("a%d\tb%d\t%d\t%d\t%d\n" % (i, i, seed[0] + 1, seed[1] + 1, SEED_LENGTH))
    write_fasta(outdir + "/reads_a.fa", a)
    write_fasta(outdir + "/reads_b.fa", b)
    with open(outdir + "/reads_pairs.tsv", "w") as out:
        out.writelines(pairs)
    residues = sum(len(s) for _, s in a) + sum(len(s) for _, s in b)
    print("reads: %d pairs from %s (%d bp), %d residues" % (count, genome_path, len(genome), residues))


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("protein", "reads"):
        sys.exit("usage: align_make_data.py protein OUTDIR SOURCE.fa N | reads OUTDIR GENOME.fa[.gz] N")
    kind, outdir, source, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    (proteins if kind == "protein" else reads)(outdir, source, count)


if __name__ == "__main__":
    main()
