// The GPU X-drop kernel template: one warp per extension job, the anti-diagonal logic of
// kernels/gpu/xdrop_lanes.hpp (shared with the CPU emulation test) on 32 lanes. Private to kernels/gpu.
//
// Per job, per anti-diagonal d: every lane computes the same band (xdrop_band, uniform) and resolves its
// arrays (xdrop_rings); lane t computes rows low + t, low + t + 32, ... (xdrop_cell: five 32-bit scratch
// loads, two residue bytes, one table byte, three stores); lanes 0 and 1 write the sentinels; __syncwarp
// orders the stores before the next anti-diagonal's loads (and this anti-diagonal's loads before the
// stores two anti-diagonals later); four warp reductions give the anti-diagonal's best cell and live rows
// (xdrop_warp_summary); every lane then updates the same state (xdrop_finish). `best` is thus updated once per whole
// anti-diagonal, as the definition asks, and the cells of one anti-diagonal are independent of each other.
//
// kSharedRows > 0: each warp's scratch rings (kXdropArrays x kSharedRows words) live in shared memory,
// after the block's copy of the substitution table; a band wider than kSharedRows - 2 rows stops the job
// with kXdropOverflow (the host runs it again with the next tier of kXdropSharedTiers, then in global
// rings). kSharedRows = 0: the rings are in global memory, `global_rows` rows per warp, one slot per
// warp of the grid (global_slots of them). Jobs are claimed one at a time with an atomic counter
// (zero before the launch), so warps that drew short extensions take more.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gpu/xdrop_lanes.hpp"

