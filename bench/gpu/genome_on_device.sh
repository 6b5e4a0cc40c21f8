#!/usr/bin/env bash
# On a GPU machine: DNA search at genome scale and on amplicons, GPU against CPU (outputs must be
# byte-identical), with the scan's and the whole command's speed. Data are generated (numpy):
#   genome:    4 queries of 1, 2, 5 and 10 kb against 20 chromosome-sized sequences of 5 Mb (100 Mb;
#              CHROMOSOMES=N for N of them), each query planted twice per sequence (mutated, one copy per
#              strand); both strands searched.
#   amplicons: 100 queries of about 380 nt against 50,000 amplicons, both strands.
#   tblastn:   100 proteins of 100-1,000 aa against the genome's six frames (10 of them planted as genes),
#              GPU only (the CPU would take minutes); TCUPS count query residues x bases x 2 strands.
#   reads:     100 reads of 300-1,000 nt taken from the genome (5% substitutions, half reverse-complemented)
#              against it, both strands, GPU only.
# Needs carry/bin/warpsearch (built with -DWARPSEARCH_STATIC_BOOST=ON for sm_90; WARPSEARCH_BIN names
# another binary). Writes $OUT/genome.tsv (device, workload, seconds, scan seconds, TCUPS of the scan and
# of the whole command) and the logs.
set -u
OUT=${OUT:-/tmp/warpsearch-out}
mkdir -p "$OUT"
ws=${WARPSEARCH_BIN:-$PWD/carry/bin/warpsearch}
work=/tmp/ws-genome
rm -rf "$work" && mkdir -p "$work"
python3 - "$work" "${CHROMOSOMES:-20}" <<'PY'
import sys
import numpy as np
work = sys.argv[1]
rng = np.random.default_rng(11)
bases = np.frombuffer(b"ACGT", dtype=np.uint8)
comp = np.zeros(256, dtype=np.uint8); comp[list(b"ACGT")] = list(b"TGCA")
def mutate(seq, rate=0.1):
    keep = rng.random(len(seq)) > rate / 3                      # deletions
    out = seq[keep].copy()
    sub = rng.random(len(out)) < rate / 3                       # substitutions
    out[sub] = bases[rng.integers(0, 4, sub.sum())]
    return out
def write(path, records):
    with open(path, "wb") as f:
        for name, seq in records:
            f.write(b">" + name.encode() + b"\n")
            for i in range(0, len(seq), 80): f.write(seq[i:i + 80].tobytes() + b"\n")
queries = [bases[rng.integers(0, 4, n)] for n in (1000, 2000, 5000, 10000)]
write(f"{work}/genome_queries.fa", [(f"q{len(q)}", q) for q in queries])
amino = np.frombuffer(b"ARNDCQEGHILKMFPSTWYV", dtype=np.uint8)
codon = [b"GCT", b"CGT", b"AAT", b"GAT", b"TGT", b"CAA", b"GAA", b"GGT", b"CAT", b"ATT",
         b"CTG", b"AAA", b"ATG", b"TTT", b"CCG", b"TCT", b"ACT", b"TGG", b"TAT", b"GTT"]
proteins = [rng.integers(0, 20, int(n)) for n in rng.integers(100, 1001, 100)]
write(f"{work}/proteins.fa", [(f"p{i}", amino[p]) for i, p in enumerate(proteins)])
coding = [np.frombuffer(b"".join(codon[a] for a in p), dtype=np.uint8) for p in proteins[:10]]
chromosomes = []
for c in range(int(sys.argv[2])):
    seq = bases[rng.integers(0, 4, 5_000_000)]
    for k, q in enumerate(queries):
        for copy in range(2):
            piece = mutate(q)
            if (c + k + copy) % 2: piece = comp[piece][::-1]
            at = rng.integers(0, len(seq) - len(piece))
            seq[at:at + len(piece)] = piece
    piece = coding[c % 10].copy()                               # a protein's gene, on alternating strands,
    sub = rng.random(len(piece)) < 0.05                         # with substitutions only (no frameshifts)
    piece[sub] = bases[rng.integers(0, 4, sub.sum())]
    if c % 2: piece = comp[piece][::-1]
    at = rng.integers(0, len(seq) - len(piece))
    seq[at:at + len(piece)] = piece
    chromosomes.append((f"chr{c}", seq))
