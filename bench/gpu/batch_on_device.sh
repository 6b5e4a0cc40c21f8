#!/usr/bin/env bash
# Batch screening on a GPU machine, from the repository root: the 500 UniProt queries of Debian's
# mmseqs2-examples (QUERY.fasta, 7-4,291 aa) against the 32.7 M-residue real proteome, top 10 and top
# 500 with positions, E-values and alignments, whole command (wall clock), three runs each, alternating
# with CUDASW++ 4.0 (`align --dpx --uploadFull`, scores only) on the same set where its binaries are
# there; and, with carry/bin/warpsearch_prev, the build before, whose output must be the same.
#   bench/gpu/batch_on_device.sh
# Needs carry/bin/warpsearch, carry/data/{proteins33.fa.xz,query500.fa} (query500.fa is
# /usr/share/doc/mmseqs2/example-data/QUERY.fasta.gz unpacked); optionally carry/cudasw/{align,makedb}
# (CUDASW++ 4.0 built for sm_90: its Makefile with -arch=sm_90, src/makedb.cpp compiled as CUDA, `-x cu`,
# which CUDA 13's headers need) and carry/bin/warpsearch_prev. BLOSUM62, gaps 10 + k (CUDASW++'s fixed
# scheme). Writes $OUT/batch.tsv (tool, top, run, seconds) and the summaries.
set -u
OUT=${OUT:-/tmp/warpsearch-out}
mkdir -p "$OUT"
work=/tmp/ws-batch
mkdir -p "$work"
ws=carry/bin/warpsearch
queries=carry/data/query500.fa
[ -s "$work/db.fa" ] || xz -dc carry/data/proteins33.fa.xz > "$work/db.fa"
[ -d "$work/db.wsdb" ] || $ws makedb --quiet "$work/db.fa" "$work/db.wsdb"
cudasw=0
if [[ -x carry/cudasw/align && -x carry/cudasw/makedb ]]; then
  cudasw=1
  [ -f "$work/cs/made" ] || { mkdir -p "$work/cs"; carry/cudasw/makedb "$work/db.fa" "$work/cs/db" > "$work/cs_makedb.log" 2>&1 &&
    touch "$work/cs/made"; }
fi
builds=warpsearch; [[ -x carry/bin/warpsearch_prev ]] && builds="warpsearch_prev warpsearch"
seconds() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.3f", e - s }'; }
printf 'tool\ttop\trun\tseconds\n' > "$OUT/batch.tsv"
$ws search --device gpu -q "$queries" -d "$work/db.wsdb" -o /dev/null 2> /dev/null  # warm-up (page cache)
for top in 10 500; do
  for run in 1 2 3; do
    for build in $builds; do
      s=$(date +%s.%N)
      carry/bin/$build search --device gpu -q "$queries" -d "$work/db.wsdb" --gapopen 10 --gapextend 1 \
        --max-target-seqs $top -o "$work/$build-$top.tsv" 2> "$OUT/$build-$top-$run.err"
      e=$(date +%s.%N)
      printf '%s\t%s\t%s\t%s\n' "$build" $top $run "$(seconds "$s" "$e")" >> "$OUT/batch.tsv"
    done
    if [[ $cudasw == 1 ]]; then
      s=$(date +%s.%N)
      carry/cudasw/align --query "$queries" --db "$work/cs/db" --top $top --dpx --uploadFull > "$work/cs.out" 2> "$OUT/cudasw-$top-$run.err"
      e=$(date +%s.%N)
      printf 'cudasw4\t%s\t%s\t%s\n' $top $run "$(seconds "$s" "$e")" >> "$OUT/batch.tsv"
    fi
  done
  [[ -f $work/warpsearch_prev-$top.tsv ]] && { cmp -s "$work/warpsearch_prev-$top.tsv" "$work/warpsearch-$top.tsv" &&
    echo "top $top: outputs identical ($(wc -l < "$work/warpsearch-$top.tsv") lines)" || echo "top $top: outputs DIFFER"; }
done
cat "$OUT/batch.tsv"
grep -h "warpsearch search: scan" "$OUT"/warpsearch-*-1.err