namespace warpsearch::gpu::detail {

inline constexpr int kXdropWarpsPerBlock = 4;
inline constexpr int kXdropBlockThreads = kXdropWarpsPerBlock * kXdropLanes;
// Rows of the shared rings, by tier: bands of up to 126 rows with 15 KB of shared memory per block, then
// up to 510 rows with 57 KB (3 blocks per SM). The bands of 5..10 kb reads at 15% divergence (+1/-1/-1)
// reach 75 rows at X = 50, 119 at X = 100: the first tier is the one that matters.
inline constexpr int kXdropSharedTiers[] = {128, 512};
inline constexpr int kXdropSharedTierCount = 2;
// Blocks per SM the first tier asks registers for (__launch_bounds__): 12 x 4 warps at 40 registers,
// where the shared memory would allow 14 (sm_90, 228 KB); without the bound ptxas takes 46 (10 blocks).
inline constexpr int kXdropFirstTierBlocks = 12;

struct XdropKernelParams {
  const std::uint8_t* residues = nullptr;  // the batch's residue codes (below kMaxCodes)
  const XdropJob* jobs = nullptr;
  XdropJobResult* results = nullptr;  // results[k] for jobs[k]
  std::uint32_t job_count = 0;
  std::uint32_t* next_job = nullptr;   // claim counter, 0 at launch
  const std::int8_t* table = nullptr;  // kXdropTableBytes, [query code][target code]
  XdropScoring scoring;
  std::int32_t* global_scratch = nullptr;  // kSharedRows = 0: global_slots x kXdropArrays x global_rows words
  std::uint32_t global_rows = 0;
  std::uint32_t global_slots = 0;
};

// Dynamic shared memory of a block.
constexpr std::size_t xdrop_shared_bytes(int shared_rows) {
  return static_cast<std::size_t>(kXdropTableBytes) +
         static_cast<std::size_t>(kXdropWarpsPerBlock) * kXdropArrays * static_cast<std::size_t>(shared_rows) * 4;
}

__device__ __forceinline__ XdropDiagonalSummary xdrop_warp_summary(const XdropLaneTrack& track) {
  constexpr unsigned kAll = 0xFFFFFFFFu;
  XdropDiagonalSummary summary;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  summary.best = __reduce_max_sync(kAll, track.best);
  summary.best_row = __reduce_min_sync(kAll, track.best == summary.best ? track.best_row : kXdropNone);
  summary.live_low = __reduce_min_sync(kAll, track.first);
  summary.live_high = __reduce_max_sync(kAll, track.last);
#else
  std::int32_t best = track.best;
  std::uint32_t low = track.first, high = track.last;
  for (int offset = 16; offset > 0; offset /= 2) {
    best = max(best, __shfl_xor_sync(kAll, best, offset));
    low = min(low, __shfl_xor_sync(kAll, low, offset));
    high = max(high, __shfl_xor_sync(kAll, high, offset));
  }
  std::uint32_t row = track.best == best ? track.best_row : kXdropNone;
  for (int offset = 16; offset > 0; offset /= 2) row = min(row, __shfl_xor_sync(kAll, row, offset));
  summary.best = best;
  summary.best_row = row;
  summary.live_low = low;
  summary.live_high = high;
#endif
  return summary;
}

// One job on one warp; lane 0 writes its result.
__device__ __forceinline__ void xdrop_run_job(const XdropKernelParams& p, const XdropJob job, const std::int8_t* table,
                                              const XdropScratch& scratch, int lane, XdropJobResult* result) {
  const XdropSequences sequences = xdrop_sequences(job, p.residues);
  XdropWarpState state = xdrop_start(job.query_length, job.target_length);
  __syncwarp();  // the previous job's last loads are done before lane 0 overwrites the start words
  if (lane == 0) xdrop_start_scratch(scratch);
  __syncwarp();
  bool overflow = false;
  while (!state.done) {
    const XdropBand band = xdrop_band(state, p.scoring);
    if (!xdrop_band_fits(band, scratch.rows)) {
      overflow = true;
      break;
    }
    const XdropRings rings = xdrop_rings(scratch, band);
    XdropLaneTrack track;
    for (std::uint32_t k = static_cast<std::uint32_t>(lane); k < band.count; k += kXdropLanes) {
      const std::uint32_t i = band.low + k;
      const std::int32_t substitution = xdrop_substitution(sequences, table, state.d, i);
      track.add(i, xdrop_cell(rings, band.threshold, i, substitution, p.scoring));
    }
    xdrop_sentinels(band, rings, lane);
    __syncwarp();
    xdrop_finish(state, band, xdrop_warp_summary(track));
  }
  if (lane == 0) *result = xdrop_result(state, overflow);
}

template <int kSharedRows>
__global__ void __launch_bounds__(kXdropBlockThreads, kSharedRows == kXdropSharedTiers[0] ? kXdropFirstTierBlocks : 1)
    xdrop_kernel(const XdropKernelParams p) {
  static_assert(kSharedRows >= 0 && (kSharedRows & (kSharedRows - 1)) == 0, "the rings' rows: a power of two");
  extern __shared__ __align__(16) unsigned char xdrop_shared[];
  std::int8_t* table = reinterpret_cast<std::int8_t*>(xdrop_shared);
  for (int k = static_cast<int>(threadIdx.x); k < kXdropTableBytes; k += kXdropBlockThreads) table[k] = p.table[k];
  __syncthreads();
  const int warp = static_cast<int>(threadIdx.x) / kXdropLanes;
  const int lane = static_cast<int>(threadIdx.x) % kXdropLanes;
  XdropScratch scratch;
  if constexpr (kSharedRows > 0) {
    scratch.words = reinterpret_cast<std::int32_t*>(xdrop_shared + kXdropTableBytes) +
                    static_cast<std::size_t>(warp) * kXdropArrays * kSharedRows;
    scratch.rows = kSharedRows;
  } else {
    const std::uint64_t slot =
        static_cast<std::uint64_t>(blockIdx.x) * kXdropWarpsPerBlock + static_cast<std::uint64_t>(warp);
    if (slot >= p.global_slots) return;
    scratch.words = p.global_scratch + slot * kXdropArrays * p.global_rows;
    scratch.rows = p.global_rows;
  }
  for (;;) {
    std::uint32_t k = 0;
    if (lane == 0) k = atomicAdd(p.next_job, 1u);
    k = __shfl_sync(0xFFFFFFFFu, k, 0);
    if (k >= p.job_count) return;
    const XdropJob job = p.jobs[k];
    xdrop_run_job(p, job, table, scratch, lane, p.results + k);
  }
}

}  // namespace warpsearch::gpu::detail
