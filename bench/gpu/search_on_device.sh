#!/usr/bin/env bash
# On the GPU machine: the whole test suite, then `warpsearch search` end to end on the real protein set,
# GPU against CPU: the outputs must be byte-identical; times and GCUPS of both go to $OUT/search.tsv.
# Needs carry/bin/{warpsearch,warpsearch_tests} (built here with -DWARPSEARCH_STATIC_BOOST=ON for sm_90),
# carry/lib (libparasail for the tests) and carry/data/{proteins.fa.gz,cudasw_20.fa} (DB_FASTA overrides).
set -u
OUT=${OUT:-/tmp/warpsearch-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/carry/lib:${LD_LIBRARY_PATH:-}
export WARPSEARCH_TEST_BINARY=$PWD/carry/bin/warpsearch WARPSEARCH_TEST_SOURCE_DIR=$PWD
ws=carry/bin/warpsearch
work=/tmp/ws-search
rm -rf "$work" && mkdir -p "$work"

if [ -z "${SKIP_TESTS:-}" ]; then
  carry/bin/warpsearch_tests -r compact > "$OUT/all_tests.log" 2>&1
  echo "all tests: rc=$? $(tail -1 "$OUT/all_tests.log")"
fi

gunzip -c "${DB_FASTA:-carry/data/proteins.fa.gz}" > "$work/db.fa"
$ws makedb --quiet "$work/db.fa" "$work/db.wsdb"
residues=$($ws dbinfo "$work/db.wsdb" | awk '/^residues/ {gsub(",", "", $2); print $2}')
qres=$(grep -v '>' carry/data/cudasw_20.fa | tr -d '\n' | wc -c)
printf 'device\tqueries\tquery_residues\tdb_residues\tseconds\tGCUPS\tcommand\n' > "$OUT/search.tsv"
for device in gpu cpu; do
  for top in 10 500; do
    cmd="$ws search --device $device -q carry/data/cudasw_20.fa -d $work/db.wsdb --max-target-seqs $top -o $work/$device-$top.tsv"
    $cmd > /dev/null 2>&1  # warm-up (page cache, GPU context)
    start=$(date +%s.%N); $cmd 2> "$OUT/search-$device-$top.err"; rc=$?; end=$(date +%s.%N)
    awk -v d="$device" -v q="$qres" -v r="$residues" -v s="$start" -v e="$end" -v c="$cmd (rc=$rc)" \
      'BEGIN { t = e - s; printf "%s\t20\t%d\t%d\t%.3f\t%.1f\t%s\n", d, q, r, t, q * r / t / 1e9, c }' >> "$OUT/search.tsv"
  done
done
for top in 10 500; do
  if cmp -s "$work/gpu-$top.tsv" "$work/cpu-$top.tsv"; then echo "top $top: GPU output == CPU output ($(wc -l < "$work/gpu-$top.tsv") lines)"
  else echo "top $top: GPU output DIFFERS from CPU output"; diff "$work/gpu-$top.tsv" "$work/cpu-$top.tsv" | head -5; fi
done | tee "$OUT/identical.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt"
cut -f1-6 "$OUT/search.tsv"
cat "$OUT"/search-*.err
