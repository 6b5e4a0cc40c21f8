#!/usr/bin/env bash
# Exactness cross-check: the top hits of 'warpsearch search --device cpu' against ssearch36 (FASTA package,
# Debian fasta3), an exact SIMD Smith-Waterman search, on real queries and a real database, BLOSUM62, BLAST's
# gap costs 11/1 (a gap of length k costs 11 + k; ssearch36 -f -11 -g -1 charges the same).
#
#   ssearch36 -q -m 9 -d 0 -b =K -z 0 -T 2 -p -s BL62 -f -11 -g -1 QUERIES DB.fa
#     -z 0: no statistics, so the list is the K best by raw Smith-Waterman score; -m 9 adds each hit's
#     raw score (sw) and alignment coordinates (an0 ax0 on the query, an1 ax1 on the subject) to the list.
#   warpsearch search -q QUERIES -d DB --device cpu --max-target-seqs K --evalue 1e9 \
#     --outfmt "6 qseqid sseqid score qstart qend sstart send qseq sseq"
#
# Per query it compares:
#   - the multisets of the K best raw scores: they must be equal (ties at the K-th score may pick different
#     subjects; that is fine, the scores are the same);
#   - for each subject in both lists: its score (must be equal), its end coordinates qend/send (counted as
#     end mismatches where different), its start coordinates qstart/sstart (counted as start differences;
#     co-optimal alignments may start at different cells);
#   - every warpsearch alignment (qseq/sseq): it must be the stated stretch of query and subject and score
#     exactly its reported score under BLOSUM62 11/1 (rescored here from /usr/share/ncbi/data/BLOSUM62).
#     So where ends or starts differ from ssearch36, warpsearch's alignment is still an optimal one: a tie.
# Letters beyond the 20 amino acids are scored differently by the two tools (ssearch36 uses the classic
# BLOSUM62 X row, warpsearch NCBI's; see docs/scoring.md). A query whose score lists
# differ only through subjects containing such letters (the lists agree once those subjects are set aside)
# is counted as "letter-explained", not as a mismatch.
#
# Databases: data/uniprot_sample.fa (4,000 proteins), and with BIG=1 also the 32.7 M-residue set of
# bench/make_protein_db.sh (built in $WORK/big unless BIG_FASTA names an existing proteins.fa).
# Queries: data/queries.fa (10) and shared/data/cudasw_20.fa (20, 144..5478 aa).
#
# usage: bench/ssearch_check.sh [path/to/warpsearch]   (default: build-bench/tools/warpsearch, else build/)
# env:   K (hits per query, default 50), THREADS (default 2), BIG=1, BIG_FASTA, WORK (scratch directory,
#        default a temporary one), STRICT_ENDS=1 (also fail on end mismatches)
# Appends one row per database and query set to bench/results/ssearch_check.tsv; exits 1 on any score
# mismatch that letters do not explain, or on any warpsearch alignment that does not rescore to its score.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
binary=${1:-}
if [[ -z $binary ]]; then
  for candidate in "$root/build-bench/tools/warpsearch" "$root/build/tools/warpsearch"; do
    [[ -x $candidate ]] && { binary=$candidate; break; }
  done
fi
[[ -n $binary && -x $binary ]] || { echo "ssearch_check: no warpsearch binary (build first, or pass its path)" >&2; exit 2; }
command -v ssearch36 >/dev/null || { echo "ssearch_check: ssearch36 not found (Debian: fasta3)" >&2; exit 2; }
matrix_file=/usr/share/ncbi/data/BLOSUM62
[[ -r $matrix_file ]] || { echo "ssearch_check: $matrix_file not found (Debian: ncbi-data)" >&2; exit 2; }

K=${K:-50}
threads=${THREADS:-2}
results=$here/results/ssearch_check.tsv
if [[ -n ${WORK:-} ]]; then work=$WORK; mkdir -p "$work"; else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi

databases=("$root/data/uniprot_sample.fa")
if [[ ${BIG:-0} == 1 ]]; then
  big=${BIG_FASTA:-$work/big/proteins.fa}
  [[ -s $big ]] || "$here/make_protein_db.sh" "$(dirname "$big")" >&2
  databases+=("$big")
fi
queries=("$root/data/queries.fa" "$root/../shared/data/cudasw_20.fa")

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
mkdir -p "$(dirname "$results")"
[[ -s $results ]] || printf 'date\tcommit\tssearch36\tdatabase\tqueries\tK\tscore_ranks_compared\tscore_mismatches\tletter_explained_queries\tpairs_compared\tpair_score_mismatches\tpair_letter_differences\tend_mismatches\tstart_differences\talignments_rescored\talignment_errors\twarpsearch_s\tssearch36_s\n' >"$results"

compare=$work/compare.py
cat >"$compare" <<'PY'
import sys
from collections import Counter

