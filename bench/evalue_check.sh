#!/usr/bin/env bash
# Checks warpsearch's E-values and bit scores against BLAST+ (blastp) for the same raw scores.
#
# Makes a BLAST database of data/uniprot_sample.fa in a temporary directory, runs blastp
# (-comp_based_stats 0 -seg no, so that BLAST's scores and statistics are the plain Karlin-Altschul
# ones) with data/queries.fa and ../shared/data/cudasw_20.fa for several matrices and gap pairs,
# and pipes its JSON output (-outfmt 15: E-values to 6 significant digits; the tabular -outfmt 6
# prints 2 or 3, too coarse for a 1% check) into bench/evalue_check_bench, which recomputes every
# HSP's E-value and bit score. blastp's default E-value is Spouge's finite-size correction; one run
# sets OLD_FSC=1 to check the length-adjusted formula too.
#
# Usage: bench/evalue_check.sh [BUILD_DIR]   (default build; needs blastp, makeblastdb, blastdbcmd)
# Appends its results to bench/results/evalue_check.tsv.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
checker=$build/bench/evalue_check_bench
results=$root/bench/results/evalue_check.tsv
for tool in blastp makeblastdb blastdbcmd; do
  command -v "$tool" >/dev/null || { echo "evalue_check: $tool not found (Debian: ncbi-blast+)" >&2; exit 2; }
done
[[ -x $checker ]] || { echo "evalue_check: $checker not built" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
makeblastdb -in "$root/data/uniprot_sample.fa" -dbtype prot -out "$work/db" >/dev/null
info=$(blastdbcmd -db "$work/db" -info)
sequences=$(sed -n 's/^[[:space:]]*\([0-9,]*\) sequences;.*/\1/p' <<<"$info" | tr -d ,)
residues=$(sed -n 's/.*sequences; \([0-9,]*\) total residues.*/\1/p' <<<"$info" | tr -d ,)

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
date=$(date -u +%Y-%m-%dT%H:%MZ)
blast_version=$(blastp -version | head -1 | awk '{print $2}')
queries=("$root/data/queries.fa" "$root/../shared/data/cudasw_20.fa")

[[ -s $results ]] || printf 'date\tcommit\tblast\tmatrix\tgaps\tmodel\tqueries\thits\thits_evalue_0\tmax_rel_evalue_diff\tmax_abs_bits_diff\tworst\tcommand\n' >"$results"

status=0
run() {  # matrix open extend model(fsc|length-adjusted) query_file
  local matrix=$1 open=$2 extend=$3 model=$4 query=$5 env=()
  [[ $model == length-adjusted ]] && env=(env OLD_FSC=1)
  local command="blastp -query $(basename "$query") -db uniprot_sample -matrix $matrix -gapopen $open -gapextend $extend -comp_based_stats 0 -seg no -max_target_seqs 100 -outfmt 15"
  local line
  line=$("${env[@]}" blastp -query "$query" -db "$work/db" -matrix "$matrix" -gapopen "$open" -gapextend "$extend" \
           -comp_based_stats 0 -seg no -max_target_seqs 100 -outfmt 15 2>/dev/null |
         "$checker" --matrix "$matrix" --gapopen "$open" --gapextend "$extend" --residues "$residues" \
           --sequences "$sequences" --model "$model") || status=1
  [[ $model == length-adjusted ]] && command="OLD_FSC=1 $command"
  printf '%s\t%s\t%s\t%s\t%s/%s\t%s\t%s\t%s\t%s\n' "$date" "$commit" "$blast_version" "$matrix" "$open" "$extend" \
    "$model" "$(basename "$query")" "$line" "$command" | tee -a "$results"
}

for query in "${queries[@]}"; do
  [[ -s $query ]] || { echo "evalue_check: $query missing, skipped" >&2; continue; }
  run BLOSUM62 11 1 fsc "$query"
  run BLOSUM62 11 1 length-adjusted "$query"
  run BLOSUM62 9 2 fsc "$query"
  run BLOSUM45 14 2 fsc "$query"
  run BLOSUM50 13 2 fsc "$query"
  run BLOSUM80 10 1 fsc "$query"
  run BLOSUM90 10 1 fsc "$query"
  run PAM30 9 1 fsc "$query"
  run PAM70 10 1 fsc "$query"
  run PAM250 14 2 fsc "$query"
done
exit $status
