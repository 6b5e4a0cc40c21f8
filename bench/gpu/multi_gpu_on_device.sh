#!/usr/bin/env bash
# On a machine with two or more GPUs, from the repository root, with
# the binaries of bench/gpu/prepare_carry.sh in carry/bin and carry/data/cudasw_20.fa:
#   bench/gpu/multi_gpu_on_device.sh [PROTEINS.fa[.gz|.xz]]   (default carry/data/proteins.fa.gz)
#   1. the GPU search tests (with 2 GPUs they also check --gpus 1,0 against the CPU output);
#   2. scan scaling: gpu_score_bench --gpus N on db8 (the proteins 8 times over: 262 M residues for
#      bench/make_protein_db.sh's set), all 20 queries in one call, for N = 2, 4, 8 up to the GPUs there are;
#   3. the search command end to end on db8 with 1, 2, 4 and 8 GPUs (as many as there are): outputs
#      compared byte for byte with one GPU's, wall times (second of two runs) and speed-ups.
# WITH_MPI=1 also runs bench/gpu/mpi_on_device.sh. Writes multi_gpu.tsv and the logs to $OUT.
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

proteins=${1:-$DATA/proteins.fa.gz}
case $proteins in
  *.gz) gzip -dc "$proteins" > "$WORK/db1.fa" ;;
  *.xz) xz -dc "$proteins" > "$WORK/db1.fa" ;;
  *) cp "$proteins" "$WORK/db1.fa" ;;
esac
for _ in 1 2 3 4 5 6 7 8; do cat "$WORK/db1.fa"; done > "$WORK/db8.fa"
count=$(nvidia-smi -L | wc -l)
gpu_lists=(0)
for n in 2 4 8; do
  (( n > count )) && break
  "$BIN/gpu_score_bench" --db "$WORK/db8.fa" --queries "$DATA/cudasw_20.fa" --gpus "$n" > "$OUT/scan_scaling_$n.log" 2>&1
  summary+=("scan scaling db8, $n GPUs: rc=$? $(tail -1 "$OUT/scan_scaling_$n.log")")
  gpu_lists+=("$(seq -s, 0 $((n - 1)))")
done

"$BIN/warpsearch" makedb --quiet "$WORK/db8.fa" "$WORK/db8.wsdb"
printf 'gpus\tseconds\tcommand\n' > "$OUT/multi_gpu.tsv"
for gpus in "${gpu_lists[@]}"; do
  cmd="$BIN/warpsearch search --device gpu --gpus $gpus -q $DATA/cudasw_20.fa -d $WORK/db8.wsdb --gapopen 10 --gapextend 1 --max-target-seqs 10 -o $WORK/out-$gpus.tsv"
  $cmd 2> /dev/null  # warm-up: page cache
  start=$(date +%s.%N); $cmd 2> "$OUT/search-${gpus//,/_}.log"; rc=$?; end=$(date +%s.%N)
  awk -v g="$gpus" -v s="$start" -v e="$end" -v c="$cmd (rc=$rc)" 'BEGIN { printf "%s\t%.3f\t%s\n", g, e - s, c }' \
    >> "$OUT/multi_gpu.tsv"
done
for gpus in "${gpu_lists[@]:1}"; do
  if cmp -s "$WORK/out-0.tsv" "$WORK/out-$gpus.tsv"; then
    summary+=("search db8: --gpus $gpus output == 1-GPU output ($(wc -l < "$WORK/out-0.tsv") lines)")
  else
    summary+=("search db8: --gpus $gpus output DIFFERS from 1-GPU output")
  fi
done
summary+=("$(awk -F'\t' 'NR == 2 { one = $2 } NR > 1 { printf "%s: %.3f s (%.2fx)  ", $1, $2, one / $2 }' "$OUT/multi_gpu.tsv")")

if [[ ${WITH_MPI:-0} == 1 && -x bench/gpu/mpi_on_device.sh ]]; then
  bash bench/gpu/mpi_on_device.sh > "$OUT/mpi.log" 2>&1
  summary+=("mpi: rc=$? $(tail -2 "$OUT/mpi.log" | tr '\n' ' ')")
fi
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
