#!/usr/bin/env bash
# Cluster-mode scaling on one CPU machine: 'mpirun -np N warpsearch search --device cpu --threads 1' for N = 1, 2
# and 4 ranks, against the single process with as many threads as cores, on the real protein database of
# bench/make_protein_db.sh (75,000 proteins, 32.7 M residues, 35 MB). Every rank output is compared with the
# single-process output (byte for byte). Two hit counts: the best 10 per query (the scan dominates) and 500
# (aligning the hits weighs more).
#
# The machine may be shared: besides the wall time, the CPU time of all processes is recorded, and the
# work efficiency CPU(1 rank) / CPU(N ranks) says how much work the distribution adds whatever the load.
# Where the time goes comes from rank 0's summary: per rank, the scan (slowest and fastest rank), the
# alignment of the hits that rank in the global top, the waiting in exchanges (imbalance and transfers); on
# rank 0 the merges and the output. Efficiency = T(1 rank) / (N x T(N ranks)) for N up to the core count;
# beyond it the ranks share cores, so the ideal is T(1 rank) / cores.
#
# usage: bench/mpi_scaling.sh [path/to/warpsearch]   (built with -DWARPSEARCH_MPI=ON; default build-mpi/, else build/)
# env:   WORK (scratch, default /tmp/warpsearch-mpi-bench), DB_FASTA (default $WORK/proteins.fa, made by
#        make_protein_db.sh when missing), QUERIES (default data/queries.fa), RANKS (default "1 2 4"),
#        TOPS (default "10 500"), RESULTS (default bench/results/mpi_scaling.tsv, appended)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
binary=${1:-}
if [[ -z $binary ]]; then
  for candidate in "$root/build-mpi/tools/warpsearch" "$root/build/tools/warpsearch"; do
    [[ -x $candidate ]] && { binary=$candidate; break; }
  done
fi
[[ -n $binary && -x $binary ]] || { echo "mpi_scaling: no warpsearch binary (build with -DWARPSEARCH_MPI=ON)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "mpi_scaling: mpirun not found (Debian: openmpi-bin)" >&2; exit 2; }

work=${WORK:-/tmp/warpsearch-mpi-bench}
db_fasta=${DB_FASTA:-$work/proteins.fa}
queries=${QUERIES:-$root/data/queries.fa}
ranks_list=(${RANKS:-1 2 4})
tops=(${TOPS:-10 500})
results=${RESULTS:-$here/results/mpi_scaling.tsv}
cores=$(nproc)
mkdir -p "$work" "$(dirname "$results")"
[[ -r $db_fasta ]] || "$here/make_protein_db.sh" "$work" >&2
db=$work/proteins.wsdb
[[ -d $db ]] || "$binary" makedb --quiet "$db_fasta" "$db"

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
machine="$cpu, $cores cores"
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
subjects=$(grep -c '>' "$db_fasta")
residues=$("$binary" dbinfo "$db" | awk '/^residues/ {gsub(",", "", $2); print $2}')
qres=$(grep -v '>' "$queries" | tr -d '\n\r ' | wc -c)
[[ -s $results ]] || printf 'date\tcommit\tmachine\tdatabase\tqueries\thits_per_query\tranks\tthreads_per_rank\tseconds\tcpu_seconds\tspeedup\tefficiency\twork_efficiency\tGCUPS\tscan_s(min..max)\talign_max_s\twait_max_s\tmerge_s\toutput_s\tidentical\tload1\tcommand\n' > "$results"

# Runs a command; prints its wall seconds and the CPU seconds (user + system) of all its processes; its
# stderr goes to $work/last.err.
timed() {
  /usr/bin/time -f '%e %U %S' -o "$work/last.time" "$@" 2> "$work/last.err" >/dev/null || { cat "$work/last.err" >&2; return 1; }
  awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$work/last.time"
}

for top in "${tops[@]}"; do
  common=(search --device cpu -q "$queries" -d "$db" --max-target-seqs "$top")
  load=$(cut -d' ' -f1 /proc/loadavg)
  read -r single single_cpu < <(timed nice -n 19 "$binary" "${common[@]}" --threads "$cores" -o "$work/single-$top.tsv")
  printf '%s\t%s\t%s\tproteins.fa (%s seqs, %s aa)\t%s (%s aa)\t%s\t1 process\t%s\t%s\t%s\t-\t-\t-\t%.1f\t-\t-\t-\t-\t-\t-\t%s\twarpsearch %s --threads %s\n' \
    "$date" "$commit" "$machine" "$subjects" "$residues" "$(basename "$queries")" "$qres" "$top" "$cores" "$single" "$single_cpu" \
    "$(awk -v q="$qres" -v r="$residues" -v t="$single" 'BEGIN { print q * r / t / 1e9 }')" "$load" "${common[*]}" "$cores" \
    | tee -a "$results"
  one="" one_cpu=""
  for ranks in "${ranks_list[@]}"; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    out=$work/ranks$ranks-$top.tsv
    read -r seconds cpu_seconds < <(timed nice -n 19 mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$binary" "${common[@]}" --threads 1 -o "$out")
    [[ -n $one ]] || { one=$seconds; one_cpu=$cpu_seconds; }
    identical=no
    cmp -s "$out" "$work/single-$top.tsv" && identical=yes
    # "time per rank: scan A..B s, align up to C s, waiting up to D s; rank 0: merge E s, output F s, ..."
    times=$(sed -n 's/.*scan \([0-9.]*\)\.\.\([0-9.]*\) s, align up to \([0-9.]*\) s, waiting up to \([0-9.]*\) s; rank 0: merge \([0-9.]*\) s, output \([0-9.]*\) s.*/\1..\2\t\3\t\4\t\5\t\6/p' "$work/last.err")
    awk -v d="$date" -v c="$commit" -v m="$machine" -v db="proteins.fa ($subjects seqs, $residues aa)" \
        -v qf="$(basename "$queries") ($qres aa)" -v top="$top" -v n="$ranks" -v t="$seconds" -v t1="$one" \
        -v cpu="$cpu_seconds" -v cpu1="$one_cpu" \
        -v cores="$cores" -v q="$qres" -v r="$residues" -v times="$times" -v same="$identical" -v load="$load" \
        -v cmd="mpirun -np $ranks warpsearch ${common[*]} --threads 1" 'BEGIN {
          ideal = n < cores ? n : cores
          printf "%s\t%s\t%s\t%s\t%s\t%s\t%d\t1\t%.3f\t%.3f\t%.2f\t%.2f\t%.2f\t%.1f\t%s\t%s\t%s\t%s\n", d, c, m, db, qf, top,
                 n, t, cpu, t1 / t, t1 / t / ideal, cpu1 / cpu, q * r / t / 1e9, times, same, load, cmd }' | tee -a "$results"
  done
done
