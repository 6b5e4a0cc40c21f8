#!/usr/bin/env bash
# On a GPU machine: blastx of 10,000 DNA reads and contigs (300-3,000 nt) against a real proteome of about
# 33 M residues (bench/make_protein_db.sh's proteins.fa), GPU whole command and scan, with the GPU's output
# compared byte for byte with the CPU's on the first READS_TWIN reads (default 20; the CPU would take
# minutes for all).
#   bench/gpu/blastx_on_device.sh PROTEINS.fa[.gz]   (READS=10000, READS_TWIN=20)
# The reads are generated (numpy, seed 17): half are coding, a window of a random protein of the proteome
# with 15% of its residues changed, back-translated with random codons, on a random strand, with 0-2
# random bases before it (every frame occurs); half are random DNA. TCUPS count what the scan computes:
# the six frames' amino acids of every read times the proteome's residues.
# Needs carry/bin/warpsearch (sm_90). Writes $OUT/blastx.tsv and the logs.
set -u
OUT=${OUT:-/tmp/warpsearch-out}
mkdir -p "$OUT"
ws=${WARPSEARCH:-$PWD/carry/bin/warpsearch}
proteome=$1
reads=${READS:-10000}
twin=${READS_TWIN:-20}
work=/tmp/ws-blastx
rm -rf "$work" && mkdir -p "$work"
case $proteome in
  *.gz) gzip -dc "$proteome" > "$work/proteins.fa" ;;
  *.xz) xz -dc "$proteome" > "$work/proteins.fa" ;;
  *) cp "$proteome" "$work/proteins.fa" ;;
esac
python3 - "$work" "$reads" <<'PY'
import sys
import numpy as np
work, count = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(17)
proteins, current = [], []
for line in open(f"{work}/proteins.fa", "rb"):
    if line.startswith(b">"):
        if current: proteins.append(b"".join(current))
        current = []
    else:
        current.append(line.strip())
if current: proteins.append(b"".join(current))
codons = {b"A": [b"GCT", b"GCC", b"GCA", b"GCG"], b"C": [b"TGT", b"TGC"], b"D": [b"GAT", b"GAC"],
          b"E": [b"GAA", b"GAG"], b"F": [b"TTT", b"TTC"], b"G": [b"GGT", b"GGC", b"GGA", b"GGG"],
          b"H": [b"CAT", b"CAC"], b"I": [b"ATT", b"ATC", b"ATA"], b"K": [b"AAA", b"AAG"],
          b"L": [b"CTG", b"CTC", b"TTA", b"CTT"], b"M": [b"ATG"], b"N": [b"AAT", b"AAC"], b"P": [b"CCG", b"CCT", b"CCA"],
          b"Q": [b"CAG", b"CAA"], b"R": [b"CGT", b"AGA", b"CGC"], b"S": [b"TCT", b"AGC", b"TCC"],
          b"T": [b"ACC", b"ACT", b"ACA"], b"V": [b"GTG", b"GTT", b"GTC"], b"W": [b"TGG"], b"Y": [b"TAT", b"TAC"]}
amino = list(codons)
bases = np.frombuffer(b"ACGT", dtype=np.uint8)
def random_dna(n): return bases[rng.integers(0, 4, n)].tobytes()
def reverse_complement(s): return s[::-1].translate(bytes.maketrans(b"ACGT", b"TGCA"))
lengths = [p for p in range(len(proteins)) if len(proteins[p]) >= 100]
with open(f"{work}/reads.fa", "wb") as out:
    for r in range(count):
        n = int(rng.integers(300, 3001))
        if r % 2 == 0:
            p = proteins[lengths[int(rng.integers(0, len(lengths)))]]
            window = min(len(p), (n - 2) // 3)
            at = int(rng.integers(0, len(p) - window + 1))
            coding = b""
            for k in range(at, at + window):
                a = p[k:k + 1]
                if a not in codons or rng.random() < 0.15: a = amino[int(rng.integers(0, 20))]
                choices = codons[a]
                coding += choices[int(rng.integers(0, len(choices)))]
            lead = int(rng.integers(0, 3))
            seq = random_dna(lead) + coding
            seq += random_dna(max(0, n - len(seq)))
            if rng.random() < 0.5: seq = reverse_complement(seq)
        else:
            seq = random_dna(n)
        out.write(b">read%05d\n" % r)
        for i in range(0, len(seq), 80): out.write(seq[i:i + 80] + b"\n")
PY
awk -v n="$twin" '/^>/ { k++ } k <= n' "$work/reads.fa" > "$work/twin.fa"
awk '/^>/ { k++ } k <= 100' "$work/reads.fa" > "$work/warm.fa"
$ws makedb --quiet "$work/proteins.fa" "$work/proteins.wsdb"
printf 'device\treads\tread_nt\tproteome_aa\tseconds\tscan_seconds\tscan_TCUPS\tcommand_TCUPS\thits\tcommand\n' > "$OUT/blastx.tsv"
run() {  # device queries name
  local device=$1 queries=$2 name=$3
  local cmd="$ws search --device $device --program blastx -q $queries -d $work/proteins.wsdb --evalue 1e-5 -o $work/$name-$device.tsv"
  local start end; start=$(date +%s.%N); $cmd 2> "$OUT/$name-$device.err"; local rc=$?; end=$(date +%s.%N)
  python3 - "$device" "$queries" "$work/proteins.fa" "$start" "$end" "$OUT/$name-$device.err" "$work/$name-$device.tsv" "$cmd (rc=$rc)" <<'PY'
import sys
import os, re
device, queries, proteins, start, end, err, out, cmd = sys.argv[1:]
def residues(path):
    count, n = 0, 0
    for line in open(path):
        if line.startswith(">"): count += 1
        else: n += len(line.strip())
    return count, n
reads, nt = residues(queries)
_, aa = residues(proteins)
cells = 2 * nt * aa                                      # six frames of about nt / 3 amino acids
text = open(err).read()
scan = re.search(r"scan ([0-9.]+) s", text)
scan_s = float(scan.group(1)) if scan else 0
seconds = float(end) - float(start)
hits = sum(1 for _ in open(out)) if os.path.exists(out) else 0
print(f"{device}\t{reads}\t{nt}\t{aa}\t{seconds:.2f}\t{scan_s:.2f}\t{cells / scan_s / 1e12 if scan_s else 0:.3f}\t"
      f"{cells / seconds / 1e12:.3f}\t{hits}\t{cmd}")
PY
}
run gpu "$work/warm.fa" warm > /dev/null  # page cache and a first GPU context
run gpu "$work/reads.fa" blastx >> "$OUT/blastx.tsv"
run gpu "$work/twin.fa" twin >> "$OUT/blastx.tsv"
run cpu "$work/twin.fa" twin >> "$OUT/blastx.tsv"
if cmp -s "$work/twin-gpu.tsv" "$work/twin-cpu.tsv"; then echo "blastx: GPU output == CPU output ($(wc -l < "$work/twin-gpu.tsv") lines, $twin reads)"
else echo "blastx: GPU output DIFFERS from CPU output"; diff "$work/twin-gpu.tsv" "$work/twin-cpu.tsv" | head -5; fi | tee "$OUT/blastx_identical.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt"
cut -f1-9 "$OUT/blastx.tsv"
tail -3 "$OUT/blastx-gpu.err"
