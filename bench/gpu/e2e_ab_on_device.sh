#!/usr/bin/env bash
# Runs on the lent GPU machine, from the repository root: the GPU tests, then the whole `warpsearch search`
# command of two builds, alternating, three times each, on the 262 M-residue set (db8) and the 32.7 M one
# (db1): 20 cudasw queries, top 10 with positions, E-values and alignments; checks that both builds write
# the same output, and prints the wall times and each build's stderr summary (phases, where it has them).
# Needs carry/bin/{warpsearch,warpsearch_prev,warpsearch_tests}, carry/data/{proteins.fa.gz,cudasw_20.fa},
# carry/lib (libparasail for the tests). Results: bench/results/search_phases_h100.tsv.
set -u
W=/tmp/e2e; mkdir -p $W; B=carry/bin
export LD_LIBRARY_PATH=$PWD/carry/lib
export WARPSEARCH_TEST_BINARY=$PWD/carry/bin/warpsearch WARPSEARCH_TEST_SOURCE_DIR=$PWD
timeout 300 $B/warpsearch_tests "[gpu]" -r compact > $OUT/tests.log 2>&1; echo "tests [gpu] rc=$?: $(grep -E 'passed|failed' $OUT/tests.log | tail -2)"
gunzip -c carry/data/proteins.fa.gz > $W/db1.fa; : > $W/db8.fa; for i in 1 2 3 4 5 6 7 8; do cat $W/db1.fa >> $W/db8.fa; done
$B/warpsearch makedb --quiet $W/db8.fa $W/db8.wsdb; $B/warpsearch makedb --quiet $W/db1.fa $W/db1.wsdb
for db in db8 db1; do
for run in 1 2 3; do
  for bin in warpsearch_prev warpsearch; do
    s=$(date +%s.%N); $B/$bin search --device gpu -q carry/data/cudasw_20.fa -d $W/$db.wsdb --gapopen 10 --gapextend 1 --max-target-seqs 10 -o $W/$bin.tsv 2> $W/err.log; rc=$?; e=$(date +%s.%N)
    echo "$db run $run $bin rc=$rc wall $(awk -v s=$s -v e=$e 'BEGIN{printf "%.2f", e-s}') | $(grep 'warpsearch search:' $W/err.log | tr '\n' ' ')"
  done
done
cmp $W/warpsearch_prev.tsv $W/warpsearch.tsv && echo "$db outputs identical"
done
