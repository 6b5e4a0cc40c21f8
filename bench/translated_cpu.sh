#!/usr/bin/env bash
# Translated search on the CPU, side by side with the anchors, on the bundled data and 2 threads each:
#
#   blastx   20 DNA contigs holding 40 sample proteins (25% of residues changed), and data/dna_queries.fa,
#            vs data/uniprot_sample.fa (4,000 proteins):
#            warpsearch --program blastx | blastx (BLAST+) | fastx36 (FASTA)
#   tblastn  the 40 proteins vs the 20 contigs and data/dna_sample.fa (333 DNA fragments, 0.5 Mb):
#            warpsearch --program tblastn | tblastn (BLAST+) | tfastx36 (FASTA)
#   tblastn  the 40 proteins vs a bacterial-sized genome: one record of 4.41 Mb (GENOME=N bases; 0 leaves
#            it out), random bases (seed 6) with the 20 contigs inserted at random places
#
# GCUPS for every tool count the same cells, those warpsearch computes: the six frames of the translated
# side (about 2 x its bases in amino acids) times the other side's residues. BLAST+ runs with
# -comp_based_stats 0 -seg no (its defaults otherwise), FASTA with BLOSUM62 11/1 (-s BL62 -f -11 -g -1)
# and its default heuristics. Hits are (query, subject) pairs with E-value <= 1e-3, at most 500 subjects
# per query; for warpsearch and FASTA the table says how many of BLAST's pairs they also report and how
# many they add. Wall time of the whole command (reading, scanning, aligning, writing).
#
#   bench/translated_cpu.sh [BUILD_DIR] [OUT_TSV]   (defaults: build, bench/results/translated_cpu.tsv)
#
# Each run appends its block (comment lines with the date, commit and machine, a column header, the rows)
# to OUT_TSV.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
out=${2:-$here/bench/results/translated_cpu.tsv}
ws=$build/tools/warpsearch
threads=2
evalue=1e-3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

residues() { awk '!/^>/ { n += length($0) } END { print n }' "$1"; }
seconds_of() {  # runs "$@", prints its wall time in seconds
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}

# DNA with real proteins in it: 40 proteins of the sample (every 100th), 25% of their residues changed at
# random, back-translated and planted in random DNA (seed 5), alternately on the plus and minus strand;
# two per contig. The blastx queries are these 20 contigs and the bundled DNA queries; the tblastn
# database is the contigs and the bundled DNA sample, its queries the planted proteins' originals.
python3 - "$here/data/uniprot_sample.fa" "$work" <<'PY'
import random, sys
random.seed(5)
codons = {"A": "GCT GCC GCA GCG", "C": "TGT TGC", "D": "GAT GAC", "E": "GAA GAG", "F": "TTT TTC", "G": "GGT GGC GGA GGG",
          "H": "CAT CAC", "I": "ATT ATC ATA", "K": "AAA AAG", "L": "CTG CTC TTA CTT", "M": "ATG", "N": "AAT AAC",
          "P": "CCG CCT CCA", "Q": "CAG CAA", "R": "CGT AGA CGC", "S": "TCT AGC TCC", "T": "ACC ACT ACA",
          "V": "GTG GTT GTC", "W": "TGG", "Y": "TAT TAC"}
records, current = [], None
for line in open(sys.argv[1]):
    if line.startswith(">"):
        current = [line[1:].split()[0], ""]
        records.append(current)
    else:
        current[1] += line.strip()
picked = [r for r in records[::100] if set(r[1]) <= set(codons) and 50 <= len(r[1]) <= 1500][:40]
def rc(s): return s[::-1].translate(str.maketrans("ACGT", "TGCA"))
def background(n): return "".join(random.choice("ACGT") for _ in range(n))
with open(sys.argv[2] + "/planted_proteins.fa", "w") as out:
    for name, seq in picked: out.write(">%s\n%s\n" % (name, seq))
