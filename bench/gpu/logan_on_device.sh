#!/usr/bin/env bash
# On the GPU machine, from the repository root: X-drop side by side: LOGAN (GPU, github.com/albertozeni/LOGAN,
# built by bench/logan_build.py), our `warpsearch align --mode xdrop` on the CPU and on the GPU, on the same pairs,
# X = 50 and 100.
#   carry/bin/logan        LOGAN's demo, patched to count cells (bench/logan_build.py); needs libgomp.so.1 (carry/lib)
#   carry/bin/warpsearch   the command-line tool (any build that starts here: not one linked to MPI without it)
#   carry/bin/gpu_xdrop_bench   optional (bench/gpu_xdrop_bench.cu): the GPU call alone and its kernels, exact cells
#   carry/data/reads_N/{reads_a.fa,reads_b.fa,reads_pairs.tsv}   if present; else made here from
#   carry/data/lambda_virus.fa.gz by bench/align_make_data.py (N pairs of 5..10 kb, 15% divergence; ~35 s for 10,000)
# Same scoring on both sides: LOGAN's, which is compiled in (+1 match, -1 mismatch, -1 per gap residue, linear);
# ours with --match 1 --mismatch -1 --gapopen 0 --gapextend 1 (a gap of length k costs 0 + k * 1).
# Per X: one LOGAN run with the cell-counting kernel (per-pair scores, spans and cells; compared with ours by
# bench/logan_pairs.py compare), then REPEAT timed runs of each engine (LOGAN's own kernel, no counting; warpsearch
# --device cpu and --device gpu); the GPU output file is compared with the CPU's byte for byte (cmp), and once more
# with --cigar (operations: the CPU traces back, the spans come from the GPU); medians go to
# $OUT/logan_side_by_side.tsv:
#   label engine xdrop pairs seconds cells gcups pairs_per_s timing repeats note
# timing: process = wall time of the whole command (LOGAN: reading its text input, CUDA context, LOGAN();
# warpsearch: reading FASTA and pairs, CUDA context for the GPU, aligning, writing the TSV); call = LOGAN's "Total
# Execution time" (host prefix/suffix copies, allocations, transfers, kernels), for warpsearch_gpu one warm
# GpuXdropAligner::align() call (seeds, packing, upload, kernels, results; gpu_xdrop_bench); kernels = LOGAN's "GPU
# only time" (kernels and copies back), for warpsearch_gpu the extension kernels' device time (gpu_xdrop_bench);
# summary = the seconds of warpsearch's own summary line.
# Cells: LOGAN: the cells its kernel computes, the sum over anti-diagonals of maxCol - minCol (every cell between
# the first and last live ones, left and right extension; the seed not counted); warpsearch: the cells it reports
# computing (the band of cells with a live neighbour; the same on CPU and GPU), taken from its GCUPS x seconds (3
# significant digits), or exactly from gpu_xdrop_bench when it ran.
# Environment: PAIRS (10000), XDROPS ("50 100"), REPEAT (3), THREADS (all cores), LOGAN, WARPSEARCH, GPU_BENCH.
set -u
FINAL_OUT=${OUT:-/tmp/warpsearch-out}
LOGS=/tmp/logan-side-logs
WORK=/tmp/logan-side-work
rm -rf "$LOGS" && mkdir -p "$LOGS" "$FINAL_OUT" "$WORK"  # a warm machine keeps /tmp between calls
PAIRS=${PAIRS:-10000}
XDROPS=${XDROPS:-"50 100"}
REPEAT=${REPEAT:-3}
THREADS=${THREADS:-$(nproc)}
LOGAN=${LOGAN:-$PWD/carry/bin/logan}
WARPSEARCH=${WARPSEARCH:-$PWD/carry/bin/warpsearch}
GPU_BENCH=${GPU_BENCH:-$PWD/carry/bin/gpu_xdrop_bench}
export LD_LIBRARY_PATH=$PWD/carry/lib:${LD_LIBRARY_PATH:-}
summary=()
say() { summary+=("$*"); echo "$*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  | tee "$LOGS/gpu.txt"
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
git rev-parse HEAD > "$LOGS/commit.txt" 2>/dev/null
{ echo "== logan"; ldd "$LOGAN"; echo "== warpsearch"; ldd "$WARPSEARCH"; } > "$LOGS/ldd.txt" 2>&1
logan_ok=1 ws_ok=1
"$LOGAN" > "$LOGS/logan_usage.txt" 2>&1; [[ $? == 2 ]] || { logan_ok=0; say "LOGAN does not start (ldd.txt, logan_usage.txt)"; }
"$WARPSEARCH" align --help > /dev/null 2> "$LOGS/warpsearch_start.txt" || { ws_ok=0; say "warpsearch does not start (ldd.txt, warpsearch_start.txt)"; }

# Inputs.
data=$PWD/carry/data/reads_$PAIRS
if [[ ! -s $data/reads_pairs.tsv ]]; then
  data=$WORK/reads_$PAIRS
  if [[ ! -s $data/reads_pairs.tsv ]]; then
    mkdir -p "$data"
    start=$(date +%s)
    python3 bench/align_make_data.py reads "$data" carry/data/lambda_virus.fa.gz "$PAIRS" > "$LOGS/make_data.log" 2>&1 \
      || { cat "$LOGS/make_data.log"; rm -rf "$data"; exit 1; }
    say "data: $(cat "$LOGS/make_data.log") in $(( $(date +%s) - start )) s"
  fi
fi
python3 bench/logan_pairs.py input "$data/reads_a.fa" "$data/reads_b.fa" "$data/reads_pairs.tsv" "$WORK/logan_input.txt" \
  > "$LOGS/logan_input.log" 2>&1 || { cat "$LOGS/logan_input.log"; exit 1; }
k=$(sed -nE 's/^k=([0-9]+) pairs=.*/\1/p' "$LOGS/logan_input.log")
npairs=$(sed -nE 's/^k=[0-9]+ pairs=([0-9]+)$/\1/p' "$LOGS/logan_input.log")
say "LOGAN input: $npairs pairs, k = $k"

raw=$LOGS/raw.tsv  # engine xdrop repeat timing seconds cells
printf 'engine\txdrop\trepeat\ttiming\tseconds\tcells\n' > "$raw"
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b - a }'; }

