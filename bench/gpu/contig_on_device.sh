#!/usr/bin/env bash
# On a GPU machine: a query as long as its subjects (a contig or a BAC against a small genome), GPU
# search, several builds alternating, with the CPU's output as the check where it finishes in time.
# Data are generated (seeded): a random DNA query of QUERY bases (default 180,000) and a 2 kb piece of
# it, against two sequences built around it at the scale s = QUERY / 180,000:
#   chrA: 300 k s random, a 4%-mutated copy of the query's first 170 k s, 500 k s random, the reverse
#         complement of a 6%-mutated copy of the query from 20 k s on, 200 k s random (about 1.33 Mb at s = 1);
#   chrB: 400 k s random, an 8%-mutated copy of 40 k s of the query, 400 k s random (about 0.84 Mb).
# Mutations: a third substitutions, a third deletions, a third insertions. Both strands are searched,
# --evalue 1e-10, tabular output with the score.
#   bench/gpu/contig_on_device.sh LABEL=BINARY [LABEL=BINARY ...]
#   (QUERY=180000, ROUNDS=2, CPU_SECONDS=0: the CPU's twin run with this time limit, 0 = not run)
# Writes $OUT/contig.tsv (label, device, query and subject bases, wall seconds, the command's own scan
# seconds and cells a second, hits) and says whether each build's output equals the first build's
# and, where it ran, the CPU's.
set -u
OUT=${OUT:-/tmp/warpsearch-out}
mkdir -p "$OUT"
query=${QUERY:-180000}
work=/tmp/ws-contig
rm -rf "$work" && mkdir -p "$work"
python3 - "$work" "$query" <<'PY'
import random, sys
work, m = sys.argv[1], int(sys.argv[2])
s = m / 180000
random.seed(77)
def random_bases(n): return ''.join(random.choice('ACGT') for _ in range(int(n)))
def mutated(seq, rate):
    out = []
    for c in seq:
        x = random.random()
        if x < rate / 3: out.append(random.choice('ACGT'))
        elif x < 2 * rate / 3: continue
        elif x < rate: out.append(c + random.choice('ACGT'))
        else: out.append(c)
    return ''.join(out)
complement = str.maketrans('ACGT', 'TGCA')
q = random_bases(m)
chr_a = (random_bases(300000 * s) + mutated(q[:int(170000 * s)], 0.04) + random_bases(500000 * s) +
         mutated(q[int(20000 * s):], 0.06).translate(complement)[::-1] + random_bases(200000 * s))
chr_b = random_bases(400000 * s) + mutated(q[int(50000 * s):int(90000 * s)], 0.08) + random_bases(400000 * s)
with open(work + '/subjects.fa', 'w') as f:
    for name, seq in (('chrA', chr_a), ('chrB', chr_b)):
        f.write('>' + name + '\n' + '\n'.join(seq[i:i + 80] for i in range(0, len(seq), 80)) + '\n')
with open(work + '/queries.fa', 'w') as f:
    f.write('>contig\n' + q + '\n>piece\n' + q[int(10000 * s):int(10000 * s) + 2000] + '\n')
PY
first_bin=${1#*=}
"$first_bin" makedb --quiet "$work/subjects.fa" "$work/subjects.wsdb"
subjects=$(grep -v '>' "$work/subjects.fa" | tr -d '\n' | wc -c)
[ -f "$OUT/contig.tsv" ] || printf 'label\tdevice\tquery_nt\tsubject_nt\tseconds\tscan_seconds\tscan_G_cells_per_s\thits\n' > "$OUT/contig.tsv"
run() {  # label binary device
  local label=$1 bin=$2 device=$3 limit=600
  [ "$device" = cpu ] && limit=$CPU_SECONDS
  local start end rc; start=$(date +%s.%N)
  timeout "$limit" "$bin" search --device "$device" -q "$work/queries.fa" -d "$work/subjects.wsdb" --evalue 1e-10 \
    --outfmt "6 std score" -o "$work/$label-$device.tsv" 2> "$OUT/contig-$label-$device.err"
  rc=$?; end=$(date +%s.%N)
  if [ $rc -ne 0 ]; then echo "$label $device: rc=$rc (timeout $limit s: 124)"; rm -f "$work/$label-$device.tsv"; return; fi
  python3 - "$label" "$device" "$query" "$subjects" "$start" "$end" "$OUT/contig-$label-$device.err" \
    "$work/$label-$device.tsv" >> "$OUT/contig.tsv" <<'PY'
import re, sys
label, device, m, n, start, end, err, out = sys.argv[1:]
scan = re.search(r"scan ([0-9.]+) s", open(err).read())
scan_s = float(scan.group(1)) if scan else 0
cells = (int(m) + 2000) * int(n) * 2
hits = sum(1 for _ in open(out))
print(f"{label}\t{device}\t{m}\t{n}\t{float(end) - float(start):.2f}\t{scan_s:.2f}\t"
      f"{cells / scan_s / 1e9 if scan_s else 0:.1f}\t{hits}")
PY
}
CPU_SECONDS=${CPU_SECONDS:-0}
for round in $(seq "${ROUNDS:-2}"); do
  for pair in "$@"; do run "${pair%%=*}" "${pair#*=}" gpu; done
done
[ "$CPU_SECONDS" != 0 ] && run "${1%%=*}" "$first_bin" cpu
first=${1%%=*}
for pair in "$@"; do
  label=${pair%%=*}
  cmp -s "$work/$label-gpu.tsv" "$work/$first-gpu.tsv" && echo "$label: GPU output == $first's" ||
    echo "$label: GPU output DIFFERS from $first's"
  [ -f "$work/$first-cpu.tsv" ] && { cmp -s "$work/$label-gpu.tsv" "$work/$first-cpu.tsv" &&
    echo "$label: GPU output == CPU output ($(wc -l < "$work/$first-cpu.tsv") lines)" ||
    echo "$label: GPU output DIFFERS from CPU output"; }
done | tee -a "$OUT/contig_identical.txt"
cat "$OUT/contig.tsv"