write(f"{work}/genome.fa", chromosomes)
templates = [bases[rng.integers(0, 4, 380)] for _ in range(200)]
amplicons = [(f"a{i}", mutate(templates[i % 200], 0.15)) for i in range(50000)]
write(f"{work}/amplicons.fa", amplicons)
write(f"{work}/amplicon_queries.fa", [(f"aq{i}", mutate(templates[(7 * i) % 200], 0.05)) for i in range(100)])
reads = []                                                      # reads of 300-1,000 nt from the genome, 5%
for i in range(100):                                            # substitutions, on both strands
    seq = chromosomes[int(rng.integers(0, len(chromosomes)))][1]
    n = int(rng.integers(300, 1001))
    at = int(rng.integers(0, len(seq) - n))
    read = seq[at:at + n].copy()
    sub = rng.random(n) < 0.05
    read[sub] = bases[rng.integers(0, 4, sub.sum())]
    reads.append((f"r{i}", comp[read][::-1] if i % 2 else read))
write(f"{work}/reads.fa", reads)
PY
printf 'device\tworkload\tseconds\tscan_seconds\tscan_TCUPS\tcommand_TCUPS\thits\tcommand\n' > "$OUT/genome.tsv"
run() {  # device workload queries db [search options]
  local device=$1 name=$2 queries=$3 db=$4 extra=${5:-}
  local cmd="$ws search --device $device -q $queries -d $db --evalue 1e-5 $extra -o $work/$name-$device.tsv"
  [ "$device" = gpu ] && $cmd 2> /dev/null  # warm-up (page cache, GPU context)
  local start end; start=$(date +%s.%N); $cmd 2> "$OUT/$name-$device.err"; local rc=$?; end=$(date +%s.%N)
  python3 - "$device" "$name" "$start" "$end" "$OUT/$name-$device.err" "$work/$name-$device.tsv" "$cmd (rc=$rc)" <<'PY'
import re, sys
device, name, start, end, err, out, cmd = sys.argv[1:]
text = open(err).read()
seconds = float(end) - float(start)
gcups = float(re.search(r"hits, [0-9.]+ s, ([0-9.]+) GCUPS", text).group(1)) if "GCUPS" in text else 0
scan = re.search(r"scan ([0-9.]+) s \(([0-9.]+) GCUPS\)", text)
total = float(re.search(r"hits, ([0-9.]+) s,", text).group(1)) if scan else 0
cells = gcups * total * 1e9
hits = sum(1 for _ in open(out)) if cells else 0
scan_s = float(scan.group(1)) if scan else 0
print(f"{device}\t{name}\t{seconds:.2f}\t{scan_s:.2f}\t{cells / scan_s / 1e12 if scan_s else 0:.3f}\t"
      f"{cells / seconds / 1e12:.3f}\t{hits}\t{cmd}")
PY
}
$ws makedb --quiet "$work/genome.fa" "$work/genome.wsdb"
$ws makedb --quiet "$work/amplicons.fa" "$work/amplicons.wsdb"
for device in gpu cpu; do
  run $device genome "$work/genome_queries.fa" "$work/genome.wsdb" >> "$OUT/genome.tsv"
  run $device amplicons "$work/amplicon_queries.fa" "$work/amplicons.wsdb" >> "$OUT/genome.tsv"
done
run gpu tblastn "$work/proteins.fa" "$work/genome.wsdb" "--program tblastn" >> "$OUT/genome.tsv"
run gpu reads "$work/reads.fa" "$work/genome.wsdb" >> "$OUT/genome.tsv"
for name in genome amplicons; do
  if cmp -s "$work/$name-gpu.tsv" "$work/$name-cpu.tsv"; then echo "$name: GPU output == CPU output ($(wc -l < "$work/$name-gpu.tsv") lines)"
  else echo "$name: GPU output DIFFERS from CPU output"; diff "$work/$name-gpu.tsv" "$work/$name-cpu.tsv" | head -5; fi
done | tee "$OUT/genome_identical.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt"
cut -f1-7 "$OUT/genome.tsv"
cat "$OUT"/genome-gpu.err "$OUT"/tblastn-gpu.err
