#!/usr/bin/env bash
# Benchmark of `warpsearch align` (docs/align.md), whole commands (read the FASTA files, align, write):
#   1. local mode, start and end (no traceback), on N real protein pairs of 100..1,000 residues
#      (default 100,000, drawn from data/uniprot_sample.fa by bench/align_make_data.py);
#   2. X-drop, X = 50 and X = 100, on N read pairs of 5..10 kb at about 15% divergence simulated from the
#      lambda phage genome of Debian's bowtie2-examples (default 10,000 pairs; seeds: a shared 17-mer).
# GCUPS: local = sum of query x target lengths / seconds; X-drop = cells computed (the bands the drop-off
# leaves, as LOGAN counts them) / seconds. Pairs/s = pairs / seconds. Seconds are the command's wall time.
# Rows are appended to the results file (default bench/results/align_cpu.tsv, or align_gpu.tsv with
# --device gpu), with the machine and its load average at the end of each run. The summary line names
# the engine each workload ran on.
#
# usage: bench/align_bench.sh [--device cpu|gpu] [--threads N] [--binary PATH] [--data DIR] [--genome FILE]
#                             [--protein-pairs N] [--read-pairs N] [--out FILE] [--note TEXT]
#   --binary   the warpsearch tool (default: build/tools/warpsearch, or $WARPSEARCH)
#   --data     where the inputs are made, once, and reused (default: ${TMPDIR:-/tmp}/warpsearch-align-bench)
#   --genome   the genome FASTA (.gz too) for the reads; default: bowtie2-examples' lambda_virus.fa.gz,
#              installed or fetched with 'apt-get download' (a machine without network must pass it)
#   --note     free text for the results' note column (e.g. "2 shared cores, load 5")
# The inputs need only python3 (bench/align_make_data.py), so they can be made on the GPU machine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
device=cpu threads=0 binary=${WARPSEARCH:-$root/build/tools/warpsearch} data=${TMPDIR:-/tmp}/warpsearch-align-bench
genome="" protein_pairs=100000 read_pairs=10000 out="" note=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --device) device=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    --genome) genome=$2; shift 2 ;;
    --protein-pairs) protein_pairs=$2; shift 2 ;;
    --read-pairs) read_pairs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --note) note=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "align_bench: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done
[[ $device == cpu || $device == gpu ]] || { echo "align_bench: --device takes cpu or gpu" >&2; exit 2; }
[[ -x $binary ]] || { echo "align_bench: no warpsearch binary at $binary (--binary PATH)" >&2; exit 2; }
[[ -n $out ]] || out=$root/bench/results/align_$device.tsv
mkdir -p "$data"

# Inputs, made once per size.
protein_dir=$data/protein_$protein_pairs reads_dir=$data/reads_$read_pairs
if [[ ! -s $protein_dir/protein_b.fa ]]; then
  mkdir -p "$protein_dir"
  python3 "$here/align_make_data.py" protein "$protein_dir" "$root/data/uniprot_sample.fa" "$protein_pairs" >&2
fi
if [[ ! -s $reads_dir/reads_pairs.tsv ]]; then
  if [[ -z $genome ]]; then
    genome=/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz
    if [[ ! -r $genome ]]; then
      echo "align_bench: fetching bowtie2-examples (apt-get download) for the lambda phage genome" >&2
      fetch=$(mktemp -d)
      (cd "$fetch" && apt-get download -q bowtie2-examples >&2)
      dpkg -x "$fetch"/bowtie2-examples_*.deb "$fetch/x"
      cp "$fetch/x/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz" "$data/"
      rm -rf "$fetch"
      genome=$data/lambda_virus.fa.gz
    fi
  fi
  mkdir -p "$reads_dir"
  python3 "$here/align_make_data.py" reads "$reads_dir" "$genome" "$read_pairs" >&2
fi

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git -C "$root" diff --quiet HEAD 2>/dev/null; then commit="$commit+changes"; fi
cpu_model=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
cores=$(nproc)
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
[[ -n $gpu_name ]] || gpu_name=none
thread_option=()
[[ $threads -gt 0 ]] && thread_option=(--threads "$threads")
if [[ ! -s $out ]]; then
  mkdir -p "$(dirname "$out")"
  printf 'date\tcommit\tcpu\tcores\tload\tgpu\tdevice\tworkload\tpairs\tseconds\tpairs_per_s\tgcups\tbackend\tnote\tcommand\n' >"$out"
fi

# run WORKLOAD DEVICE ARGS...: one whole command; its summary line gives pairs, seconds, GCUPS and backend.
run() {
  local workload=$1 run_device=$2
  shift 2
  local command=("$binary" align --device "$run_device" "${thread_option[@]}" "$@" -o "$data/out.tsv")
  local log=$data/stderr.txt
  "${command[@]}" 2>"$log" || { cat "$log" >&2; exit 1; }
  # "warpsearch align: 100000 pairs (local), 12.34 s, 8103 pairs/s, 1.29 GCUPS on cpu (2 threads)"
  local line pairs seconds rate gcups backend load
  load=$(cut -d' ' -f1 /proc/loadavg)  # at the end of the run
  line=$(grep '^warpsearch align: ' "$log" | tail -1)
  pairs=$(sed -E 's/^warpsearch align: ([0-9]+) pairs.*/\1/' <<<"$line")
  seconds=$(sed -E 's/.*\), ([0-9.]+) s,.*/\1/' <<<"$line")
  rate=$(sed -E 's/.* s, ([0-9.]+) pairs\/s,.*/\1/' <<<"$line")
  gcups=$(sed -E 's/.*pairs\/s, ([0-9.]+) GCUPS.*/\1/' <<<"$line")
  backend=$(sed -E 's/.* GCUPS on (.*)$/\1/' <<<"$line")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" \
    "$cpu_model" "$cores" "$load" "$gpu_name" "$run_device" "$workload" "$pairs" "$seconds" "$rate" "$gcups" "$backend" \
    "$note" "${command[*]#$root/}" >>"$out"
  printf '%-40s %8s pairs %9s s %10s pairs/s %8s GCUPS  %s\n' "$workload" "$pairs" "$seconds" "$rate" "$gcups" "$backend"
}

run "protein local start+end, 100..1000 aa" "$device" --query "$protein_dir/protein_a.fa" \
  --target "$protein_dir/protein_b.fa" --mode local
xdrop_device=cpu  # no GPU X-drop kernel
for x in 50 100; do
  run "dna xdrop X=$x, 5..10 kb reads, 15% div" "$xdrop_device" --query "$reads_dir/reads_a.fa" \
    --target "$reads_dir/reads_b.fa" --pairs "$reads_dir/reads_pairs.tsv" --mode xdrop --xdrop "$x"
done
rm -f "$data/out.tsv" "$data/stderr.txt"
echo "align_bench: results appended to $out" >&2