for x in $XDROPS; do
  if [[ $logan_ok == 1 ]]; then
    # Counting run: per-pair results and LOGAN's cells (the instrumented copy of its kernel).
    timeout 300 "$LOGAN" "$WORK/logan_input.txt" "$k" "$x" 1 "$WORK/logan_$x.results" > "$LOGS/logan_${x}_count.log" 2>&1
    rc=$?
    logan_cells=$(sed -nE 's/^Computed cells:\t([0-9]+)$/\1/p' "$LOGS/logan_${x}_count.log")
    say "LOGAN X=$x counting run: rc=$rc cells=${logan_cells:-?}"
    [[ $rc == 0 && -n $logan_cells ]] || logan_cells=NA
    for r in $(seq "$REPEAT"); do
      log=$LOGS/logan_${x}_run$r.log
      t0=$(now)
      timeout 300 "$LOGAN" "$WORK/logan_input.txt" "$k" "$x" 1 > "$log" 2>&1
      rc=$?
      t1=$(now)
      if [[ $rc != 0 ]]; then say "LOGAN X=$x run $r: rc=$rc: $(tail -2 "$log" | tr '\n' ' ')"; continue; fi
      call=$(sed -nE 's/^Total Execution time:\t([0-9.e+-]+)$/\1/p' "$log")
      kernels=$(awk -F'\t+' '/^GPU only time:/ { s += $2 } END { print s }' "$log")
      printf 'logan\t%s\t%s\tprocess\t%s\t%s\n' "$x" "$r" "$(elapsed "$t0" "$t1")" "$logan_cells" >> "$raw"
      printf 'logan\t%s\t%s\tcall\t%s\t%s\n' "$x" "$r" "$call" "$logan_cells" >> "$raw"
      printf 'logan\t%s\t%s\tkernels\t%s\t%s\n' "$x" "$r" "$kernels" "$logan_cells" >> "$raw"
    done
  fi
  if [[ $ws_ok == 1 ]]; then
    for device in cpu gpu; do
      for r in $(seq "$REPEAT"); do
        log=$LOGS/warpsearch_${device}_${x}_run$r.log
        t0=$(now)
        timeout 300 "$WARPSEARCH" align --device "$device" --threads "$THREADS" --query "$data/reads_a.fa" \
          --target "$data/reads_b.fa" --pairs "$data/reads_pairs.tsv" --mode xdrop --xdrop "$x" \
          --match 1 --mismatch -1 --gapopen 0 --gapextend 1 -o "$WORK/warpsearch_${device}_$x.tsv" > "$log" 2>&1
        rc=$?
        t1=$(now)
        if [[ $rc != 0 ]]; then say "warpsearch --device $device X=$x run $r: rc=$rc: $(tail -2 "$log" | tr '\n' ' ')"; continue; fi
        # "warpsearch align: 10000 pairs (xdrop), 12.34 s, 810.4 pairs/s, 1.29 GCUPS on cpu (16 threads)"
        line=$(grep '^warpsearch align: ' "$log" | tail -1)
        seconds=$(sed -E 's/.*\), ([0-9.]+) s,.*/\1/' <<<"$line")
        gcups=$(sed -E 's/.*pairs\/s, ([0-9.]+) GCUPS.*/\1/' <<<"$line")
        cells=$(awk -v g="$gcups" -v s="$seconds" 'BEGIN { printf "%.0f", g * s * 1e9 }')
        printf 'warpsearch_%s\t%s\t%s\tprocess\t%s\t%s\n' "$device" "$x" "$r" "$(elapsed "$t0" "$t1")" "$cells" >> "$raw"
        printf 'warpsearch_%s\t%s\t%s\tsummary\t%s\t%s\n' "$device" "$x" "$r" "$seconds" "$cells" >> "$raw"
      done
    done
    # The GPU's output, byte for byte the CPU's: spans only (the timed runs), then with --cigar.
    if [[ -s $WORK/warpsearch_cpu_$x.tsv && -s $WORK/warpsearch_gpu_$x.tsv ]]; then
      if cmp "$WORK/warpsearch_cpu_$x.tsv" "$WORK/warpsearch_gpu_$x.tsv" > "$LOGS/cmp_$x.txt" 2>&1; then
        say "X=$x: --device gpu output byte-identical to --device cpu ($(wc -l < "$WORK/warpsearch_gpu_$x.tsv") lines)"
      else
        say "X=$x: --device gpu output DIFFERS from --device cpu: $(head -1 "$LOGS/cmp_$x.txt")"
        cp "$WORK/warpsearch_cpu_$x.tsv" "$WORK/warpsearch_gpu_$x.tsv" "$LOGS/"
      fi
    fi
    for device in cpu gpu; do
      timeout 300 "$WARPSEARCH" align --device "$device" --threads "$THREADS" --query "$data/reads_a.fa" \
        --target "$data/reads_b.fa" --pairs "$data/reads_pairs.tsv" --mode xdrop --xdrop "$x" --cigar \
        --match 1 --mismatch -1 --gapopen 0 --gapextend 1 -o "$WORK/warpsearch_${device}_${x}_cigar.tsv" \
        > "$LOGS/warpsearch_${device}_${x}_cigar.log" 2>&1 || say "warpsearch --device $device X=$x --cigar: rc=$?"
    done
    if cmp "$WORK/warpsearch_cpu_${x}_cigar.tsv" "$WORK/warpsearch_gpu_${x}_cigar.tsv" > "$LOGS/cmp_${x}_cigar.txt" 2>&1; then
      say "X=$x --cigar: --device gpu output byte-identical to --device cpu"
    else
      say "X=$x --cigar: --device gpu output DIFFERS from --device cpu: $(head -1 "$LOGS/cmp_${x}_cigar.txt")"
    fi
  fi
  if [[ -x $GPU_BENCH ]]; then
    # One warm call at a time (warm-up, then REPEAT calls), the kernels' device time, exact cells, 200 pairs
    # checked against the CPU engine.
    timeout 300 "$GPU_BENCH" --query "$data/reads_a.fa" --target "$data/reads_b.fa" --pairs "$data/reads_pairs.tsv" \
      --xdrop "$x" --match 1 --mismatch -1 --gapopen 0 --gapextend 1 --repeat "$REPEAT" --check 200 \
      --tsv "$LOGS/gpu_xdrop_bench.tsv" --label "x$x" > "$LOGS/gpu_xdrop_bench_$x.log" 2>&1
    rc=$?
    say "gpu_xdrop_bench X=$x: rc=$rc: $(tr '\n' ' ' < "$LOGS/gpu_xdrop_bench_$x.log")"
    if [[ $rc == 0 ]]; then
      # label device xdrop scoring pairs residues cells wasted seconds gcups pairs_per_s kernel_seconds ...
      row=$(awk -F'\t' -v l="x$x" '$1 == l' "$LOGS/gpu_xdrop_bench.tsv" | tail -1)
      bench_cells=$(cut -f7 <<<"$row")
      printf 'warpsearch_gpu\t%s\t1\tcall\t%s\t%s\n' "$x" "$(cut -f9 <<<"$row")" "$bench_cells" >> "$raw"
      printf 'warpsearch_gpu\t%s\t1\tkernels\t%s\t%s\n' "$x" "$(cut -f12 <<<"$row")" "$bench_cells" >> "$raw"
    fi
  fi
  if [[ -s $WORK/logan_$x.results && -s $WORK/warpsearch_cpu_$x.tsv ]]; then
    say "X=$x scores: $(python3 bench/logan_pairs.py compare "$data/reads_pairs.tsv" "$WORK/logan_$x.results" \
      "$WORK/warpsearch_cpu_$x.tsv" 2>&1)"
    cp "$WORK/logan_$x.results" "$WORK/warpsearch_cpu_$x.tsv" "$LOGS/"
  fi
