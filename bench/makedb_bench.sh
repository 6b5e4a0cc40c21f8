#!/usr/bin/env bash
# makedb throughput (MB/s of uncompressed FASTA) and peak memory (max RSS, /usr/bin/time -v), of
# warpsearch and, side by side on the same FASTA, of CUDASW++ 4.0's makedb, at each thread count of
# THREADS. The cases (CASES, default "real synthetic"):
#   real:      Debian's example protein FASTA files (mmseqs2, plast-example) and data/uniprot_sample.fa,
#              concatenated twice (real sequences, ~51 MB), plain and gzip (skipped where the Debian
#              files are missing)
#   synthetic: bench/gen_synthetic_fasta.py, SYNTHETIC_RESIDUES residues (default 4.25 GiB), with the
#              default chunk size and with 256M
#   or, with FASTA=FILE, that file (plain) and its gzip (GZIP=0 skips it): e.g. the 8x
#              bench/make_protein_db.sh set (262 M residues) carried to another machine.
# THREADS (default "1 N", N the CPUs of the machine): warpsearch runs with --threads T, CUDASW++'s makedb
# (OpenMP) with OMP_NUM_THREADS=T, both pinned to T cores (taskset -c 1 for one thread, 0..T-1 for more,
# where taskset exists and the machine has more cores). CUDASW_MAKEDB: CUDASW++ 4.0's makedb binary
# (default carry/bin/makedb where it exists; built from github:asbschmidt/CUDASW4 with
# `nvcc -x cu` as bench/README.md says; it needs no GPU); without it only warpsearch is timed.
# Each case runs RUNS times (default 3) with the input already in the page cache; the run with the best
# wall time is appended as one row to bench/results/makedb.tsv: wall-clock MB/s of the whole command, MB
# per CPU-second (user + system), max RSS, the 1-minute load average before that run, and the disk's
# write bandwidth (dd of DD_MIB MiB with conv=fdatasync in $WORK, measured once at the start). The
# command column names the tool and its threads; CUDASW++ rows have no counts ("-"). Before each run the
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
cases="${CASES:-real synthetic}"
threads_list="${THREADS:-1 $(nproc)}"
cudasw="${CUDASW_MAKEDB:-}"
[[ -z "$cudasw" && -x "$root/carry/bin/makedb" ]] && cudasw="$root/carry/bin/makedb"
if [[ -n "$cudasw" && ! -x "$cudasw" ]]; then
  echo "no CUDASW++ makedb at $cudasw: timing warpsearch alone" >&2
  cudasw=""
fi

[[ -x "$binary" ]] || { echo "no warpsearch binary at $binary (build first)" >&2; exit 1; }
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
mkdir -p "$work" "$(dirname "$results")"
trap 'rm -rf "$work"' EXIT

if [[ -z "${COMMIT:-}" ]]; then
  COMMIT="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  git -C "$root" diff --quiet HEAD -- base core db tools/cmd_makedb.cpp 2>/dev/null || COMMIT+="+dirty"
fi
machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB"
pin_for() {  # pin_for THREADS: the taskset prefix, as words
  local threads="$1"
  if ! command -v taskset >/dev/null || [[ "$(nproc)" -le "$threads" ]]; then return; fi
  if [[ "$threads" -eq 1 ]]; then echo taskset -c 1; else echo taskset -c "0-$((threads - 1))"; fi
}
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

