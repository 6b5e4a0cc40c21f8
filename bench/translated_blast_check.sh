#!/usr/bin/env bash
# Translated search against BLAST+: 'warpsearch search --program blastx' on the bundled DNA queries
# (data/dna_queries.fa) against the bundled UniProt sample, and blastx with composition-based statistics and
# SEG off and Smith-Waterman tracebacks (no sum statistics over linked HSPs):
#
#   blastx -query Q -db DB -comp_based_stats 0 -seg no -use_sw_tback -max_target_seqs 500
#
# Both write "qseqid sseqid qstart qend sstart send qframe sframe score evalue bitscore"; for each
# (query, subject, query frame) both report, the best rows are compared column for column. blastx is
# heuristic: it misses hits that the exact search reports, never the reverse (a hit BLAST reports and
# warpsearch does not is a failure).
#
#   bench/translated_blast_check.sh [BUILD_DIR]   (default build)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ws=${1:-$here/build}/tools/warpsearch
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
columns="qseqid sseqid qstart qend sstart send qframe sframe score evalue bitscore"
"$ws" makedb --quiet "$here/data/uniprot_sample.fa" "$work/proteins.wsdb"
makeblastdb -in "$here/data/uniprot_sample.fa" -dbtype prot -out "$work/proteins" > /dev/null
"$ws" search --quiet --device cpu --program blastx -q "$here/data/dna_queries.fa" -d "$work/proteins.wsdb" \
  --outfmt "6 $columns" -o "$work/warpsearch.tsv"
blastx -query "$here/data/dna_queries.fa" -db "$work/proteins" -comp_based_stats 0 -seg no -use_sw_tback \
  -max_target_seqs 500 -outfmt "6 $columns" > "$work/blastx.tsv"
python3 - "$work/warpsearch.tsv" "$work/blastx.tsv" <<'PY'
import sys
def best(path):
    rows = {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        rows.setdefault((f[0], f[1], f[6]), f)
    return rows
ours, blast = best(sys.argv[1]), best(sys.argv[2])
shared = set(ours) & set(blast)
same = sum(ours[k] == blast[k] for k in shared)
print(f"warpsearch {len(ours)} hits, blastx {len(blast)}, both {len(shared)}, identical rows {same}, "
      f"blastx only {len(set(blast) - set(ours))}")
for k in sorted(shared):
    if ours[k] != blast[k]:
        print("differs:", "\t".join(ours[k]), "|", "\t".join(blast[k]))
sys.exit(0 if same == len(shared) and set(blast) <= set(ours) else 1)
PY
