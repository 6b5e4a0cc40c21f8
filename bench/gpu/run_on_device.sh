#!/usr/bin/env bash
# Runs on a GPU machine, from the repository root, with the binaries and data that
# bench/gpu/prepare_carry.sh put in carry/ (git-ignored):
#   carry/bin/{warpsearch_tests,gpu_score_bench}   built here for sm_90
#   carry/bin/{align,makedb}, carry/lib/           CUDASW++ 4.0 for the side-by-side run (optional)
#   carry/bin/warpsearch                           the command-line tool (step e2e)
#   carry/data/{proteins.fa.gz,cudasw_20.fa}       the real protein set and the 20 benchmark queries
# DB_FASTA (default carry/data/proteins.fa.gz: bench/make_protein_db.sh's 75,000 proteins, 32.7 M
# residues) is "db1"; "db8" is the same 8 times over (261 M residues).
# Writes the TSV tables, a summary and logs.tgz (every log) to $OUT, and prints the summary last.
#   STEPS="tests memcheck racecheck bench cudasw e2e ncu ncu_metrics ncu_cells sass"
#   (default: tests memcheck bench cudasw); MEMCHECK_FILTER, RACECHECK_FILTER: Catch2 test specs for the
#   sanitizer steps (default "[small]"); BENCH_RUNS: runs to compare in the bench step (below); NCU_ARGS:
#   benchmark options for the ncu_metrics step (e.g. --table-copies 1)
set -u
FINAL_OUT=${OUT:-/tmp/warpsearch-out}
OUT=/tmp/warpsearch-logs
rm -rf "$OUT"  # a warm machine keeps /tmp between calls
mkdir -p "$OUT" "$FINAL_OUT"
BIN=carry/bin
DATA=carry/data
WORK=/tmp/warpsearch-work
STEPS=${STEPS:-"tests memcheck bench cudasw"}
export LD_LIBRARY_PATH=$PWD/carry/lib:${LD_LIBRARY_PATH:-}  # libparasail (tests), libgomp (CUDASW++)
# The command-line tests run the carried tool on the bundled data of this checkout.
export WARPSEARCH_TEST_BINARY=$PWD/carry/bin/warpsearch WARPSEARCH_TEST_SOURCE_DIR=$PWD
REPEAT=${REPEAT:-3}
mkdir -p "$WORK"
has() { [[ " $STEPS " == *" $1 "* ]]; }
summary=()

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  | tee "$OUT/gpu.txt"

if has tests; then
  start=$(date +%s)
  "$BIN/warpsearch_tests" "${TESTS_FILTER:-[gpu]}" -r compact > "$OUT/tests.log" 2>&1
  rc=$?
  summary+=("tests ${TESTS_FILTER:-[gpu]}: rc=$rc in $(( $(date +%s) - start )) s: $(tail -1 "$OUT/tests.log")")
fi

if has memcheck; then
  start=$(date +%s)
  compute-sanitizer --tool memcheck --error-exitcode 3 "$BIN/warpsearch_tests" "${MEMCHECK_FILTER:-[small]}" > "$OUT/memcheck.log" 2>&1
  rc=$?
  summary+=("memcheck ${MEMCHECK_FILTER:-[small]}: rc=$rc in $(( $(date +%s) - start )) s: $(grep -E 'ERROR SUMMARY|passed|failed' "$OUT/memcheck.log" | tail -2 | tr '\n' ' ')")
fi

if has racecheck; then
  start=$(date +%s)
  compute-sanitizer --tool racecheck --error-exitcode 3 "$BIN/warpsearch_tests" "${RACECHECK_FILTER:-[small]}" > "$OUT/racecheck.log" 2>&1
  rc=$?
  summary+=("racecheck ${RACECHECK_FILTER:-[small]}: rc=$rc in $(( $(date +%s) - start )) s: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|passed|failed' "$OUT/racecheck.log" | tail -2 | tr '\n' ' ')")
fi

if has bench || has cudasw || has e2e || has ncu_cells; then
  gunzip -c "${DB_FASTA:-$DATA/proteins.fa.gz}" > "$WORK/db1.fa"
  : > "$WORK/db8.fa"
  for _ in 1 2 3 4 5 6 7 8; do cat "$WORK/db1.fa" >> "$WORK/db8.fa"; done
fi

if has bench && [[ -n ${BENCH_RUNS:-} ]]; then
  # BENCH_RUNS="tag:binary:options;...": runs to compare in this call (builds, or options of one build),
  # e.g. "prev:gpu_score_bench_prev:;copies2:gpu_score_bench:--table-copies 2".
  IFS=';' read -ra runs <<< "$BENCH_RUNS"
  for db in db1 db8; do
    for run in "${runs[@]}"; do
      IFS=':' read -r tag bench options <<< "$run"
      r=$REPEAT; [[ $db == db8 ]] && r=1
      # shellcheck disable=SC2086  # options are words
      "$BIN/$bench" --db "$WORK/$db.fa" --queries "$DATA/cudasw_20.fa" --repeat $r $options \
        --tsv "$OUT/gpu_bench_${db}_$tag.tsv" --label "${tag}_$db" > "$OUT/bench_${db}_$tag.log" 2>&1
      summary+=("$tag $db: $(grep overall "$OUT/bench_${db}_$tag.log")")
    done
  done
