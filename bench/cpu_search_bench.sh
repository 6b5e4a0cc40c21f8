#!/usr/bin/env bash
# Whole-command CPU search speed, side by side in one run: 'warpsearch search --device cpu', ssearch36 and
# parasail_aligner, each with 2 threads, BLOSUM62 and BLAST's gap costs 11/1, every query of
# shared/data/cudasw_20.fa (144..5478 aa) run as its own command against the real protein database of
# bench/make_protein_db.sh (75,000 proteins, 32.7 M residues). Each time is the wall time of the whole
# command: starting, reading the database and the query, scanning, aligning and writing the hits.
#   GCUPS = query length x database residues / seconds / 1e9   (per query; "mean" is the mean of the per-query
#   figures, "aggregate" is all cells over all seconds)
#
#   warpsearch search -q Q -d DB --device cpu --threads 2 -o out.tsv          (default: 500 hits, E <= 10,
#       BLAST tabular with alignments; DB made once beforehand by 'warpsearch makedb', timed separately)
#   ssearch36 -q -m 9 -d 0 -b =500 -z 0 -T 2 -p -s BL62 -f -11 -g -1 Q proteins.fa
#       (the 500 best by raw score with their alignment coordinates)
#   parasail_aligner -t 2 -x -a METHOD -o 12 -e 1 -m blosum62 -f proteins.fa -g out.csv < Q
#       (parasail's gap open 12 = BLAST's 11 + 1; -x: every pair, no k-mer filter). METHOD is the fastest of
#       sw_striped_sat, sw_scan_sat and sw_diag_sat on three of the queries (464, 1500, 5478 aa), tried
#       first and recorded as "select" rows; the full run uses the winner.
# The best of REPEATS runs (default 1) is kept for each command. The 1-minute load average before each run
# is recorded: the machine is shared, compare only rows measured at a low load.
#
# usage: bench/cpu_search_bench.sh [path/to/warpsearch]   (default: build-bench/tools/warpsearch, else build/)
# env:   WORK (scratch and database directory, default /tmp/warpsearch-cpu-bench, kept for re-runs),
#        REPEATS (default 1), QUERIES (FASTA, default shared/data/cudasw_20.fa), DB_FASTA (default
#        $WORK/proteins.fa, made by make_protein_db.sh when missing), PARASAIL_METHODS (space-separated list
#        to try, default "sw_striped_sat sw_scan_sat sw_diag_sat"), THREADS (default 2), RESULTS (the TSV)
# Appends per-query rows and summary rows to bench/results/cpu_search.tsv (GCUPS column: for the rows
# "warpsearch/ssearch36" and "warpsearch/parasail" it holds the ratio of the means or of the aggregates).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
binary=${1:-}
if [[ -z $binary ]]; then
  for candidate in "$root/build-bench/tools/warpsearch" "$root/build/tools/warpsearch"; do
    [[ -x $candidate ]] && { binary=$candidate; break; }
  done
fi
[[ -n $binary && -x $binary ]] || { echo "cpu_search_bench: no warpsearch binary (build first, or pass its path)" >&2; exit 2; }
for tool in ssearch36 parasail_aligner; do
  command -v $tool >/dev/null || { echo "cpu_search_bench: $tool not found (Debian: fasta3, parasail)" >&2; exit 2; }
done

work=${WORK:-/tmp/warpsearch-cpu-bench}
repeats=${REPEATS:-1}
threads=${THREADS:-2}
queries=${QUERIES:-$root/../shared/data/cudasw_20.fa}
db_fasta=${DB_FASTA:-$work/proteins.fa}
methods=(${PARASAIL_METHODS:-sw_striped_sat sw_scan_sat sw_diag_sat})
results=${RESULTS:-$here/results/cpu_search.tsv}
mkdir -p "$work/queries" "$(dirname "$results")"

[[ -s $db_fasta ]] || "$here/make_protein_db.sh" "$(dirname "$db_fasta")" >&2
read -r db_sequences db_residues < <(awk '/^>/ { n++; next } { r += length($0) } END { print n, r }' "$db_fasta")
db_name="$(basename "$db_fasta") ($db_sequences seqs, $db_residues aa)"

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
cpu="$(lscpu | sed -n 's/^Model name: *//p' | head -1) (family $(lscpu | sed -n 's/^CPU family: *//p' | head -1) model $(lscpu | sed -n 's/^Model: *//p' | head -1)), $(nproc) cores"
flags=$(grep -m1 '^flags' /proc/cpuinfo)
for f in avx512bw avx2; do [[ $flags == *" $f"* ]] && { cpu="$cpu, $f"; break; }; done
run_id=$(date -u +%Y-%m-%dT%H:%M:%SZ)
[[ -s $results ]] || printf 'run\tcommit\tcpu\tdatabase\tphase\ttool\tquery\tqlen\tseconds\tGCUPS\tload1\tcommand\n' >"$results"

