#!/usr/bin/env bash
# Runs on the lent GPU machine (carry/ as for run_on_device.sh): every query-profile shape forced in turn
# against the length-bin kernels ("off") on db1 and db8, per query, one process per database; then ncu's
# warp-state and pipe sections for the profile kernel of one query (QUERY, default 19: 5,478 residues)
# with each shape in NCU_SHAPES. Writes TSVs and logs to $OUT.
set -u
OUT=${OUT:-/tmp/warpsearch-out}
mkdir -p "$OUT"
BIN=carry/bin
DATA=carry/data
WORK=/tmp/warpsearch-work
mkdir -p "$WORK"
export LD_LIBRARY_PATH=$PWD/carry/lib:${LD_LIBRARY_PATH:-}
[[ -s $WORK/db1.fa ]] || gunzip -c "$DATA/proteins.fa.gz" > "$WORK/db1.fa"
if [[ ! -s $WORK/db8.fa ]]; then
  for _ in 1 2 3 4 5 6 7 8; do cat "$WORK/db1.fa"; done > "$WORK/db8.fa"
fi
for db in ${SWEEP_DBS:-db1 db8}; do
  timeout 240 "$BIN/gpu_score_bench" --db "$WORK/$db.fa" --queries "$DATA/cudasw_20.fa" --repeat 1 \
    --profile-kernels "${SWEEP:-off,auto,0,1,2,3,4}" --tsv "$OUT/sweep_$db.tsv" --label "$db" > "$OUT/sweep_$db.log" 2>&1
  grep overall "$OUT/sweep_$db.log"
done
for shape in ${NCU_SHAPES:-}; do
  timeout 120 ncu --kernel-name regex:sw_profile_kernel --launch-skip 1 --launch-count 1 \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section SpeedOfLight \
    --section Occupancy --section MemoryWorkloadAnalysis \
    --metrics smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio,smsp__average_warps_issue_stalled_misc_per_issue_active.ratio,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum \
    "$BIN/gpu_score_bench" --db "$WORK/db1.fa" --queries "$DATA/cudasw_20.fa" --only-query "${QUERY:-19}" --repeat 1 \
    --profile-kernels "$shape" > "$OUT/ncu_shape$shape.txt" 2>&1
  grep -E "stalled|pipe_|wavefronts|sectors|Issue Slots Busy|Eligible|Active Warps|Compute \(SM\)|L1/TEX Hit|Mem Busy|Duration|Achieved Occ|No Eligible" "$OUT/ncu_shape$shape.txt" | head -30
done
