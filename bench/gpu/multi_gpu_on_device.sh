#!/usr/bin/env bash
# On a machine with two or more GPUs, from the repository root, with
# the binaries of bench/gpu/prepare_carry.sh in carry/bin and carry/data/{proteins.fa.gz,cudasw_20.fa}:
#   1. the GPU search tests (with 2 GPUs they also check --gpus 1,0 against the CPU output);
#   2. scan scaling: gpu_score_bench --gpus 2 on db8 (261 M residues), all 20 queries in one call;
#   3. the search command end to end on db8 with --gpus 0 and --gpus 0,1: outputs compared byte for
#      byte, wall times.
# Writes multi_gpu.tsv and the logs to $OUT.
set -u
OUT=${OUT:-/tmp/warpsearch-out}
mkdir -p "$OUT"
BIN=carry/bin
DATA=carry/data
WORK=/tmp/warpsearch-multi
rm -rf "$WORK" && mkdir -p "$WORK"
export LD_LIBRARY_PATH=$PWD/carry/lib:${LD_LIBRARY_PATH:-}
export WARPSEARCH_TEST_BINARY=$PWD/$BIN/warpsearch WARPSEARCH_TEST_SOURCE_DIR=$PWD
nvidia-smi --query-gpu=index,name,driver_version --format=csv > "$OUT/gpus.txt"
summary=()

"$BIN/warpsearch_tests" "[gpu][search]" -r compact > "$OUT/multi_tests.log" 2>&1
summary+=("tests [gpu][search]: rc=$? $(tail -1 "$OUT/multi_tests.log")")

gunzip -c "$DATA/proteins.fa.gz" > "$WORK/db1.fa"
for _ in 1 2 3 4 5 6 7 8; do cat "$WORK/db1.fa"; done > "$WORK/db8.fa"
"$BIN/gpu_score_bench" --db "$WORK/db8.fa" --queries "$DATA/cudasw_20.fa" --gpus 2 > "$OUT/scan_scaling.log" 2>&1
summary+=("scan scaling db8: rc=$? $(tail -1 "$OUT/scan_scaling.log")")

"$BIN/warpsearch" makedb --quiet "$WORK/db8.fa" "$WORK/db8.wsdb"
printf 'gpus\tseconds\tcommand\n' > "$OUT/multi_gpu.tsv"
for gpus in 0 0,1; do
  cmd="$BIN/warpsearch search --device gpu --gpus $gpus -q $DATA/cudasw_20.fa -d $WORK/db8.wsdb --gapopen 10 --gapextend 1 --max-target-seqs 10 -o $WORK/out-$gpus.tsv"
  $cmd 2> /dev/null  # warm-up: page cache
  start=$(date +%s.%N); $cmd 2> "$OUT/search-$gpus.log"; rc=$?; end=$(date +%s.%N)
  awk -v g="$gpus" -v s="$start" -v e="$end" -v c="$cmd (rc=$rc)" 'BEGIN { printf "%s\t%.3f\t%s\n", g, e - s, c }' \
    >> "$OUT/multi_gpu.tsv"
done
if cmp -s "$WORK/out-0.tsv" "$WORK/out-0,1.tsv"; then
  summary+=("search db8: 2-GPU output == 1-GPU output ($(wc -l < "$WORK/out-0.tsv") lines)")
else
  summary+=("search db8: 2-GPU output DIFFERS from 1-GPU output")
fi
summary+=("$(cut -f1,2 "$OUT/multi_gpu.tsv" | tr '\n' ' ')")

if [[ -x bench/gpu/mpi_on_device.sh ]]; then
  bash bench/gpu/mpi_on_device.sh > "$OUT/mpi.log" 2>&1
  summary+=("mpi: rc=$? $(tail -2 "$OUT/mpi.log" | tr '\n' ' ')")
fi
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