query_fa, db_fa, ssearch_out, ours_out, matrix_file = sys.argv[1:6]
STANDARD = set("ACDEFGHIKLMNPQRSTVWY")

def read_fasta(path):
    names, seqs, cur = [], [], []
    with open(path) as f:
        for line in f:
            if line.startswith(">"):
                if names: seqs.append("".join(cur))
                names.append(line[1:].split()[0] if line[1:].split() else "")
                cur = []
            else:
                cur.append(line.strip())
    if names: seqs.append("".join(cur))
    return names, seqs

def read_matrix(path):
    rows = [l.split() for l in open(path) if l.strip() and not l.startswith("#")]
    letters = rows[0]
    return {(r[0], c): int(v) for r in rows[1:] for c, v in zip(letters, r[1:])}

M = read_matrix(matrix_file)
def canon(c):  # warpsearch's rules (docs/scoring.md): upper case, U as C, O as X, unknown as X
    c = c.upper()
    c = {"U": "C", "O": "X"}.get(c, c)
    return c if (c, c) in M else "X"

qnames, qseqs = read_fasta(query_fa)
snames, sseqs = read_fasta(db_fa)
subject = {}
for n, s in zip(snames, sseqs):
    subject.setdefault(n, s)
nonstandard = {n for n, s in subject.items() if not set(s.upper()) <= STANDARD}

def ss_nonstandard(ident):  # ssearch36 may cut long identifiers short
    if ident in subject: return ident in nonstandard
    return any(n.startswith(ident) for n in nonstandard)

# ssearch36 -m 9 best-score list: "ID description (len)  sw bits E\t%id %sim sw alen an0 ax0 pn0 px0 an1 ax1 ..."
ss = [[] for _ in qnames]
qi, in_list = -1, False
for line in open(ssearch_out, errors="replace"):
    if ">>>" in line and line.lstrip()[:1].isdigit() and not line.startswith(">>>"):
        qi = int(line.split(">>>")[0]) - 1
        continue
    if line.startswith("The best scores are:"):
        in_list = True
        continue
    if in_list:
        if not line.strip() or "\t" not in line:
            in_list = False
            continue
        if line.startswith("+-"):  # a further, non-overlapping alignment with the same subject: not a hit
            continue
        left, right = line.rstrip("\n").split("\t", 1)
        f = right.split()
        ss[qi].append(dict(id=left.split()[0], score=int(f[2]), qs=int(f[4]), qe=int(f[5]),
                           ss=int(f[8]), se=int(f[9])))

ours = {}
for line in open(ours_out):
    f = line.rstrip("\n").split("\t")
    ours.setdefault(f[0], []).append(dict(id=f[1], score=int(f[2]), qs=int(f[3]), qe=int(f[4]), ss=int(f[5]),
                                          se=int(f[6]), qseq=f[7], sseq=f[8]))

def rescore(h, q):
    """Checks that warpsearch's alignment is what it says; returns an error message or None."""
    s = subject.get(h["id"])
    if s is None:
        return "unknown subject"
    qa, sa = h["qseq"], h["sseq"]
    if len(qa) != len(sa): return "qseq and sseq differ in length"
    if qa.replace("-", "").upper() != q[h["qs"] - 1:h["qe"]].upper(): return "qseq is not query[qstart..qend]"
    if sa.replace("-", "").upper() != s[h["ss"] - 1:h["se"]].upper(): return "sseq is not subject[sstart..send]"
    total, gap = 0, None
    for a, b in zip(qa, sa):
        if a == "-" and b == "-": return "column of two gaps"
        if a == "-" or b == "-":
            kind = "q" if a == "-" else "s"
            total -= 1 if gap == kind else 12   # open 11 + extend 1 for the first column of a gap
            gap = kind
        else:
            total += M[(canon(a), canon(b))]
            gap = None
    if total != h["score"]: return f"alignment scores {total}, reported {h['score']}"
    return None

