#!/usr/bin/env bash
# On a GPU machine: the longest protein of the real proteome (ENSTTRP00000004624, dolphin titin, 31,921 aa)
# searched against the whole proteome (bench/make_protein_db.sh's proteins.fa, 32.7 M aa), three times, on
# the GPU: the whole command against its scan (the long query's hits, its own full-length one included,
# are aligned after the scan).
#   bench/gpu/long_query_on_device.sh PROTEINS.fa[.gz|.xz]
# Needs carry/bin/warpsearch (sm_90). Writes $OUT/long_query.tsv and the logs.
set -u
OUT=${OUT:-/tmp/warpsearch-out}
mkdir -p "$OUT"
ws=${WARPSEARCH:-$PWD/carry/bin/warpsearch}
work=/tmp/ws-long-query
rm -rf "$work" && mkdir -p "$work"
case $1 in
  *.gz) gzip -dc "$1" > "$work/proteins.fa" ;;
  *.xz) xz -dc "$1" > "$work/proteins.fa" ;;
  *) cp "$1" "$work/proteins.fa" ;;
esac
$ws makedb --quiet "$work/proteins.fa" "$work/proteins.wsdb"
awk '/^>/ { keep = ($1 == ">ENSTTRP00000004624") } keep' "$work/proteins.fa" > "$work/titin.fa"
printf 'run\tseconds\tscan_seconds\thits_after_scan_seconds\tstart_and_end_seconds\tratio_to_scan\thits\n' > "$OUT/long_query.tsv"
for run in 1 2 3; do
  start=$(date +%s.%N)
  $ws search --device gpu -q "$work/titin.fa" -d "$work/proteins.wsdb" -o "$work/out.tsv" 2> "$OUT/long_query-$run.err"
  end=$(date +%s.%N)
  python3 - "$run" "$start" "$end" "$OUT/long_query-$run.err" "$work/out.tsv" >> "$OUT/long_query.tsv" <<'PY'
import re, sys
run, start, end, err, out = sys.argv[1:]
text = open(err).read()
scan = float(re.search(r"scan ([0-9.]+) s", text).group(1))
after = float(re.search(r"aligning hits after the scan ([0-9.]+) s", text).group(1))
locate = float(re.search(r"start and end ([0-9.]+) s", text).group(1))
seconds = float(end) - float(start)
print(f"{run}\t{seconds:.2f}\t{scan:.2f}\t{after:.2f}\t{locate:.2f}\t{seconds / scan:.2f}\t{sum(1 for _ in open(out))}")
PY
done
cat "$OUT/long_query.tsv" "$OUT/long_query-1.err"