done

# Medians of the repeats.
python3 - "$raw" "$FINAL_OUT/logan_side_by_side.tsv" "$npairs" "$REPEAT" "$THREADS" "${gpu_name:-none}" <<'EOF'
import statistics, sys
raw, out, pairs, repeat, threads, gpu = sys.argv[1:]
groups = {}
with open(raw) as handle:
    next(handle)
    for line in handle:
        engine, x, _, timing, seconds, cells = line.rstrip("\n").split("\t")
        groups.setdefault((engine, int(x), timing), []).append((float(seconds), cells))
with open(out, "w") as o:
    o.write("label\tengine\txdrop\tpairs\tseconds\tcells\tgcups\tpairs_per_s\ttiming\trepeats\tnote\n")
    for (engine, x, timing), runs in sorted(groups.items(), key=lambda item: (item[0][1], item[0][0], item[0][2])):
        seconds = statistics.median(s for s, _ in runs)
        cells = runs[0][1]
        gcups = "%.3f" % (int(cells) / seconds / 1e9) if cells not in ("NA", "") and seconds > 0 else "NA"
        if engine == "logan":
            note = "%s, 1 GPU, 128 threads/block" % gpu
        elif engine == "warpsearch_gpu":
            note = "%s, 1 GPU, %s" % (gpu, "cells from gpu_xdrop_bench" if timing in ("call", "kernels") else
                                      "cells from its GCUPS; traceback threads: %s" % threads)
        else:
            note = "cpu, %s threads, cells from its GCUPS" % threads
        o.write("x%d_%s_%s\t%s\t%d\t%s\t%.4f\t%s\t%s\t%.1f\t%s\t%d\t%s\n" % (x, engine, timing, engine, x, pairs,
                seconds, cells, gcups, int(pairs) / seconds if seconds > 0 else 0.0, timing, len(runs), note))
EOF
tee "$LOGS/table.txt" < "$FINAL_OUT/logan_side_by_side.tsv"  # (no column(1) on the device)
printf '%s\n' "${summary[@]}" > "$LOGS/summary.txt"
tar -czf "$FINAL_OUT/logan_logs.tgz" -C "$LOGS" .
cp "$LOGS/summary.txt" "$FINAL_OUT/logan_summary.txt"
