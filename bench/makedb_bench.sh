#!/usr/bin/env bash
# makedb throughput (MB/s of uncompressed FASTA) and peak memory (max RSS, /usr/bin/time -v) on
#   real:      Debian's example protein FASTA files (mmseqs2, plast-example) and data/uniprot_sample.fa,
#              concatenated twice (real sequences, ~51 MB), plain and gzip
#   synthetic: bench/gen_synthetic_fasta.py, SYNTHETIC_RESIDUES residues (default 4.25 GiB), with the
#              default chunk size and with 256M
# Each case runs RUNS times (default 3) on one core (taskset -c 1, where taskset and a second core
# exist) with the input already in the page cache; the run with the best wall time is appended as one
# row to bench/results/makedb.tsv: wall-clock MB/s of the whole command, MB per CPU-second (user +
# system), max RSS, the 1-minute load average before that run, and the disk's write bandwidth
# (dd of DD_MIB MiB with conv=fdatasync in $WORK, measured once at the start). Before each run the
# script waits (up to 10 minutes) for the load average to fall below MAX_LOAD (default 1.0): other
# people's builds on a shared machine slow every number down.
# Scratch files go to $WORK (default /tmp/warpsearch-makedb-bench) and are deleted at the end.
#
# usage: bench/makedb_bench.sh [path/to/warpsearch]      (default: build-db/tools/warpsearch)
#   COMMIT=... labels the rows (default: the checkout's commit, "+dirty" if base/, core/ or db/ have local changes)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
binary="${1:-$root/build-db/tools/warpsearch}"
work="${WORK:-/tmp/warpsearch-makedb-bench}"
synthetic_residues="${SYNTHETIC_RESIDUES:-4352M}"
runs="${RUNS:-3}"
max_load="${MAX_LOAD:-1.0}"
dd_mib="${DD_MIB:-4096}"
results="$here/results/makedb.tsv"

[[ -x "$binary" ]] || { echo "no warpsearch binary at $binary (build first)" >&2; exit 1; }
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
mkdir -p "$work" "$(dirname "$results")"
trap 'rm -rf "$work"' EXIT

if [[ -z "${COMMIT:-}" ]]; then
  COMMIT="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  git -C "$root" diff --quiet HEAD -- base core db tools/cmd_makedb.cpp 2>/dev/null || COMMIT+="+dirty"
fi
machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB"
pin=()
if command -v taskset >/dev/null && [[ "$(nproc)" -gt 1 ]]; then pin=(taskset -c 1); fi
header='date\tcommit\tmachine\tinput\tinput_MB\tsequences\tresidues\tchunks\tseconds\tMB_per_s\tcpu_seconds\tMB_per_cpu_s\tmax_rss_MiB\tcommand\tload\tdisk_write_MB_s\truns\n'
[[ -s "$results" ]] || printf "$header" >"$results"

load_now() { cut -d' ' -f1 /proc/loadavg; }
wait_for_quiet() {
  local waited=0
  while awk -v l="$(load_now)" -v m="$max_load" 'BEGIN {exit !(l >= m)}' && ((waited < 600)); do
    sleep 10
    waited=$((waited + 10))
  done
}

# Write bandwidth of the disk under $work, through the page cache and flushed (what the database's
# fsync waits for).
dd if=/dev/zero of="$work/dd.test" bs=1M count="$dd_mib" conv=fdatasync 2>"$work/dd.log"
disk_rate="$(awk '/copied/ {print $(NF-1) * ($NF == "GB/s" ? 1000 : 1)}' "$work/dd.log")"
rm -f "$work/dd.test"
echo "disk write (dd conv=fdatasync, $dd_mib MiB): $disk_rate MB/s" >&2

run() {  # run NAME FASTA UNCOMPRESSED_BYTES [makedb options...]
  local name="$1" fasta="$2" bytes="$3"
  shift 3
  local command="${pin[*]:+${pin[*]} }warpsearch makedb $fasta $work/db${*:+ $*}"
  local best="" best_wall="" best_load="" i
  for ((i = 1; i <= runs; ++i)); do
    rm -rf "$work/db"
    cat "$fasta" >/dev/null  # in the page cache, as a file just written or read is
    wait_for_quiet
    local load wall
    load="$(load_now)"
    /usr/bin/time -v "${pin[@]}" "$binary" makedb "$fasta" "$work/db" "$@" 2>"$work/time.log"
    # "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:20.71": the whole command.
    wall="$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0;
              for (k = 1; k <= n; ++k) s = s * 60 + p[k]; printf "%.2f", s}' "$work/time.log")"
    echo "$name run $i: wall $wall s, load $load; $(grep '^warpsearch makedb:' "$work/time.log")" >&2
    if [[ -z "$best" ]] || awk -v a="$wall" -v b="$best_wall" 'BEGIN {exit !(a < b)}'; then
      best="$(cat "$work/time.log")"
      best_wall="$wall"
      best_load="$load"
    fi
  done
  local summary rss
  summary="$(grep '^warpsearch makedb:' <<<"$best")"
  rss="$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' <<<"$best")"
  # "... N protein sequences, R residues, S skipped, C chunks, T s, M MB/s -> DB"
  local sequences residues chunks
  sequences="$(sed -E 's/.*: ([0-9]+) [a-z]+ sequences.*/\1/' <<<"$summary")"
  residues="$(sed -E 's/.* ([0-9]+) residues.*/\1/' <<<"$summary")"
  chunks="$(sed -E 's/.* ([0-9]+) chunks?,.*/\1/' <<<"$summary")"
  local megabytes rate cpu cpu_rate
  megabytes="$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1e6}')"
  rate="$(awk -v b="$bytes" -v t="$best_wall" 'BEGIN {printf "%.1f", b / 1e6 / t}')"
  # CPU time (user + system): the wall time also holds waits for the disk and for other processes.
  cpu="$(awk -F': ' '/User time|System time/ {t += $2} END {printf "%.2f", t}' <<<"$best")"
  cpu_rate="$(awk -v b="$bytes" -v t="$cpu" 'BEGIN {printf "%.1f", b / 1e6 / t}')"
  echo "$name: best of $runs: $rate MB/s wall, $cpu_rate MB per CPU-second, max RSS $rss MiB" >&2
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$COMMIT" "$machine" "$name" "$megabytes" "$sequences" \
    "$residues" "$chunks" "$best_wall" "$rate" "$cpu" "$cpu_rate" "$rss" "$command" "$best_load" \
    "$disk_rate" "$runs" >>"$results"
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
