#!/usr/bin/env bash
# makedb throughput (MB/s of uncompressed FASTA) and peak memory (max RSS, /usr/bin/time -v) on
#   real:      Debian's example protein FASTA files (mmseqs2, plast-example) and data/uniprot_sample.fa,
#              concatenated twice (real sequences, ~51 MB)
#   synthetic: bench/gen_synthetic_fasta.py, SYNTHETIC_RESIDUES residues (default 4.25 GiB)
# Appends one row per run to bench/results/makedb.tsv. Scratch files go to $WORK (default
# /tmp/warpsearch-makedb-bench) and are deleted at the end.
#
# usage: bench/makedb_bench.sh [path/to/warpsearch]      (default: build-db/tools/warpsearch)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
binary="${1:-$root/build-db/tools/warpsearch}"
work="${WORK:-/tmp/warpsearch-makedb-bench}"
synthetic_residues="${SYNTHETIC_RESIDUES:-4352M}"
results="$here/results/makedb.tsv"

[[ -x "$binary" ]] || { echo "no warpsearch binary at $binary (build first)" >&2; exit 1; }
mkdir -p "$work" "$(dirname "$results")"
trap 'rm -rf "$work"' EXIT

commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB"
if [[ ! -s "$results" ]]; then
  printf 'date\tcommit\tmachine\tinput\tinput_MB\tsequences\tresidues\tchunks\tseconds\tMB_per_s\tcpu_seconds\tMB_per_cpu_s\tmax_rss_MiB\tcommand\n' >"$results"
fi

run() {  # run NAME FASTA UNCOMPRESSED_BYTES [makedb options...]
  local name="$1" fasta="$2" bytes="$3"
  shift 3
  rm -rf "$work/db"
  local command="warpsearch makedb $fasta $work/db $*"
  /usr/bin/time -v "$binary" makedb "$fasta" "$work/db" "$@" 2>"$work/time.log"
  local summary rss
  summary="$(grep '^warpsearch makedb:' "$work/time.log")"
  rss="$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/time.log")"
  echo "$name: $summary; max RSS $rss MiB" >&2
  # "... N protein sequences, R residues, S skipped, C chunks, T s, M MB/s -> DB"
  local sequences residues chunks seconds rate
  sequences="$(sed -E 's/.*: ([0-9]+) [a-z]+ sequences.*/\1/' <<<"$summary")"
  residues="$(sed -E 's/.* ([0-9]+) residues.*/\1/' <<<"$summary")"
  chunks="$(sed -E 's/.* ([0-9]+) chunks?,.*/\1/' <<<"$summary")"
  seconds="$(sed -E 's/.* ([0-9.]+) s, .*/\1/' <<<"$summary")"
  rate="$(sed -E 's/.* ([0-9.]+) MB\/s.*/\1/' <<<"$summary")"
  local megabytes cpu cpu_rate
  megabytes="$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1e6}')"
  # CPU time (user + system): the wall time also holds waits for the disk and for other processes.
  cpu="$(awk -F': ' '/User time|System time/ {t += $2} END {printf "%.2f", t}' "$work/time.log")"
  cpu_rate="$(awk -v b="$bytes" -v t="$cpu" 'BEGIN {printf "%.1f", b / 1e6 / t}')"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    "$commit" "$machine" "$name" "$megabytes" "$sequences" "$residues" "$chunks" "$seconds" "$rate" \
    "$cpu" "$cpu_rate" "$rss" "$command" >>"$results"
}

# Real protein sequences.
real="$work/real.fa"
: >"$real"
for _ in 1 2; do
  zcat /usr/share/doc/mmseqs2/example-data/DB.fasta.gz >>"$real"
  zcat /usr/share/doc/plast-example/db/tursiops.fa.gz >>"$real"
  cat "$root/data/uniprot_sample.fa" >>"$real"
done
real_bytes="$(stat -c %s "$real")"
gzip -6 -c "$real" >"$real.gz"
sync
run real "$real" "$real_bytes"
run real-gzip "$real.gz" "$real_bytes"
rm -f "$real" "$real.gz"

# Synthetic: more than 4 GiB of residues, default and small chunks.
synthetic="$work/synthetic.fa"
python3 "$here/gen_synthetic_fasta.py" "$synthetic" "$synthetic_residues" 1
synthetic_bytes="$(stat -c %s "$synthetic")"
sync
run synthetic-4G "$synthetic" "$synthetic_bytes"
run synthetic-4G-chunk256M "$synthetic" "$synthetic_bytes" --chunk-size 256M
