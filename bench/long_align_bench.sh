#!/usr/bin/env bash
# Benchmark of long pair alignment (docs/long_alignment.md): `warpsearch align --device cpu|gpu
# --cigar` in global and local mode on one generated pair of related DNA sequences per size (default
# 100 kb, 300 kb and 1 Mb): a random sequence and a copy with 4% substitutions and 0.5% insertions and
# 0.5% deletions of 1..8 bases. A size is skipped when the previous one's CPU time (GPU: wall time),
# scaled by the square of the length ratio, predicts more than --max-seconds (default 180).
# Each run records wall time, GCUPS (query x target / seconds / 1e9, the whole command: reading, both
# passes, the traceback, writing), CPU seconds (user + system: what the command took on a shared
# machine) and peak resident memory (GNU time's "Maximum resident set size", or Python's getrusage), with
# the command, commit, machine, load and date, appended to the results file (default
# bench/results/long_align_cpu.tsv, or long_align_gpu.tsv with --device gpu).
#
# usage: bench/long_align_bench.sh [--binary PATH] [--data DIR] [--sizes "100000 300000 1000000"]
#                                  [--modes "global local"] [--max-seconds S] [--out FILE] [--note TEXT]
#                                  [--device cpu|gpu]
#   --binary   the warpsearch tool (default: build/tools/warpsearch, or $WARPSEARCH)
#   --data     where the pairs are made, once, and reused (default: ${TMPDIR:-/tmp}/warpsearch-long-align)
#   --note     free text for the results' note column (e.g. "2 shared cores, load 5")
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
binary=${WARPSEARCH:-$root/build/tools/warpsearch} data=${TMPDIR:-/tmp}/warpsearch-long-align
sizes="100000 300000 1000000" modes="global local" max_seconds=180 out="" note="" device=cpu
while [[ $# -gt 0 ]]; do
  case $1 in
    --binary) binary=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --max-seconds) max_seconds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --note) note=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "long_align_bench: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done
[[ -x $binary ]] || { echo "long_align_bench: no warpsearch binary at $binary (--binary PATH)" >&2; exit 2; }
# Wall time, CPU time and peak memory of a command, in GNU time's -v lines: GNU time where it is
# installed (Debian package `time`), else the same three figures from Python's resource module.
timed() {
  local report=$1
  shift
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -v -o "$report" "$@"
  else
    python3 - "$report" "$@" <<'PYTHON'
import resource, subprocess, sys, time
start = time.monotonic()
status = subprocess.call(sys.argv[2:])
wall = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as report:
    report.write(f"User time (seconds): {usage.ru_utime:.2f}\nSystem time (seconds): {usage.ru_stime:.2f}\n")
    report.write(f"Elapsed (wall clock) time (h:mm:ss or m:ss): {int(wall // 60)}:{wall % 60:05.2f}\n")
    report.write(f"Maximum resident set size (kbytes): {usage.ru_maxrss}\n")
sys.exit(status)
PYTHON
  fi
}
[[ -n $out ]] || out=$root/bench/results/long_align_$device.tsv
mkdir -p "$data"

# One related pair per size, made once (seeded: the same pair on every machine).
make_pair() {
  python3 - "$1" "$data/pair_$1" <<'PYTHON'
import random, sys
length, prefix = int(sys.argv[1]), sys.argv[2]
rng = random.Random(length)
query = "".join(rng.choice("ACGT") for _ in range(length))
target = []
i = 0
while i < length:
    x = rng.random()
    if x < 0.04:
        target.append(rng.choice("ACGT".replace(query[i], "")))
    elif x < 0.045:
        target.extend(rng.choice("ACGT") for _ in range(rng.randint(1, 8)))
        target.append(query[i])
    elif x < 0.05:
        i += rng.randint(1, 8) - 1
    else:
        target.append(query[i])
    i += 1
for name, sequence in (("query", query), ("target", "".join(target))):
    with open(f"{prefix}_{name}.fa", "w") as out:
        out.write(f">{name}_{length}\n")
        for k in range(0, len(sequence), 80):
            out.write(sequence[k:k + 80] + "\n")
PYTHON
}

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git -C "$root" diff --quiet HEAD 2>/dev/null; then commit="$commit+changes"; fi
cpu_model=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
cores=$(nproc)
if [[ ! -s $out ]]; then
  mkdir -p "$(dirname "$out")"
  printf 'date\tcommit\tcpu\tcores\tload\tmode\tquery_length\ttarget_length\tscore\tseconds\tcpu_seconds\tgcups\tpeak_rss_mb\tnote\tcommand\n' >"$out"
fi

residues() { grep -v '^>' "$1" | tr -d '\n' | wc -c; }

for mode in $modes; do
  previous_size=0 previous_seconds=0
  for size in $sizes; do
    if [[ $previous_size -gt 0 ]]; then
      predicted=$(awk -v s="$previous_seconds" -v a="$previous_size" -v b="$size" 'BEGIN { printf "%.0f", s * (b / a) ^ 2 }')
      if [[ $predicted -gt $max_seconds ]]; then
        echo "long_align_bench: $mode $size skipped (predicted ${predicted} s > ${max_seconds} s)" >&2
        continue
      fi
    fi
    [[ -s $data/pair_${size}_target.fa ]] || make_pair "$size"
    query=$data/pair_${size}_query.fa target=$data/pair_${size}_target.fa
    m=$(residues "$query") n=$(residues "$target")
    command=("$binary" align --device "$device" --mode "$mode" --cigar --quiet --query "$query" --target "$target"
             -o "$data/out_${mode}_$size.tsv")
    timed "$data/time_${mode}_$size.txt" "${command[@]}"
    load=$(cut -d' ' -f1 /proc/loadavg)  # at the end of the run
    seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (k = 1; k <= n; ++k) s = s * 60 + t[k]; printf "%.2f", s }' \
              "$data/time_${mode}_$size.txt")
    cpu_seconds=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$data/time_${mode}_$size.txt")
    rss_mb=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$data/time_${mode}_$size.txt")
    gcups=$(awk -v m="$m" -v n="$n" -v s="$seconds" 'BEGIN { printf "%.3f", m * n / s / 1e9 }')
    score=$(awk -F'\t' 'NR == 1 { for (k = 1; k <= NF; ++k) if ($k == "score") column = k; next } { print $column; exit }' \
            "$data/out_${mode}_$size.tsv")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" \
      "$cpu_model" "$cores" "$load" "$mode" "$m" "$n" "${score:-?}" "$seconds" "$cpu_seconds" "$gcups" "$rss_mb" "$note" \
      "${command[*]}" >>"$out"
    printf '%-7s %8s x %8s  %8s s (%s s CPU)  %7s GCUPS  %8s MB peak  score %s\n' "$mode" "$m" "$n" "$seconds" \
      "$cpu_seconds" "$gcups" "$rss_mb" "${score:-?}"
    # The CPU's time predicts the next size on the CPU; on the GPU the wall time does.
    previous_size=$size previous_seconds=$([[ $device == gpu ]] && echo "$seconds" || echo "$cpu_seconds")
  done
done
