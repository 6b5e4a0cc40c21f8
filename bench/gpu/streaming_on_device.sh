#!/usr/bin/env bash
# Runs on a GPU machine, from the repository root: the GPU tests, then `warpsearch search` of two
# builds (carry/bin/warpsearch_prev and carry/bin/warpsearch, alternating) where the database's place on
# the device matters, on the 262 M-residue set (the 75,000 real proteins 8x over), BLOSUM62 10/1, top 10:
#   resident: one chunk, 20 queries in 5 query batches (--query-batch 4): loaded once, or once per batch;
#   chunks:   7 chunks of at most 40 M residues, 20 queries, all of them fitting the device;
#   stream:   the same 7 chunks, one query (2,005 residues), --gpu-memory 3G: they stream through the
#             resident sets, the next loading while one is scored (or one after the other);
#   stream66: the same with 66 chunks of at most 4 M residues.
# STREAM_TESTS=0 skips the GPU tests, STREAM_TEST_TAGS picks them (default [gpu]), STREAM_RUNS the runs.
# Prints each run's stderr summary and whether both builds wrote the same output.
set -u
B=carry/bin; W=/tmp/stream; mkdir -p $W
export LD_LIBRARY_PATH=$PWD/carry/lib
export WARPSEARCH_TEST_BINARY=$PWD/carry/bin/warpsearch WARPSEARCH_TEST_SOURCE_DIR=$PWD
if [[ ${STREAM_TESTS:-1} != 0 ]]; then
  timeout 300 $B/warpsearch_tests "${STREAM_TEST_TAGS:-[gpu]}" -r compact > $W/tests.log 2>&1
  echo "tests [gpu] rc=$?: $(grep -E 'Passed all|failed' $W/tests.log | tail -2)"
  grep -B3 -A12 FAILED $W/tests.log | head -60
fi
gunzip -c carry/data/proteins.fa.gz > $W/db1.fa; for i in 1 2 3 4 5 6 7 8; do cat $W/db1.fa; done > $W/db8.fa
$B/warpsearch makedb --quiet $W/db8.fa $W/one.wsdb
$B/warpsearch makedb --quiet --chunk-size 40M $W/db8.fa $W/seven.wsdb
$B/warpsearch makedb --quiet --chunk-size 4M $W/db8.fa $W/many.wsdb
echo "chunks: $($B/warpsearch dbinfo $W/seven.wsdb | grep -i chunks), $($B/warpsearch dbinfo $W/many.wsdb | grep -i chunks)"
awk '/^>/ {n++} n == 12' carry/data/cudasw_20.fa > $W/one_query.fa
echo "one query: $(grep -v '>' $W/one_query.fa | tr -d '\n' | wc -c) residues"
run() {  # name, options
  for r in 1 2; do
    for bin in warpsearch_prev warpsearch; do
      s=$(date +%s.%N); $B/$bin search --device gpu -d $W/$2 --gapopen 10 --gapextend 1 --max-target-seqs 10 ${@:3} -o $W/$bin.tsv 2> $W/err.log; rc=$?; e=$(date +%s.%N)
      echo "$1 run $r $bin rc=$rc wall $(awk -v s=$s -v e=$e 'BEGIN{printf "%.2f", e-s}') | $(tail -1 $W/err.log)"
    done
  done
  cmp -s $W/warpsearch_prev.tsv $W/warpsearch.tsv && echo "$1: outputs identical" || echo "$1: outputs DIFFER"
}
runs=${STREAM_RUNS:-resident chunks stream stream66}
[[ $runs == *resident* ]] && run resident one.wsdb -q carry/data/cudasw_20.fa --query-batch 4
[[ $runs == *chunks* ]] && run chunks seven.wsdb -q carry/data/cudasw_20.fa
[[ " $runs " == *" stream "* ]] && run stream seven.wsdb -q $W/one_query.fa --gpu-memory 3G
[[ $runs == *stream66* ]] && run stream66 many.wsdb -q $W/one_query.fa --gpu-memory 3G