# run TOOL THREADS NAME FASTA UNCOMPRESSED_BYTES [makedb options...]; TOOL: warpsearch or cudasw4
# (which takes no options).
run() {
  local tool="$1" threads="$2" name="$3" fasta="$4" bytes="$5"
  shift 5
  local pin
  read -r -a pin <<<"$(pin_for "$threads")"
  local invocation command
  if [[ "$tool" == warpsearch ]]; then
    invocation=("$binary" makedb --threads "$threads" "$fasta" "$work/db" "$@")
    command="${pin[*]:+${pin[*]} }warpsearch makedb --threads $threads $fasta $work/db${*:+ $*}"
  else
    invocation=(env "OMP_NUM_THREADS=$threads" "${pin[@]}" "$cudasw" "$fasta" "$work/db/db")
    command="OMP_NUM_THREADS=$threads ${pin[*]:+${pin[*]} }cudasw4-makedb $fasta $work/db/db"
    pin=()
  fi
  local best="" best_wall="" best_load="" i
  for ((i = 1; i <= runs; ++i)); do
    rm -rf "$work/db"
    [[ "$tool" == warpsearch ]] || mkdir -p "$work/db"
    cat "$fasta" >/dev/null  # in the page cache, as a file just written or read is
    wait_for_quiet
    local load wall
    load="$(load_now)"
    /usr/bin/time -v "${pin[@]}" "${invocation[@]}" 2>"$work/time.log" >/dev/null
    # "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:20.71": the whole command.
    wall="$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0;
              for (k = 1; k <= n; ++k) s = s * 60 + p[k]; printf "%.2f", s}' "$work/time.log")"
    echo "$tool $threads threads, $name run $i: wall $wall s, load $load; $(grep '^warpsearch makedb:' "$work/time.log" || true)" >&2
    if [[ -z "$best" ]] || awk -v a="$wall" -v b="$best_wall" 'BEGIN {exit !(a < b)}'; then
      best="$(cat "$work/time.log")"
      best_wall="$wall"
      best_load="$load"
    fi
  done
  local summary rss
  summary="$(grep '^warpsearch makedb:' <<<"$best" || true)"
  rss="$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' <<<"$best")"
  # "... N protein sequences, R residues, S skipped, C chunks, T s, M MB/s -> DB"
  local sequences=- residues=- chunks=-
  if [[ -n "$summary" ]]; then
    sequences="$(sed -E 's/.*: ([0-9]+) [a-z]+ sequences.*/\1/' <<<"$summary")"
    residues="$(sed -E 's/.* ([0-9]+) residues.*/\1/' <<<"$summary")"
    chunks="$(sed -E 's/.* ([0-9]+) chunks?,.*/\1/' <<<"$summary")"
  fi
  local megabytes rate cpu cpu_rate
  megabytes="$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1e6}')"
  rate="$(awk -v b="$bytes" -v t="$best_wall" 'BEGIN {printf "%.1f", b / 1e6 / t}')"
  # CPU time (user + system): the wall time also holds waits for the disk and for other processes.
  cpu="$(awk -F': ' '/User time|System time/ {t += $2} END {printf "%.2f", t}' <<<"$best")"
  cpu_rate="$(awk -v b="$bytes" -v t="$cpu" 'BEGIN {printf "%.1f", b / 1e6 / t}')"
  echo "$tool $threads threads, $name: best of $runs: $best_wall s, $rate MB/s wall, $cpu_rate MB per CPU-second, max RSS $rss MiB" >&2
  best_seconds["$tool $threads $name"]="$best_wall"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$COMMIT" "$machine" "$name" "$megabytes" "$sequences" \
    "$residues" "$chunks" "$best_wall" "$rate" "$cpu" "$cpu_rate" "$rss" "$command" "$best_load" \
    "$disk_rate" "$runs" >>"$results"
}

declare -A best_seconds
# Every thread count with warpsearch, then CUDASW++'s makedb, on one case; then the ratios.
case_all() {  # case_all NAME FASTA UNCOMPRESSED_BYTES [warpsearch makedb options...]
  local name="$1" fasta="$2" bytes="$3" threads
  shift 3
  for threads in $threads_list; do
    run warpsearch "$threads" "$name" "$fasta" "$bytes" "$@"
    # CUDASW++ has no chunk size option: only the default-chunk cases.
    [[ -n "$cudasw" && $# -eq 0 ]] || continue
    run cudasw4 "$threads" "$name" "$fasta" "$bytes"
    awk -v w="${best_seconds["warpsearch $threads $name"]}" -v c="${best_seconds["cudasw4 $threads $name"]}" \
      -v label="$name, $threads threads" 'BEGIN {printf "%s: warpsearch %.2f s, CUDASW++ %.2f s: %.2fx\n", label, w, c, c / w}' >&2
  done
}

if [[ -n "${FASTA:-}" ]]; then
  [[ -s "$FASTA" ]] || { echo "no FASTA at $FASTA" >&2; exit 1; }
  name="$(basename "$FASTA")"
  cp "$FASTA" "$work/$name"  # on the scratch disk, as the default cases
  input_bytes="$(stat -c %s "$work/$name")"
  case_all "$name" "$work/$name" "$input_bytes"
  if [[ "${GZIP:-1}" != 0 ]]; then
    gzip -6 -c "$work/$name" >"$work/$name.gz"
    case_all "$name-gzip" "$work/$name.gz" "$input_bytes"
  fi
  exit 0
fi

if [[ " $cases " == *" real "* && -s /usr/share/doc/mmseqs2/example-data/DB.fasta.gz &&
      -s /usr/share/doc/plast-example/db/tursiops.fa.gz ]]; then
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
case_all real "$real" "$real_bytes"
case_all real-gzip "$real.gz" "$real_bytes"
rm -f "$real" "$real.gz"
fi

# Synthetic: more than 4 GiB of residues, default and small chunks.
[[ " $cases " == *" synthetic "* ]] || exit 0
synthetic="$work/synthetic.fa"
python3 "$here/gen_synthetic_fasta.py" "$synthetic" "$synthetic_residues" 1
synthetic_bytes="$(stat -c %s "$synthetic")"
sync
case_all synthetic-4G "$synthetic" "$synthetic_bytes"
case_all synthetic-4G-chunk256M "$synthetic" "$synthetic_bytes" --chunk-size 256M
