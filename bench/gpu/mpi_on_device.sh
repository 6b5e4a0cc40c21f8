#!/usr/bin/env bash
# On a machine with two GPUs: cluster mode against one process. The real protein set is searched by
#   - one process using both GPUs (--gpus 0,1),
#   - 1 MPI rank using both GPUs,
#   - 2 MPI ranks, one GPU each (warpsearch gives local rank l GPU l),
# and every output must be byte-identical to the first. Times, speed-up of 2 ranks over 1 rank and rank 0's
# breakdown (scan, align, waiting, merge, output) go to $OUT/mpi_gpu.tsv; the MPI test cases run too.
#
# Needs carry/bin/warpsearch built with -DWARPSEARCH_MPI=ON (and CUDA, -DWARPSEARCH_STATIC_BOOST=ON),
# carry/bin/warpsearch_tests of the same build (optional), carry/data/{proteins.fa.gz,cudasw_20.fa}, and an
# mpirun: the machine's own, else the Open MPI that bench/gpu/prepare_mpi_carry.sh put in carry/openmpi.
set -u
OUT=${OUT:-/tmp/warpsearch-out}
mkdir -p "$OUT"
if ! command -v mpirun >/dev/null; then
  usr=$PWD/carry/openmpi/usr
  [ -x "$usr/bin/orterun" ] || { echo "mpi_on_device: no mpirun here and no carry/openmpi (bench/gpu/prepare_mpi_carry.sh)" >&2; exit 2; }
  export OPAL_PREFIX=$usr PMIX_INSTALL_PREFIX=$usr/lib/x86_64-linux-gnu/pmix2 PATH=$usr/bin:$PATH
  export LD_LIBRARY_PATH=$usr/lib/x86_64-linux-gnu:$usr/lib/x86_64-linux-gnu/openmpi/lib:$usr/lib/x86_64-linux-gnu/pmix2/lib:${LD_LIBRARY_PATH:-}
  export PMIX_MCA_mca_base_component_path=$usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
  # Plugins for fabrics this machine lacks (UCX, OFI, verbs) fail to load; that is expected.
  export OMPI_MCA_mca_base_component_show_load_errors=0
fi
# Containers often forbid the cross-memory attach of Open MPI's shared-memory transport.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun=(mpirun --allow-run-as-root --oversubscribe -x OMPI_MCA_btl_vader_single_copy_mechanism)
ws=$PWD/carry/bin/warpsearch
work=/tmp/ws-mpi
rm -rf "$work" && mkdir -p "$work"
mpirun --version 2>&1 | head -1 | tee "$OUT/mpirun.txt"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$OUT/device.txt"

if [ -x carry/bin/warpsearch_tests ]; then
  WARPSEARCH_TEST_BINARY=$ws WARPSEARCH_TEST_SOURCE_DIR=$PWD WARPSEARCH_TEST_MPIEXEC=$(command -v mpirun) \
    carry/bin/warpsearch_tests "[mpi]" > "$OUT/mpi_tests.log" 2>&1
  echo "mpi tests: rc=$? $(tail -1 "$OUT/mpi_tests.log")"
fi

gunzip -c carry/data/proteins.fa.gz > "$work/db.fa"
$ws makedb --quiet "$work/db.fa" "$work/db.wsdb"
residues=$($ws dbinfo "$work/db.wsdb" | awk '/^residues/ {gsub(",", "", $2); print $2}')
qres=$(grep -v '>' carry/data/cudasw_20.fa | tr -d '\n' | wc -c)
printf 'run\thits_per_query\tseconds\tGCUPS\tidentical\tbreakdown\tcommand\n' > "$OUT/mpi_gpu.tsv"
for top in 10 500; do
  args=(search --device gpu -q carry/data/cudasw_20.fa -d "$work/db.wsdb" --max-target-seqs "$top")
  for run in single ranks1 ranks2; do
    case $run in
      single) cmd=("$ws" "${args[@]}" --gpus 0,1) ;;
      ranks1) cmd=("${mpirun[@]}" -np 1 "$ws" "${args[@]}") ;;
      ranks2) cmd=("${mpirun[@]}" -np 2 "$ws" "${args[@]}") ;;
    esac
    "${cmd[@]}" -o "$work/warm.tsv" > /dev/null 2>&1  # warm-up: page cache, GPU contexts
    start=$(date +%s.%N)
    "${cmd[@]}" -o "$work/$run-$top.tsv" 2> "$OUT/$run-$top.err"; rc=$?
    end=$(date +%s.%N)
    same=reference
    [ "$run" = single ] || { cmp -s "$work/$run-$top.tsv" "$work/single-$top.tsv" && same=yes || same=NO; }
    breakdown=$(grep 'time per rank' "$OUT/$run-$top.err" | sed 's/.*time per rank: //')
    awk -v r="$run" -v k="$top" -v s="$start" -v e="$end" -v q="$qres" -v d="$residues" -v same="$same" \
        -v b="${breakdown:--}" -v c="${cmd[*]} (rc=$rc)" \
        'BEGIN { t = e - s; printf "%s\t%s\t%.3f\t%.1f\t%s\t%s\t%s\n", r, k, t, q * d / t / 1e9, same, b, c }' >> "$OUT/mpi_gpu.tsv"
  done
done
awk -F'\t' 'NR > 1 { t[$1 "-" $2] = $3 } END {
  for (k = 10; k <= 500; k += 490) printf "top %d: 2 ranks vs 1 rank (2 GPUs each way): speed-up %.2f\n", k, t["ranks1-" k] / t["ranks2-" k] }' \
  "$OUT/mpi_gpu.tsv" | tee "$OUT/speedup.txt"
cut -f1-5 "$OUT/mpi_gpu.tsv"