with open(sys.argv[2] + "/contigs.fa", "w") as out:
    for c in range(0, len(picked), 2):
        dna = ""
        for k, (name, seq) in enumerate(picked[c:c + 2]):
            mutated = "".join(random.choice("ACDEFGHIKLMNPQRSTVWY") if random.random() < 0.25 else a for a in seq)
            coding = "".join(random.choice(codons[a].split()) for a in mutated)
            dna += background(random.randint(200, 800)) + (coding if (c // 2 + k) % 2 == 0 else rc(coding))
        dna += background(300)
        out.write(">contig%02d\n%s\n" % (c // 2, dna))
PY
genome_length=${GENOME:-4410000}
if [ "$genome_length" -gt 0 ]; then
  python3 - "$work" "$genome_length" <<'PY'
import random, sys
work, n = sys.argv[1], int(sys.argv[2])
random.seed(6)
contigs = [line.strip() for line in open(work + "/contigs.fa") if not line.startswith(">")]
genome = random.choices("ACGT", k=n)
for contig in contigs:
    at = random.randrange(0, n - len(contig))
    genome[at:at + len(contig)] = contig
with open(work + "/genome.fa", "w") as out:
    out.write(">genome generated bacterial-sized chromosome\n")
    for i in range(0, n, 80): out.write("".join(genome[i:i + 80]) + "\n")
PY
  "$ws" makedb --quiet "$work/genome.fa" "$work/genome.wsdb"
  makeblastdb -in "$work/genome.fa" -dbtype nucl -out "$work/genome" > /dev/null
fi
proteins=$here/data/uniprot_sample.fa
cat "$work/contigs.fa" "$here/data/dna_queries.fa" > "$work/dna_queries.fa"
cat "$work/contigs.fa" "$here/data/dna_sample.fa" > "$work/dna.fa"
dna=$work/dna.fa
"$ws" makedb --quiet "$proteins" "$work/proteins.wsdb"
"$ws" makedb --quiet "$dna" "$work/dna.wsdb"
makeblastdb -in "$proteins" -dbtype prot -out "$work/proteins" > /dev/null
makeblastdb -in "$dna" -dbtype nucl -out "$work/dna" > /dev/null

commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$here" status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit="$commit+changes"; fi
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
{
  echo "# bench/translated_cpu.sh, $(date -u +%Y-%m-%dT%H:%MZ), commit $commit"
  echo "# machine: $cpu, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg) at start; $threads threads per tool"
  echo "# $(blastx -version | head -1 | tr -d '\n'); $(fastx36 2>&1 | awk '/version/ { print "FASTA " $0; exit }' | tr -s ' ')"
  echo "# GCUPS: the cells warpsearch computes (6 frames x the other side), over the wall time of each command"
  echo "# BLAST+ runs in its default traceback mode, which links a subject's HSPs (sum statistics): a pair it reports"
  echo "# at E <= $evalue through linked HSPs can stand above the cut-off in warpsearch, whose HSPs stand alone"
  echo "# (docs/translated_search.md); such pairs are listed after the table"
  printf 'program\ttool\tqueries\tdatabase\tcells\tseconds\tGCUPS\tpairs\tblast_pairs_found\tpairs_added\tcommand\n'
} >> "$out"

# The (query, subject) pairs of a tabular file whose E-value column (3rd) is <= $evalue; the subject is
# the first word of column 2.
pairs() { awk -F'\t' -v e="$evalue" '($3 + 0) <= e { split($2, w, " "); print $1 "\t" w[1] }' "$1" | sort -u; }

notes=()
run_program() {
  local program=$1 queries=$2 cells=$3 ws_db=$4 blast_db=$5 library=$6 fasta_tool=$7 blast_tool=$8
  local q_name d_name
  q_name=$(basename "$queries")
  d_name=$(basename "$library")
  # BLAST+: the reference pairs.
  local blast_cmd=("$blast_tool" -query "$queries" -db "$blast_db" -comp_based_stats 0 -seg no -evalue "$evalue"
    -max_target_seqs 500 -num_threads "$threads" -outfmt "6 qseqid stitle evalue" -out "$work/blast.tsv")
  local t
  t=$(seconds_of "${blast_cmd[@]}")
  pairs "$work/blast.tsv" > "$work/blast.pairs"
  local blast_count
  blast_count=$(wc -l < "$work/blast.pairs")
  row "$program" "$blast_tool" "$t" "$blast_count" - - "${blast_cmd[*]}"
  # warpsearch.
  local ws_cmd=("$ws" search --quiet --device cpu --threads "$threads" --program "$program" -q "$queries" -d "$ws_db"
    --evalue "$evalue" --max-target-seqs 500 --outfmt "6 qseqid sseqid evalue" -o "$work/ws.tsv")
  t=$(seconds_of "${ws_cmd[@]}")
  pairs "$work/ws.tsv" > "$work/ws.pairs"
  row "$program" warpsearch "$t" "$(wc -l < "$work/ws.pairs")" "$(comm -12 "$work/blast.pairs" "$work/ws.pairs" | wc -l)" \
    "$(comm -13 "$work/blast.pairs" "$work/ws.pairs" | wc -l)" "${ws_cmd[*]}"
  # BLAST's pairs warpsearch leaves out, with BLAST's E-value and warpsearch's (searched again at E <= 10):
  # noted after the table.
  comm -23 "$work/blast.pairs" "$work/ws.pairs" > "$work/missed.pairs"
  if [ -s "$work/missed.pairs" ]; then
    "${ws_cmd[@]/$evalue/10}" > /dev/null 2>&1
    while IFS=$'\t' read -r query subject; do
      blast_e=$(awk -F'\t' -v q="$query" -v s="$subject" '$1 == q { split($2, w, " "); if (w[1] == s) { print $3; exit } }' \
        "$work/blast.tsv")
      ws_e=$(awk -F'\t' -v q="$query" -v s="$subject" '$1 == q && $2 == s { print $3; exit }' "$work/ws.tsv")
      notes+=("# $program: BLAST reports $query / $subject at E $blast_e, warpsearch's best at E ${ws_e:-above 10}")
    done < "$work/missed.pairs"
  fi
  # FASTA: -m 8 is BLAST's tabular (qseqid sseqid ... evalue bitscore); keep columns 1, 2, 11.
  local fasta_cmd=("$fasta_tool" -q -m 8 -E "$evalue" -b 500 -d 0 -T "$threads" -s BL62 -f -11 -g -1 "$queries" "$library")
  t=$(seconds_of bash -c "$(printf '%q ' "${fasta_cmd[@]}") > '$work/fasta.m8'")
  awk -F'\t' '!/^#/ && NF >= 11 { print $1 "\t" $2 "\t" $11 }' "$work/fasta.m8" > "$work/fasta.tsv"
  pairs "$work/fasta.tsv" > "$work/fasta.pairs"
  row "$program" "$fasta_tool" "$t" "$(wc -l < "$work/fasta.pairs")" "$(comm -12 "$work/blast.pairs" "$work/fasta.pairs" | wc -l)" \
    "$(comm -13 "$work/blast.pairs" "$work/fasta.pairs" | wc -l)" "${fasta_cmd[*]}"
}

row() {  # program tool seconds pairs found added command
  local gcups
  gcups=$(python3 -c "print(f'{$current_cells / $3 / 1e9:.2f}')")
  printf '%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$current_queries" "$current_database" "$current_cells" \
    "$3" "$gcups" "$4" "$5" "$6" "$7" | sed "s|$work/||g; s|$here/||g" >> "$out"
}

# blastx: the DNA queries' six frames (about 2 x bases amino acids) against the proteins.
current_queries="$(grep -c '>' "$work/contigs.fa") contigs + dna_queries.fa ($(grep -c '>' "$work/dna_queries.fa"), $(residues "$work/dna_queries.fa") nt)"
current_database="uniprot_sample.fa ($(residues "$proteins") aa)"
current_cells=$(python3 -c "print(2 * $(residues "$work/dna_queries.fa") * $(residues "$proteins"))")
run_program blastx "$work/dna_queries.fa" "$current_cells" "$work/proteins.wsdb" "$work/proteins" "$proteins" fastx36 blastx
# tblastn: the proteins against the DNA's six frames.
current_queries="$(grep -c '>' "$work/planted_proteins.fa") planted proteins ($(residues "$work/planted_proteins.fa") aa)"
current_database="$(grep -c '>' "$work/contigs.fa") contigs + dna_sample.fa ($(grep -c '>' "$dna"), $(residues "$dna") nt)"
current_cells=$(python3 -c "print(2 * $(residues "$work/planted_proteins.fa") * $(residues "$dna"))")
run_program tblastn "$work/planted_proteins.fa" "$current_cells" "$work/dna.wsdb" "$work/dna" "$dna" tfastx36 tblastn
# tblastn: the proteins against the genome's six frames.
if [ "$genome_length" -gt 0 ]; then
  current_database="genome.fa (1, $(residues "$work/genome.fa") nt)"
  current_cells=$(python3 -c "print(2 * $(residues "$work/planted_proteins.fa") * $(residues "$work/genome.fa"))")
  run_program tblastn "$work/planted_proteins.fa" "$current_cells" "$work/genome.wsdb" "$work/genome" "$work/genome.fa" \
    tfastx36 tblastn
fi
for note in "${notes[@]}"; do echo "$note" >> "$out"; done
for note in "${notes[@]}"; do echo "$note"; done
