#!/usr/bin/env python3
"""Our X-drop pairs as LOGAN input, and LOGAN's results next to ours (bench/gpu/logan_on_device.sh).

input QUERY.fa TARGET.fa PAIRS.tsv OUT.txt
    Writes LOGAN's input (its demo's format, one pair a line, tab-separated):
        seqV  posV  seqH  posH  strand
    seqV the query sequence, posV the 0-based start of the seed in it, seqH the target and posH its seed
    start, strand 'n' (same strand; 'c' would make LOGAN complement seqH). PAIRS.tsv is what
    `warpsearch align --pairs` reads and bench/align_make_data.py writes ('query_id target_id query_seed
    target_seed seed_length', seeds 1-based); each row needs both seeds and a length. LOGAN takes one k-mer
    length on its command line for every pair, so every row must have the same seed length; it is printed
    (stdout: 'k=17 pairs=N'). Refused, naming the line: a seed that does not fit, or one touching either
    end of a sequence (LOGAN leaves the score of an empty extension unset), or seeds whose residues differ
    (LOGAN counts the seed as k matches, we sum its substitution scores). Sequences are upper-cased (LOGAN
    compares bytes). Letters other than ACGT are counted and reported: LOGAN scores N against N as a match.

compare PAIRS.tsv LOGAN_RESULTS WARPSEARCH.tsv
    LOGAN_RESULTS: the per-pair lines of the patched demo (bench/logan_build.py): 'score beginV endV
    beginH endH cells', 0-based, end exclusive; WARPSEARCH.tsv: `warpsearch align --mode xdrop` TSV (1-based,
    inclusive). Prints one summary line: pairs, LOGAN's cells, how many scores are equal / ours higher /
    ours lower, the mean difference, and how many spans are identical. Our score is the best cell of each
    extension, LOGAN's the score of the farthest live cell (docs/align.md), so with the same scoring ours is
    never lower; a pair where it is lower points at a difference in the recurrences.
"""
import gzip
import sys


def read_fasta(path):
    opener = gzip.open if path.endswith(".gz") else open
    records, name, parts = {}, None, []
    with opener(path, "rt") as handle:
        for line in handle:
            line = line.strip()
            if line.startswith(">"):
                if name is not None:
                    records[name] = "".join(parts)
                name, parts = (line[1:].split() or [""])[0], []
                if name in records:
                    sys.exit("logan_pairs: %s: the ID %r is there twice" % (path, name))
            elif line and name is not None:
                parts.append(line)
    if name is not None:
        records[name] = "".join(parts)
    return records


def pair_rows(path):
    """(line number, fields) of each pair row; '#' lines and empty lines skipped."""
    with open(path) as handle:
        for number, line in enumerate(handle, 1):
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                yield number, fields


def make_input(query_path, target_path, pairs_path, out_path):
    queries, targets = read_fasta(query_path), read_fasta(target_path)
    k, pairs, other_letters, longest = None, 0, 0, 0
    with open(out_path, "w") as out:
        for number, fields in pair_rows(pairs_path):
            where = "%s line %d" % (pairs_path, number)
            if len(fields) != 5:
                sys.exit("logan_pairs: %s: expected 'query_id target_id query_seed target_seed seed_length', "
                         "got %d fields" % (where, len(fields)))
            qid, tid = fields[0], fields[1]
            try:
                qseed, tseed, length = (int(x) for x in fields[2:])
            except ValueError:
                sys.exit("logan_pairs: %s: seeds and length must be whole numbers" % where)
            if qid not in queries or tid not in targets:
                sys.exit("logan_pairs: %s: unknown ID %r" % (where, qid if qid not in queries else tid))
            if k is None:
                k = length
            elif length != k:
                sys.exit("logan_pairs: %s: seed length %d, earlier rows %d (LOGAN takes one k for all pairs)"
                         % (where, length, k))
            query, target = queries[qid].upper(), targets[tid].upper()
            posv, posh = qseed - 1, tseed - 1
            if k < 1 or posv < 1 or posh < 1 or posv + k >= len(query) or posh + k >= len(target):
                sys.exit("logan_pairs: %s: the seed (%d, %d, length %d) must lie inside both sequences (%d and %d "
                         "residues) without touching an end" % (where, qseed, tseed, k, len(query), len(target)))
            if query[posv : posv + k] != target[posh : posh + k]:
                sys.exit("logan_pairs: %s: the seed's residues differ between query and target" % where)
            other_letters += sum(len(s) - sum(s.count(c) for c in "ACGT") for s in (query, target))
            longest = max(longest, len(query), len(target))
            out.write("%s\t%d\t%s\t%d\tn\n" % (query, posv, target, posh))
            pairs += 1
    if pairs == 0:
        sys.exit("logan_pairs: %s: no pair" % pairs_path)
    if other_letters:
        print("logan_pairs: %d residues other than ACGT (LOGAN scores equal letters as a match)" % other_letters,
              file=sys.stderr)
    if longest > 32000:
        print("logan_pairs: a sequence of %d residues: LOGAN keeps scores in 16 bits" % longest, file=sys.stderr)
    print("k=%d pairs=%d" % (k, pairs))


def compare(pairs_path, logan_path, ours_path):
    rows = [fields for _, fields in pair_rows(pairs_path)]
    with open(logan_path) as handle:
        logan = [line.split() for line in handle if line.strip()]
    with open(ours_path) as handle:
        ours = [line.split("\t") for line in handle.read().splitlines()[1:] if line]
    if not (len(rows) == len(logan) == len(ours)):
        sys.exit("logan_pairs: %d pairs, %d LOGAN results, %d warpsearch rows" % (len(rows), len(logan), len(ours)))
    equal = higher = lower = same_span = 0
    difference = cells = 0
    for row, theirs, mine in zip(rows, logan, ours):
        if mine[0] != row[0] or mine[1] != row[1]:
            sys.exit("logan_pairs: warpsearch row %s %s where the pairs file has %s %s" % (mine[0], mine[1], row[0], row[1]))
        their_score, bv, ev, bh, eh, their_cells = (int(x) for x in theirs)
        score = int(mine[2])
        cells += their_cells
        difference += score - their_score
        equal += score == their_score
        higher += score > their_score
        lower += score < their_score
        same_span += [int(x) for x in mine[3:7]] == [bv + 1, ev, bh + 1, eh]
    n = len(rows)
    print("pairs=%d logan_cells=%d scores_equal=%d ours_higher=%d ours_lower=%d mean_ours_minus_logan=%.2f "
          "same_span=%d" % (n, cells, equal, higher, lower, difference / n, same_span))


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "input":
        make_input(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "compare":
        compare(*sys.argv[2:])
    else:
        sys.exit("usage: logan_pairs.py input QUERY.fa TARGET.fa PAIRS.tsv OUT.txt\n"
                 "       logan_pairs.py compare PAIRS.tsv LOGAN_RESULTS WARPSEARCH.tsv")


if __name__ == "__main__":
    main()