# One FASTA per query, and its length.
names=() lengths=()
rm -f "$work"/queries/q*.fa
awk -v dir="$work/queries" '/^>/ { n++; f = sprintf("%s/q%02d.fa", dir, n) } { print > f }' "$queries"
for f in "$work"/queries/q*.fa; do
  names+=("$(head -1 "$f" | cut -c2- | awk '{print $1}')")
  lengths+=("$(grep -v '^>' "$f" | tr -d '\n\r ' | wc -c)")
done
nq=${#names[@]}

# warpsearch's database, made once (its time is recorded apart from the searches).
dbdir=$work/warpsearch-db
if [[ ! -d $dbdir || $db_fasta -nt $dbdir ]]; then
  rm -rf "$dbdir"
  t0=$(date +%s.%N)
  "$binary" makedb "$db_fasta" "$dbdir" --quiet
  t1=$(date +%s.%N)
  printf '%s\t%s\t%s\t%s\tmakedb\twarpsearch makedb\t-\t-\t%.2f\t-\t%s\twarpsearch makedb %s DB\n' "$run_id" "$commit" \
    "$cpu" "$db_name" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$(cut -d' ' -f1 /proc/loadavg)" \
    "$(basename "$db_fasta")" >>"$results"
fi

best_seconds=
timed() {  # timed COMMAND...: best wall seconds of $repeats runs into best_seconds; load before the first run
  best_seconds= load_before=$(cut -d' ' -f1 /proc/loadavg)
  local r t0 t1 s
  for ((r = 0; r < repeats; r++)); do
    t0=$(date +%s.%N)
    "$@"
    t1=$(date +%s.%N)
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')
    if [[ -z $best_seconds ]] || awk -v s="$s" -v b="$best_seconds" 'BEGIN {exit !(s < b)}'; then best_seconds=$s; fi
  done
}
record() {  # record PHASE TOOL QUERY QLEN COMMAND
  local gcups
  gcups=$(awk -v q="$4" -v n="$db_residues" -v s="$best_seconds" 'BEGIN {printf "%.2f", q * n / s / 1e9}')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$run_id" "$commit" "$cpu" "$db_name" "$1" "$2" "$3" "$4" \
    "$best_seconds" "$gcups" "$load_before" "$5" >>"$results"
  printf '  %-24s %-24s %5s aa  %8ss  %7s GCUPS  (load %s)\n' "$2" "$3" "$4" "$best_seconds" "$gcups" "$load_before" >&2
}

run_warpsearch() { "$binary" search -q "$1" -d "$dbdir" --device cpu --threads "$threads" --quiet -o "$work/warpsearch.tsv"; }
run_ssearch() { ssearch36 -q -m 9 -d 0 -b =500 -z 0 -T "$threads" -p -s BL62 -f -11 -g -1 "$1" "$db_fasta" >"$work/ssearch.out"; }
run_parasail() { parasail_aligner -t "$threads" -x -a "$2" -o 12 -e 1 -m blosum62 -f "$db_fasta" -g "$work/parasail.csv" <"$1" >/dev/null; }
ws_command="warpsearch search -q Q -d DB --device cpu --threads $threads -o out.tsv"
ss_command="ssearch36 -q -m 9 -d 0 -b =500 -z 0 -T $threads -p -s BL62 -f -11 -g -1 Q $(basename "$db_fasta")"
pa_command() { echo "parasail_aligner -t $threads -x -a $1 -o 12 -e 1 -m blosum62 -f $(basename "$db_fasta") -g out.csv < Q"; }

# Warm the page cache.
cat "$db_fasta" "$dbdir"/* >/dev/null 2>&1 || true

# parasail: pick the fastest method on three queries (the ones nearest 464, 1500 and 5478 aa).
echo "cpu_search_bench: choosing parasail's method" >&2
select_queries=()
for target in 464 1500 5478; do
  best_i=0
  for ((i = 0; i < nq; i++)); do
    d=$(( lengths[i] > target ? lengths[i] - target : target - lengths[i] ))
    db=$(( lengths[best_i] > target ? lengths[best_i] - target : target - lengths[best_i] ))
    (( d < db )) && best_i=$i
  done
  select_queries+=("$best_i")
done
method=${methods[0]}
best_total=
for m in "${methods[@]}"; do
  total=0
  for i in "${select_queries[@]}"; do
    f=$(printf '%s/queries/q%02d.fa' "$work" $((i + 1)))
    timed run_parasail "$f" "$m"
    record select "parasail $m" "${names[i]}" "${lengths[i]}" "$(pa_command "$m")"
    total=$(awk -v t="$total" -v s="$best_seconds" 'BEGIN {print t + s}')
  done
  if [[ -z $best_total ]] || awk -v s="$total" -v b="$best_total" 'BEGIN {exit !(s < b)}'; then
    best_total=$total method=$m
  fi
done
echo "cpu_search_bench: parasail method $method" >&2

declare -A sum_gcups=() sum_seconds=()
cells=0
for ((i = 0; i < nq; i++)); do
  f=$(printf '%s/queries/q%02d.fa' "$work" $((i + 1)))
  cells=$(awk -v c="$cells" -v q="${lengths[i]}" -v n="$db_residues" 'BEGIN {printf "%.0f", c + q * n}')
  echo "query $((i + 1))/$nq ${names[i]} (${lengths[i]} aa)" >&2
  for tool in warpsearch ssearch36 parasail; do
    case $tool in
      warpsearch) timed run_warpsearch "$f"; record query warpsearch "${names[i]}" "${lengths[i]}" "$ws_command" ;;
      ssearch36) timed run_ssearch "$f"; record query ssearch36 "${names[i]}" "${lengths[i]}" "$ss_command" ;;
      parasail) timed run_parasail "$f" "$method"; record query "parasail $method" "${names[i]}" "${lengths[i]}" "$(pa_command "$method")" ;;
    esac
    g=$(awk -v q="${lengths[i]}" -v n="$db_residues" -v s="$best_seconds" 'BEGIN {print q * n / s / 1e9}')
    sum_gcups[$tool]=$(awk -v a="${sum_gcups[$tool]:-0}" -v g="$g" 'BEGIN {print a + g}')
    sum_seconds[$tool]=$(awk -v a="${sum_seconds[$tool]:-0}" -v s="$best_seconds" 'BEGIN {print a + s}')
  done
done

# warpsearch with all the queries in one command, as it is meant to be used.
echo "all $nq queries in one warpsearch command" >&2
timed run_warpsearch "$queries"
total_len=$(IFS=+; echo $(( ${lengths[*]} )))
record batch warpsearch "all $nq in one command" "$total_len" \
  "warpsearch search -q $(basename "$queries") -d DB --device cpu --threads $threads -o out.tsv"

load_now=$(cut -d' ' -f1 /proc/loadavg)
summary() {  # summary TOOL LABEL VALUE SECONDS COMMAND
  printf '%s\t%s\t%s\t%s\tsummary\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$run_id" "$commit" "$cpu" "$db_name" "$1" "$2" \
    "$total_len" "$4" "$3" "$load_now" "$5" >>"$results"
  printf '  %-24s %-36s %8s\n' "$1" "$2" "$3" >&2
}
echo "summary" >&2
declare -A mean=() aggregate=()
for tool in warpsearch ssearch36 parasail; do
  mean[$tool]=$(awk -v s="${sum_gcups[$tool]}" -v n="$nq" 'BEGIN {printf "%.2f", s / n}')
  aggregate[$tool]=$(awk -v c="$cells" -v s="${sum_seconds[$tool]}" 'BEGIN {printf "%.2f", c / s / 1e9}')
  label=$tool; [[ $tool == parasail ]] && label="parasail $method"
  summary "$label" "mean of $nq per-query GCUPS" "${mean[$tool]}" "${sum_seconds[$tool]}" "per query as above"
  summary "$label" "aggregate (all cells / all seconds)" "${aggregate[$tool]}" "${sum_seconds[$tool]}" "per query as above"
done
summary "warpsearch/ssearch36" "ratio of means" \
  "$(awk -v a="${mean[warpsearch]}" -v b="${mean[ssearch36]}" 'BEGIN {printf "%.2f", a / b}')" - "-"
summary "warpsearch/parasail" "ratio of means" \
  "$(awk -v a="${mean[warpsearch]}" -v b="${mean[parasail]}" 'BEGIN {printf "%.2f", a / b}')" - "-"
summary "warpsearch/ssearch36" "ratio of aggregates" \
  "$(awk -v a="${aggregate[warpsearch]}" -v b="${aggregate[ssearch36]}" 'BEGIN {printf "%.2f", a / b}')" - "-"
summary "warpsearch/parasail" "ratio of aggregates" \
  "$(awk -v a="${aggregate[warpsearch]}" -v b="${aggregate[parasail]}" 'BEGIN {printf "%.2f", a / b}')" - "-"
