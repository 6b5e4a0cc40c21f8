#!/usr/bin/env bash
# Runs on a GPU machine (16 cores, no network), from the repository root: makedb of warpsearch
# (carry/bin/warpsearch) and of CUDASW++ 4.0 (carry/bin/makedb, optional) side by side on the 8x
# bench/make_protein_db.sh set (262 M residues, from PROTEINS, default carry/data/proteins.fa.gz; .xz too),
# plain and gzip, at 1, 2, 4, 8 and 16 threads (THREADS), through bench/makedb_bench.sh. The rows go to bench/results/makedb.tsv
# and, with the log, to $OUT.
set -euo pipefail
export LD_LIBRARY_PATH=$PWD/carry/lib:${LD_LIBRARY_PATH:-}  # libboost_program_options of a Debian 12 build
out="${OUT:-/tmp/warpsearch-out}"
work=/tmp/makedb-on-device
mkdir -p "$out" "$work"
proteins=${PROTEINS:-carry/data/proteins.fa.gz}
case $proteins in
  *.xz) xz -dc "$proteins" >"$work/p1.fa" ;;
  *) gunzip -c "$proteins" >"$work/p1.fa" ;;
esac
for _ in 1 2 3 4 5 6 7 8; do cat "$work/p1.fa"; done >"$work/proteins8.fa"
rm -f "$work/p1.fa"
# Nothing else runs there: the load average left by the previous run need not fall first.
FASTA="$work/proteins8.fa" THREADS="${THREADS:-1 2 4 8 16}" MAX_LOAD="${MAX_LOAD:-64}" DD_MIB="${DD_MIB:-1024}" \
  WORK="$work/bench" bench/makedb_bench.sh carry/bin/warpsearch 2>&1 | tee "$out/makedb_on_device.log" | grep -v ' run [0-9]:'
cp bench/results/makedb.tsv "$out/"
rm -rf "$work"