elif has bench; then
  # BENCH_BINS: benchmark builds to compare (e.g. a second build with other tuning flags).
  for bench in ${BENCH_BINS:-gpu_score_bench}; do
    for db in db1 db8; do
      r=$REPEAT; [[ $db == db8 ]] && r=1
      tag=${bench#gpu_score_bench}
      "$BIN/$bench" --db "$WORK/$db.fa" --queries "$DATA/cudasw_20.fa" --repeat $r \
        --tsv "$OUT/gpu_bench_$db$tag.tsv" --label "ws${tag}_$db" > "$OUT/bench_$db$tag.log" 2>&1
      summary+=("ours$tag $db: $(grep overall "$OUT/bench_$db$tag.log")")
    done
  done
fi

if has cudasw && [[ -x $BIN/align ]]; then
  for db in db1 db8; do
    mkdir -p "$WORK/cs_$db"
    "$BIN/makedb" "$WORK/$db.fa" "$WORK/cs_$db/db" > "$OUT/cudasw_makedb_$db.log" 2>&1
    "$BIN/align" --query "$DATA/cudasw_20.fa" --db "$WORK/cs_$db/db" --top 10 --dpx --uploadFull --verbose \
      > "$OUT/cudasw_$db.log" 2>&1
    summary+=("cudasw4 --dpx $db: rc=$? $(grep -iE 'TCUPS|GCUPS' "$OUT/cudasw_$db.log" | tail -1)")
  done
fi

if has e2e; then
  # The whole search command on db8, top 10 hits with positions, alignments and E-values: database
  # built by warpsearch makedb, wall time of the second run (the first warms the page cache).
  "$BIN/warpsearch" makedb --quiet "$WORK/db8.fa" "$WORK/db8.wsdb" > "$OUT/e2e_makedb.log" 2>&1
  for run in 1 2; do
    start=$(date +%s.%N)
    "$BIN/warpsearch" search --device gpu -q "$DATA/cudasw_20.fa" -d "$WORK/db8.wsdb" --gapopen 10 --gapextend 1 \
      --max-target-seqs 10 -o "$WORK/e2e.tsv" 2> "$OUT/e2e_search.log"
    rc=$?
    end=$(date +%s.%N)
  done
  summary+=("e2e search db8 top 10 (gpu): rc=$rc wall $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }') s; $(tail -1 "$OUT/e2e_search.log")")
  head -3 "$WORK/e2e.tsv" > "$OUT/e2e_head.tsv"
fi

if has ncu_cells; then
  # Instructions per cell over every scoring kernel of one query (the longest) against db1: warp
  # instructions x 32 lanes, per pipe, divided by the cells (each 16-bit lane instruction covers two).
  ncu --kernel-name regex:sw_bin_kernel --metrics smsp__inst_executed.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_op_shared_ld.sum,gpu__time_duration.sum \
    --csv --page raw "$BIN/gpu_score_bench" --db "$WORK/db1.fa" --queries "$DATA/cudasw_20.fa" --only-query 19 --repeat 1 \
    > "$OUT/ncu_cells.csv" 2> "$OUT/ncu_cells.err"
  summary+=("ncu_cells: rc=$? $(wc -l < "$OUT/ncu_cells.csv") lines")
fi

if has ncu; then
  # One query (the longest) against the 8x set: the warm-up pass launches every bin once (47 bins).
  ncu --kernel-name regex:sw_bin_kernel --launch-count 47 --section SpeedOfLight --section Occupancy \
    --section ComputeWorkloadAnalysis --section InstructionStats --csv --page details \
    "$BIN/gpu_score_bench" --db "$WORK/db8.fa" --queries "$DATA/cudasw_20.fa" --only-query 19 --repeat 1 \
    > "$OUT/ncu.csv" 2> "$OUT/ncu.err"
  summary+=("ncu: rc=$? $(wc -l < "$OUT/ncu.csv") lines")
fi

if has ncu_metrics; then
  # Shared-memory bank conflicts and pipe use of a few bins (names as ncu 2025 spells them): 192 and 512
  # residues one-pass, 512-column tiles, cooperative.
  ncu --kernel-name-base demangled --kernel-name regex:'sw_bin_kernel<\(int\)(12|24|44|45)>' --launch-count 4 \
    --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
    --csv --page raw "$BIN/gpu_score_bench" --db "$WORK/db1.fa" --queries "$DATA/cudasw_20.fa" --only-query 19 --repeat 1 \
    ${NCU_ARGS:-} > "$OUT/ncu_metrics.csv" 2> "$OUT/ncu_metrics.err"
  summary+=("ncu_metrics ${NCU_ARGS:-}: rc=$?")
fi

if has sass; then
  # Instruction mix of each bin's kernel (the inner loop dominates: it is unrolled regs times).
  cuobjdump -sass "$BIN/gpu_score_bench" > "$OUT/kernels.sass" 2>&1
  awk '/Function : .*sw_bin_kernel/{f=$3} f && /^ *\/\*[0-9a-f]+\*\/ /{op=$2; if(op ~ /^@/) op=$3; sub(/;$/,"",op); split(op,a,"."); c[f" "a[1]]++} END{for(k in c) print k, c[k]}' \
    "$OUT/kernels.sass" | sort > "$OUT/sass_mix.txt"
  summary+=("sass: $(wc -l < "$OUT/sass_mix.txt") opcode rows")
fi

# The tool brings back a few files only: the tables when they are few, else just the archive (which
# holds them all).
tables=("$OUT"/*.tsv)
[[ -e ${tables[0]} && ${#tables[@]} -le 6 ]] && cp "${tables[@]}" "$FINAL_OUT"/
printf '%s\n' "${summary[@]}" > "$OUT/summary.txt"
tar -czf "$FINAL_OUT/logs.tgz" -C "$OUT" .
cat "$OUT/summary.txt"