stats = Counter()
for i, (qn, q) in enumerate(zip(qnames, qseqs)):
    a, b = ours.get(qn, []), ss[i]
    stats["queries"] += 1
    sa, sb = sorted((h["score"] for h in a), reverse=True), sorted((h["score"] for h in b), reverse=True)
    stats["ranks"] += max(len(sa), len(sb))
    if sa != sb:
        fa = sorted((h["score"] for h in a if h["id"] not in nonstandard), reverse=True)
        fb = sorted((h["score"] for h in b if not ss_nonstandard(h["id"])), reverse=True)
        m = min(len(fa), len(fb))
        if fa[:m] == fb[:m] and set(q.upper()) <= STANDARD:
            stats["letter_queries"] += 1
            mine = {(h["id"], h["score"]) for h in a if h["id"] in nonstandard}
            theirs = {(h["id"], h["score"]) for h in b if ss_nonstandard(h["id"])}
            odd = sorted([f"{i} {sc} (warpsearch)" for i, sc in mine - theirs] +
                         [f"{i} {sc} (ssearch36)" for i, sc in theirs - mine])
            print(f"  {qn}: score lists differ only through subjects with letters beyond the 20: {', '.join(odd)}",
                  file=sys.stderr)
        else:
            diff = sum(((Counter(sa) - Counter(sb)) + (Counter(sb) - Counter(sa))).values())
            stats["score_mismatches"] += diff
            print(f"  SCORE MISMATCH {qn}: warpsearch {sa[:12]}... ssearch36 {sb[:12]}...", file=sys.stderr)
    # pairs: the same subject in both lists (ssearch36 may cut long identifiers short: prefix match)
    by_id = {}
    for h in a: by_id.setdefault(h["id"], []).append(h)
    for h in b:
        cands = by_id.get(h["id"]) or [x for x in a if x["id"].startswith(h["id"])]
        if len(cands) != 1: continue
        x = cands[0]
        stats["pairs"] += 1
        if x["score"] != h["score"]:
            if x["id"] in nonstandard:
                stats["pair_letter"] += 1
            else:
                stats["pair_score_mismatches"] += 1
                print(f"  PAIR SCORE MISMATCH {qn} {x['id']}: warpsearch {x['score']} ssearch36 {h['score']}",
                      file=sys.stderr)
            continue
        if (x["qe"], x["se"]) != (h["qe"], h["se"]):
            stats["end_mismatches"] += 1
            print(f"  end differs {qn} {x['id']} score {x['score']}: warpsearch q {x['qs']}-{x['qe']} s {x['ss']}-{x['se']},"
                  f" ssearch36 q {h['qs']}-{h['qe']} s {h['ss']}-{h['se']}", file=sys.stderr)
        elif (x["qs"], x["ss"]) != (h["qs"], h["ss"]):
            stats["start_differences"] += 1
    for x in a:
        stats["rescored"] += 1
        err = rescore(x, q)
        if err:
            stats["alignment_errors"] += 1
            print(f"  ALIGNMENT ERROR {qn} {x['id']}: {err}", file=sys.stderr)
keys = ["queries", "ranks", "score_mismatches", "letter_queries", "pairs", "pair_score_mismatches", "pair_letter",
        "end_mismatches", "start_differences", "rescored", "alignment_errors"]
print(" ".join(f"{k}={stats[k]}" for k in keys))
PY

status=0
for db in "${databases[@]}"; do
  dbdir=$work/db.$(basename "$db" .fa)
  [[ -d $dbdir ]] || "$binary" makedb "$db" "$dbdir" --quiet
  for q in "${queries[@]}"; do
    name="$(basename "$q") vs $(basename "$db")"
    echo "ssearch_check: $name (K=$K)" >&2
    t0=$(date +%s.%N)
    ssearch36 -q -m 9 -d 0 -b "=$K" -z 0 -T "$threads" -p -s BL62 -f -11 -g -1 "$q" "$db" >"$work/ssearch.out"
    t1=$(date +%s.%N)
    ssearch_version=$(sed -n 's/^ *version \([^ ]*\).*/\1/p' "$work/ssearch.out" | head -1)
    "$binary" search -q "$q" -d "$dbdir" --device cpu --threads "$threads" --quiet \
      --outfmt "6 qseqid sseqid score qstart qend sstart send qseq sseq" --max-target-seqs "$K" --evalue 1e9 \
      >"$work/ours.tsv"
    t2=$(date +%s.%N)
    summary=$(python3 "$compare" "$q" "$db" "$work/ssearch.out" "$work/ours.tsv" "$matrix_file")
    echo "  $summary" >&2
    declare -A s=()
    for kv in $summary; do s[${kv%%=*}]=${kv#*=}; done
    (( s[score_mismatches] + s[pair_score_mismatches] + s[alignment_errors] == 0 )) || status=1
    [[ ${STRICT_ENDS:-0} == 1 ]] && (( s[end_mismatches] > 0 )) && status=1
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%.1f\n' \
      "$(date -u +%Y-%m-%dT%H:%MZ)" "$commit" "$ssearch_version" "$(basename "$db")" \
      "$(basename "$q") (${s[queries]})" "$K" "${s[ranks]}" "${s[score_mismatches]}" "${s[letter_queries]}" \
      "${s[pairs]}" "${s[pair_score_mismatches]}" "${s[pair_letter]}" "${s[end_mismatches]}" \
      "${s[start_differences]}" "${s[rescored]}" "${s[alignment_errors]}" \
      "$(awk -v a="$t1" -v b="$t2" 'BEGIN {print b - a}')" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" >>"$results"
    unset s
  done
done
if (( status == 0 )); then echo "ssearch_check: all top-$K scores match ssearch36" >&2
else echo "ssearch_check: MISMATCHES (see above)" >&2; fi
exit $status
