#!/usr/bin/env bash
# Runs on a GPU machine, from the repository root: the GPU tests, then the whole `warpsearch search`
# command of two builds, alternating, three times each, on the 262 M-residue set (db8) and the 32.7 M one
# (db1): 20 cudasw queries, top 10 with positions, E-values and alignments; checks that both builds write
# the same output, and prints the wall times and each build's stderr summary (phases, where it has them).
# With carry/bin/{align,makedb} (CUDASW++ 4.0), its scan of the same set runs between them, --dpx, top 10.
# Needs carry/bin/{warpsearch,warpsearch_prev,warpsearch_tests}, carry/data/{proteins.fa.gz,cudasw_20.fa},
# carry/lib (libparasail for the tests). Results: bench/results/search_phases_h100.tsv.
# E2E_TESTS=0 skips the GPU tests; E2E_DBS picks the sets (default "db8 db1"); without warpsearch_prev
# only this build runs.
set -u
W=/tmp/e2e; mkdir -p $W; B=carry/bin
export LD_LIBRARY_PATH=$PWD/carry/lib
export WARPSEARCH_TEST_BINARY=$PWD/carry/bin/warpsearch WARPSEARCH_TEST_SOURCE_DIR=$PWD
if [[ ${E2E_TESTS:-1} != 0 ]]; then
  timeout 300 $B/warpsearch_tests "[gpu]" -r compact > $OUT/tests.log 2>&1; echo "tests [gpu] rc=$?: $(grep -E 'Passed all|failed' $OUT/tests.log | tail -2)"
fi
gunzip -c carry/data/proteins.fa.gz > $W/db1.fa; : > $W/db8.fa; for i in 1 2 3 4 5 6 7 8; do cat $W/db1.fa >> $W/db8.fa; done
$B/warpsearch makedb --quiet $W/db8.fa $W/db8.wsdb; $B/warpsearch makedb --quiet $W/db1.fa $W/db1.wsdb
cudasw=0; [[ -x $B/align && -x $B/makedb ]] && cudasw=1
if [[ $cudasw == 1 ]]; then
  for db in db8 db1; do mkdir -p $W/cs_$db; $B/makedb $W/$db.fa $W/cs_$db/db > $W/cs_makedb.log 2>&1; done
fi
builds=warpsearch; [[ -x $B/warpsearch_prev ]] && builds="warpsearch_prev warpsearch"
for db in ${E2E_DBS:-db8 db1}; do
for run in 1 2 3; do
  for bin in $builds; do
    s=$(date +%s.%N); $B/$bin search --device gpu -q carry/data/cudasw_20.fa -d $W/$db.wsdb --gapopen 10 --gapextend 1 --max-target-seqs 10 -o $W/$bin.tsv 2> $W/err.log; rc=$?; e=$(date +%s.%N)
    echo "$db run $run $bin rc=$rc wall $(awk -v s=$s -v e=$e 'BEGIN{printf "%.2f", e-s}') | $(grep 'warpsearch search:' $W/err.log | tr '\n' ' ')"
  done
  if [[ $cudasw == 1 ]]; then
    $B/align --query carry/data/cudasw_20.fa --db $W/cs_$db/db --top 10 --dpx --uploadFull --verbose > $W/cs.log 2>&1
    echo "$db run $run cudasw4 rc=$? | $(grep -iE 'TCUPS|GCUPS|time' $W/cs.log | tail -3 | tr '\n' ' ')"
    cp $W/cs.log $OUT/cudasw_$db.log
  fi
done
[[ -f $W/warpsearch_prev.tsv ]] && cmp $W/warpsearch_prev.tsv $W/warpsearch.tsv && echo "$db outputs identical"
cp $W/warpsearch.tsv $OUT/hits_$db.tsv
done
