#!/usr/bin/env bash
# What the database checksums cost: the manifest's CRC-32 is checked on every open, each
# chunk's four files once per process when the search first maps them, the headers on the first ID
# looked up. Measures, on a synthetic protein database (bench/gen_synthetic_fasta.py, RESIDUES residues,
# default 256M, chunks of CHUNK residues, default 64M), with a warm page cache:
#   open_s      dbinfo DB: open (stat every file, read and check the manifest) and print
#   verify_s    dbinfo --verify: CRC-32 of every file, i.e. what one search checks over its run
#   crc_GB_s    database bytes / (verify_s - open_s)
#   search_s    one 300-residue query, --max-target-seqs 10, THREADS CPU threads (default 2)
#   share       (verify_s - open_s) / search_s: the part of that search spent on checksums
# Appends one row to bench/results/checksum_cost.tsv. Scratch files go to $WORK and are deleted.
#
# usage: bench/checksum_cost.sh [path/to/warpsearch]      (default: build/tools/warpsearch)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
binary="${1:-$root/build/tools/warpsearch}"
work="${WORK:-/tmp/warpsearch-checksum-bench}"
residues="${RESIDUES:-256M}"
chunk="${CHUNK:-64M}"
threads="${THREADS:-2}"
results="$here/results/checksum_cost.tsv"

[[ -x "$binary" ]] || { echo "no warpsearch binary at $binary (build first)" >&2; exit 1; }
mkdir -p "$work" "$(dirname "$results")"
trap 'rm -rf "$work"' EXIT

seconds() {  # best of 3 wall-clock seconds of a command (output discarded)
  local best="" start end t
  for _ in 1 2 3; do
    start="$(date +%s.%N)"
    "$@" >/dev/null
    end="$(date +%s.%N)"
    t="$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')"
    if [[ -z "$best" ]] || awk -v a="$t" -v b="$best" 'BEGIN {exit !(a < b)}'; then best="$t"; fi
  done
  echo "$best"
}

python3 "$here/gen_synthetic_fasta.py" "$work/in.fa" "$residues" 7
"$binary" makedb --quiet --chunk-size "$chunk" "$work/in.fa" "$work/db"
rm "$work/in.fa"
python3 - "$work/q.fa" <<'PY'
import random, sys
rng = random.Random(11)
with open(sys.argv[1], "w") as out:
    out.write(">q\n" + "".join(rng.choice("ACDEFGHIKLMNPQRSTVWY") for _ in range(300)) + "\n")
PY
cat "$work"/db/* >/dev/null  # warm the page cache

db_bytes="$(du -sb "$work/db" | cut -f1)"
chunks="$(grep -c '^chunk ' "$work/db/manifest.txt")"
open_s="$(seconds "$binary" dbinfo "$work/db")"
verify_s="$(seconds "$binary" dbinfo --verify "$work/db")"
search_s="$(seconds "$binary" search --quiet --device cpu --threads "$threads" -q "$work/q.fa" -d "$work/db" --max-target-seqs 10)"
crc_s="$(awk -v v="$verify_s" -v o="$open_s" 'BEGIN {d = v - o; print (d > 0 ? d : 0.001)}')"
crc_rate="$(awk -v b="$db_bytes" -v s="$crc_s" 'BEGIN {printf "%.2f", b / s / 1e9}')"
share="$(awk -v c="$crc_s" -v s="$search_s" 'BEGIN {printf "%.3f", c / s}')"

commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
load="$(cut -d' ' -f1 /proc/loadavg)"
if [[ ! -s "$results" ]]; then
  printf 'date\tcommit\tmachine\tload\tresidues\tchunks\tdb_bytes\topen_s\tverify_s\tcrc_GB_s\tsearch_s\tthreads\tshare\n' >"$results"
fi
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" "$machine" "$load" \
  "$residues" "$chunks" "$db_bytes" "$open_s" "$verify_s" "$crc_rate" "$search_s" "$threads" "$share" | tee -a "$results"
