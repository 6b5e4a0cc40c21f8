#!/usr/bin/env bash
# Before/after comparison of GPU pair-aligner builds in one run on the GPU machine (same GPU, same clocks):
# every carry/bin/gpu_pair_bench* binary (or those BENCHES names) on the standard workloads of
# bench/gpu/pairs_on_device.sh (100,000 real protein pairs of 100..1,000 residues, local and global;
# 4,000 DNA pairs of 1..5 kb, global), each checked against reference::span on a sample. Each binary's rows are labelled with its
# file name and, where RUNS holds "name:args" entries, once more per entry with those arguments (e.g.
# RUNS="few:--sub-batch-pairs 25000"). TRACE=1 adds one traced call per row (the timeline of the call,
# trace_<label>.tsv; bench/gpu/pair_trace.py summarises it). Writes pair_ab.tsv and pair_ab_summary.txt
# to $OUT.
set -u
FINAL_OUT=${OUT:-/tmp/warpsearch-out}
WORK=/tmp/warpsearch-pair-ab
rm -rf "$WORK"
mkdir -p "$WORK" "$FINAL_OUT"
BIN=carry/bin
REPEAT=${REPEAT:-5}
WORKLOADS=${WORKLOADS:-"local global dna"}
export LD_LIBRARY_PATH=$PWD/carry/lib:${LD_LIBRARY_PATH:-}
gunzip -c carry/data/proteins.fa.gz > "$WORK/protdb.fa"
python3 bench/gpu/make_dna_pairs.py "$WORK"
TSV="$FINAL_OUT/pair_ab.tsv"
summary=()
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader > "$WORK/gpu.txt"
summary+=("$(cat "$WORK/gpu.txt")")
run() {  # binary, label, arguments
  local bench=$1 label=$2; shift 2
  local out
  local trace=()
  [[ ${TRACE:-0} == 1 ]] && trace=(--trace "$FINAL_OUT/trace_$label.tsv")
  out=$(timeout 200 "$bench" "$@" --repeat "$REPEAT" --tsv "$TSV" --label "$label" "${trace[@]}" 2>&1)
  summary+=("$label: rc=$? $(grep -E '^overall|^host|^check' <<< "$out" | sed 's/overall: //' | tr '\n' ' ')")
}
IFS=';' read -ra extra_runs <<< "${RUNS:-}"
for bench in ${BENCHES:-"$BIN"/gpu_pair_bench*}; do
  name=$(basename "$bench")
  for variant in "default:" "${extra_runs[@]}"; do
    tag=${variant%%:*}
    read -ra args <<< "${variant#*:}"
    [[ $tag == default ]] && tag="" || tag="_$tag"
    for w in $WORKLOADS; do
      case $w in
        local | global)
          run "$bench" "${name}${tag}_protein_100k_$w" --fasta "$WORK/protdb.fa" --pairs 100000 --min-length 100 \
            --max-length 1000 --mode "$w" --check 200 "${args[@]}" ;;
        dna)
          run "$bench" "${name}${tag}_dna_1_5kb_global" --query "$WORK/dna_q.fa" --target "$WORK/dna_t.fa" \
            --mode global --check 10 "${args[@]}" ;;
      esac
    done
  done
done
printf '%s\n' "${summary[@]}" | tee "$FINAL_OUT/pair_ab_summary.txt"
