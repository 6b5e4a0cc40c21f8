#!/usr/bin/env bash
# Runs on a GPU machine, from the repository root, with binaries built here for sm_90:
#   carry/bin/warpsearch_tests, carry/bin/gpu_pair_bench     (bench/gpu/prepare_carry.sh copies them)
#   carry/lib/libparasail.so.8                              (the test binary links it)
#   carry/data/proteins.fa.gz                               real proteins (32.7 M residues, gzip FASTA: bench/make_protein_db.sh)
# Steps (STEPS, default all): tests = the GPU pair tests ("[pairs]", with the 50,000 x 50,000 pair);
# sanitize = compute-sanitizer memcheck and racecheck on "[pairs][tiny]"; bench = 100,000 real protein
# pairs of 100..1,000 residues in each mode (local also with the packed 16-bit shapes on, a first
# sub-batch of half size, and the reverse early exit off: the kernels before it), longer pairs, and
# simulated DNA pairs, each run checked against reference::span on a
# sample (--check); with carry/bin/gpu_pair_bench_prev (an earlier build) the main rows again with it,
# AB=1 adds the options' effects; ncu = the profile of the forward kernels (not in the default steps).
# Writes gpu_pairs.tsv, a summary and logs.tgz to $OUT, and prints the summary last.
set -u
FINAL_OUT=${OUT:-/tmp/warpsearch-out}
OUT=/tmp/warpsearch-pair-logs
rm -rf "$OUT"  # a warm machine keeps /tmp between calls
mkdir -p "$OUT" "$FINAL_OUT"
BIN=carry/bin
DATA=carry/data
WORK=/tmp/warpsearch-pair-work
STEPS=${STEPS:-"tests sanitize bench"}
REPEAT=${REPEAT:-3}
export LD_LIBRARY_PATH=$PWD/carry/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$WORK"
has() { [[ " $STEPS " == *" $1 "* ]]; }
summary=()

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  | tee "$OUT/gpu.txt"
git rev-parse HEAD > "$OUT/commit.txt" 2>/dev/null

if has tests; then
  start=$(date +%s)
  timeout 400 "$BIN/warpsearch_tests" "[pairs]" -r compact -d yes > "$OUT/tests.log" 2>&1
  rc=$?
  summary+=("tests [pairs]: rc=$rc in $(( $(date +%s) - start )) s: $(grep -E 'passed|failed' "$OUT/tests.log" | tail -1)")
fi

if has sanitize; then
  for tool in memcheck racecheck; do
    start=$(date +%s)
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 3 "$BIN/warpsearch_tests" "[pairs][tiny]" \
      > "$OUT/$tool.log" 2>&1
    rc=$?
    summary+=("$tool [pairs][tiny]: rc=$rc in $(( $(date +%s) - start )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|failed' "$OUT/$tool.log" | tail -2 | tr '\n' ' ')")
  done
fi

if has bench; then
  gunzip -c "$DATA/proteins.fa.gz" > "$WORK/protdb.fa"
  python3 bench/gpu/make_dna_pairs.py "$WORK"  # 4,000 DNA pairs of 1..5 kb, 10% divergence (seeded)
  TSV="$OUT/gpu_pairs.tsv"
  run() {  # label, then bench arguments
    local label=$1; shift
    timeout 300 "${BENCH:-$BIN/gpu_pair_bench}" "$@" --repeat "$REPEAT" --tsv "$TSV" --label "$label" \
      > "$OUT/bench_$label.log" 2>&1
    local rc=$?
    summary+=("bench $label: rc=$rc $(grep -E '^overall|^host|^check' "$OUT/bench_$label.log" | tr '\n' ' ')")
  }
  for mode in local semiglobal global; do
    run "protein_100k_${mode}" --fasta "$WORK/protdb.fa" --pairs 100000 --min-length 100 --max-length 1000 \
      --mode $mode --check 300
  done
  common=(--fasta "$WORK/protdb.fa" --pairs 100000 --min-length 100 --max-length 1000 --mode local --check 300)
  if [[ -n "${AB:-}" ]]; then  # the options' effects, one at a time
    run protein_100k_local_no_exit "${common[@]}" --no-early-exit
    run protein_100k_local_packed "${common[@]}" --packed
    run protein_100k_local_first_half "${common[@]}" --first-percent 50
  fi
  # Another build to compare with (carry/bin/gpu_pair_bench_prev, optional), in the same call: A/B rows.
  if [[ -x "$BIN/gpu_pair_bench_prev" ]]; then
    for mode in local global; do
      BENCH="$BIN/gpu_pair_bench_prev" run "protein_100k_${mode}_prev" --fasta "$WORK/protdb.fa" --pairs 100000 \
        --min-length 100 --max-length 1000 --mode $mode --check 300
    done
    BENCH="$BIN/gpu_pair_bench_prev" run dna_1_5kb_global_prev --query "$WORK/dna_q.fa" --target "$WORK/dna_t.fa" \
      --mode global --check 20
  fi
  run protein_1m_local --fasta "$WORK/protdb.fa" --pairs 1000000 --min-length 100 --max-length 1000 --mode local --check 100
  run protein_long_local --fasta "$WORK/protdb.fa" --pairs 5000 --min-length 1000 --max-length 8000 --mode local --check 20
  run dna_1_5kb_local --query "$WORK/dna_q.fa" --target "$WORK/dna_t.fa" --mode local --check 20
  run dna_1_5kb_global --query "$WORK/dna_q.fa" --target "$WORK/dna_t.fa" --mode global --check 20
fi

# ncu: forward kernels of 20,000 local pairs (shapes (32, 12..16), int8, no early exit), speed of light, warp states and
# scheduler statistics, for this build and the previous one.
if has ncu; then
  [[ -f "$WORK/protdb.fa" ]] || gunzip -c "$DATA/proteins.fa.gz" > "$WORK/protdb.fa"
  for bench in gpu_pair_bench gpu_pair_bench_prev; do
    [[ -x "$BIN/$bench" ]] || continue
    start=$(date +%s)
    timeout 200 ncu --kernel-name-base mangled --kernel-name 'regex:pair_kernelILi32ELi1[2-6]EaLb0ELb0E' \
      --launch-skip 2 --launch-count 4 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section LaunchStats \
      --section Occupancy "$BIN/$bench" --fasta "$WORK/protdb.fa" --pairs 20000 --min-length 100 \
      --max-length 1000 --mode local --repeat 1 > "$OUT/ncu_$bench.txt" 2>&1
    summary+=("ncu $bench: rc=$? in $(( $(date +%s) - start )) s")
  done
fi

cp "$OUT"/*.tsv "$FINAL_OUT"/ 2>/dev/null
printf '%s\n' "${summary[@]}" > "$OUT/summary.txt"
tar -czf "$FINAL_OUT/pair_logs.tgz" -C "$OUT" .
cp "$OUT/summary.txt" "$FINAL_OUT/pair_summary.txt"
cat "$OUT/summary.txt"
