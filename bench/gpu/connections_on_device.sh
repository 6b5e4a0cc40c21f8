#!/usr/bin/env bash
# Runs on a GPU machine: the pair benchmark (carry/bin/gpu_pair_bench and _prev, local 100k, traced)
# and the whole search (262 M residues, 20 cudasw queries, top 10) with the default 8 hardware work queues
# and with CUDA_DEVICE_MAX_CONNECTIONS=32, alternating. Prints wall times and the pair rows.
set -u
W=/tmp/conn; mkdir -p $W; B=carry/bin
export LD_LIBRARY_PATH=$PWD/carry/lib
TRACE=1 WORKLOADS="local global" REPEAT=7 bash bench/gpu/pair_ab_on_device.sh > $W/ab8.txt 2>&1
cp $OUT/pair_ab.tsv $OUT/pair_ab_8queues.tsv; rm $OUT/pair_ab.tsv
for f in $OUT/trace_*.tsv; do mv $f ${f%.tsv}_8q.tsv; done
CUDA_DEVICE_MAX_CONNECTIONS=32 WORKLOADS="local" REPEAT=7 bash bench/gpu/pair_ab_on_device.sh > $W/ab32.txt 2>&1
echo "== 8 queues"; grep -v "^NVIDIA" $W/ab8.txt | sed 's/overlapping.*//'
echo "== 32 queues"; grep -v "^NVIDIA" $W/ab32.txt | sed 's/overlapping.*//'
gunzip -c carry/data/proteins.fa.gz > $W/db1.fa; : > $W/db8.fa; for i in 1 2 3 4 5 6 7 8; do cat $W/db1.fa >> $W/db8.fa; done
$B/warpsearch makedb --quiet $W/db8.fa $W/db8.wsdb
for run in 1 2 3; do
  for q in 8 32; do
    s=$(date +%s.%N)
    if [[ $q == 32 ]]; then export CUDA_DEVICE_MAX_CONNECTIONS=32; else unset CUDA_DEVICE_MAX_CONNECTIONS; fi
    $B/warpsearch search --device gpu -q carry/data/cudasw_20.fa -d $W/db8.wsdb --gapopen 10 --gapextend 1 --max-target-seqs 10 -o $W/hits_$q.tsv 2> $W/err.log; rc=$?
    e=$(date +%s.%N); unset CUDA_DEVICE_MAX_CONNECTIONS
    echo "search db8 run $run queues $q rc=$rc wall $(awk -v s=$s -v e=$e 'BEGIN{printf "%.2f", e-s}') | $(grep 'warpsearch search:' $W/err.log | tr '\n' ' ')"
  done
done
cmp $W/hits_8.tsv $W/hits_32.tsv && echo "search outputs identical"
