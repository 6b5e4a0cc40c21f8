#!/usr/bin/env bash
# DNA queries of 0.5-10 kb against a bacterial-sized genome (one FASTA record, default 4.41 Mb), on the CPU,
# whole commands, both strands; ssearch36 (Debian fasta3) on the same work in the same run.
# GCUPS = query length x genome length x 2 strands / wall seconds / 1e9. The genome is generated (no
# bacterial genome ships in Debian): random bases with 8 mutated copies of each query planted on both
# strands, so that every command reports HSPs.
#   bench/genome_search_bench.sh [BUILD_DIR]   (LENGTHS="500 2000 10000", GENOME=4410000, SSEARCH=1)
# Appends rows to bench/results/genome_search_cpu.tsv.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
tool=$build/tools/warpsearch
lengths=${LENGTHS:-"500 2000 10000"}
genome_length=${GENOME:-4410000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results=$root/bench/results/genome_search_cpu.tsv
commit=$(git -C "$root" rev-parse --short HEAD)
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
[ -f "$results" ] || printf 'date\tcommit\tcpu\ttool\tquery_nt\tgenome_nt\tseconds\tgcups\thsps\tpeak_rss_mb\tcommand\n' > "$results"

python3 - "$work" "$genome_length" $lengths <<'PY'
import random, sys
work, n, lengths = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3:]]
rng = random.Random(7)
comp = str.maketrans("ACGT", "TGCA")
genome = [rng.choice("ACGT") for _ in range(n)]
def mutate(s):
    out = []
    for c in s:
        x = rng.random()
        if x < 0.04: out.append(rng.choice("ACGT"))
        elif x < 0.06: out.append(c + rng.choice("ACGT"))
        elif x < 0.08: pass
        else: out.append(c)
    return "".join(out)
for m in lengths:
    query = "".join(rng.choice("ACGT") for _ in range(m))
    open(f"{work}/q{m}.fa", "w").write(f">q{m}\n{query}\n")
    for k in range(8):
        copy = mutate(query)
        if k % 2: copy = copy.translate(comp)[::-1]
        at = rng.randrange(0, n - len(copy))
        genome[at:at + len(copy)] = list(copy)
        del genome[n:]
seq = "".join(genome)
with open(f"{work}/genome.fa", "w") as f:
    f.write(">genome generated\n")
    for i in range(0, len(seq), 80): f.write(seq[i:i + 80] + "\n")
PY

"$tool" makedb --quiet "$work/genome.fa" "$work/genome.wsdb"
timed() {  # seconds and peak RSS (MB) of a command, its stdout to $work/out
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" > "$work/out"
  read -r seconds rss < "$work/time"
  echo "$seconds $((rss / 1024))"
}
for m in $lengths; do
  cmd=("$tool" search --quiet --device cpu -q "$work/q$m.fa" -d "$work/genome.wsdb" --evalue 1e-5)
  read -r seconds rss < <(timed "${cmd[@]}")
  hsps=$(wc -l < "$work/out")
  gcups=$(python3 -c "print(f'{$m * $genome_length * 2 / $seconds / 1e9:.2f}')")
  printf '%s\t%s\t%s\twarpsearch\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%F)" "$commit" "$cpu" "$m" "$genome_length" \
    "$seconds" "$gcups" "$hsps" "$rss" "warpsearch search --device cpu --evalue 1e-5" | tee -a "$results"
  if [ "${SSEARCH:-1}" = 1 ] && [ "$m" -le 2000 ] && command -v ssearch36 >/dev/null; then
    # BLAST's 2/-3 and gaps 5/2 in ssearch36's terms (a gap of k costs -f + k * -g: the same convention).
    cmd=(ssearch36 -q -n -T "$(nproc)" -r +2/-3 -f -5 -g -2 -E 1e-5 -m 8 "$work/q$m.fa" "$work/genome.fa")
    read -r seconds rss < <(timed "${cmd[@]}")
    hsps=$(grep -vc '^#' "$work/out" || true)
    gcups=$(python3 -c "print(f'{$m * $genome_length * 2 / $seconds / 1e9:.2f}')")
    printf '%s\t%s\t%s\tssearch36\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%F)" "$commit" "$cpu" "$m" "$genome_length" \
      "$seconds" "$gcups" "$hsps" "$rss" "ssearch36 -q -n -T $(nproc) -r +2/-3 -f -5 -g -2 -E 1e-5 -m 8" | tee -a "$results"
  fi
done
