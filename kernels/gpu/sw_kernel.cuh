// The GPU Smith-Waterman kernel template (inter-task: a group of lanes per subject pair), included by
// the sw_onepass_*.cu and sw_tiled_cooperative_rescore.cu files that instantiate it per length bin.
// Private to kernels/gpu.
//
// Layout. A group of G lanes scores two subjects at once (16-bit halves of 32-bit registers) or one
// subject (32-bit). Lane t holds subject columns [t * R, t * R + R) of the current tile: per column the
// H and F values of the previous query row and the shared-memory address of its residue pair's
// substitution-table entry. The query streams through the group as a wavefront: at step s lane t
// computes query row s - t over its R columns and hands its last column's H and E to lane t + 1 by a
// warp shuffle. In the cooperative bin a lane computes two rows per step, 2 (s - t) and 2 (s - t) + 1,
// column j of the second right after column j of the first: the two rows' chains (E through the lane's
// R columns, one after the other) overlap, and the step's own work (shuffles, tile edge, loop) serves
// two rows. Measured on one H100 (the genome benchmark's data halved: 4 DNA queries of 1-10 kb against
// 50 Mb): scan 0.70 s against 0.80-0.89 s with one row; tblastn (100 proteins of 100-1,000 aa) 2.05-2.23 s
// against 1.97-2.09 s (its short queries pay twice the wavefront's fill, 31 steps of m / 2 per tile).
// Tiled kernels repeat this per tile of G * R columns; the last lane writes its column's
// H and E for each row to global memory (the tile edge), which lane 0 reads back in the next tile.
// Cooperative kernels give a pair to a team of k warps of a block (k = KernelParams::team_warps, 1 to 8,
// chosen by the query's length: cooperative_team_warps): warp w of the team takes tiles w, w + k, ...
// and starts a tile's rows once the warp on the previous tile has published them (a progress counter
// per warp in shared memory; every wait is on a lower tile, held by a running warp of the same team, so
// the pipeline cannot deadlock). On request, tiled kernels also list the tiles whose largest cell reaches the
// query's threshold (hot tiles: where the HSP search of a long subject looks, docs/long_sequences.md).
//
// Recurrence (a gap of length k costs open + k * extend; g = open + extend, e = extend):
//   H(i,j)   = max(H(i-1,j-1) + s(i,j), E(i,j), F(i,j), 0)
//   X(i,j)   = H(i,j) - g                      (the start of a gap after this cell)
//   E(i,j+1) = max(E(i,j) - e, X(i,j))         F(i+1,j) = max(F(i,j) - e, X(i,j))
// Per column and row (two cells in 16-bit mode), as ptxas emits it for sm_90: H's maximum in two steps,
// VIADDMNMX.RELU (H(i-1,j-1) + s, F, 0) and a plain VIMNMX with E; X = H - g as VIADD (the FMA pipe); the
// two gap updates as add-max instructions (VIADDMNMX); half a 3-way maximum for the running maximum of H,
// the score; one IADD + LDS for the scores. The ALU pipe is what limits the kernel (docs/gpu_kernels.md).
// The chain carried from column to column is E -> H -> X -> E: E is the last operand of H's maximum so
// that the diagonal term and F are folded before E is known, leaving three instructions on the chain
// instead of four (with E first, ptxas fused the add with E's maximum: the genome scan, latency-bound
// on that chain, took 4-5% longer). The diagonal term of column j + 1 is added before column j's H
// overwrites h[j], so H is updated in place (no register moves). Measured and set aside: E's update from
// max(H(i-1,j-1) + s, F, 0) - g instead of X (exact, since E - g <= E - e), one instruction on the chain
// but one more VIADD per column: in one A/B run, 4-6% slower on the genome, tblastn and amplicon scans.
//
// E and F start at -g (a gap can open after any cell, whose H is at least 0, so they never fall below
// it): no 16-bit value falls below -g - 128.
//
// Saturation (16-bit): every value is at most the largest H computed so far plus the largest score
// until an H + s wraps, which needs an H above 32767 - 128; the running maximum of H never decreases,
// so a final maximum below kSaturationLimit proves the score exact, and anything at or above it is
// flagged for 32-bit rescoring.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/dpx.cuh"
#include "kernels/gpu/sw_dispatch.hpp"
#include "kernels/gpu/table_copies.hpp"

namespace warpsearch::gpu::detail {

inline constexpr int kSaturationLimit = 32000;

// Unrolling the row loop by 2 lets the compiler rotate the per-column registers without moves: measured
// +6% on the 192 M-residue set and +20% on the 24 M one (docs/gpu_kernels.md). It costs a second set of
// H registers, so bins with more columns per lane than this run unrolled once. Build knobs, so that the
// benchmark can compare builds.
#ifndef WARPSEARCH_UNROLL2_MAX_REGS
#define WARPSEARCH_UNROLL2_MAX_REGS 16
#endif
inline constexpr int kUnroll2MaxRegs = WARPSEARCH_UNROLL2_MAX_REGS;

// One 32-bit word of shared memory by its shared-window byte address: with the table's base folded into
// each column's address, a substitution lookup is one integer add and one LDS.
__device__ __forceinline__ std::uint32_t load_shared(std::uint32_t address) {
  std::uint32_t value;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(value) : "r"(address));
  return value;
}

template <ScoreWidth W>
struct Lanes;

// Two subjects per register, 16-bit signed halves.
template <>
struct Lanes<ScoreWidth::s16x2> {
  using Value = unsigned int;
  static __device__ __forceinline__ Value splat(int x) {
    const unsigned int half = static_cast<unsigned int>(x) & 0xFFFFu;
    return half | (half << 16);
  }
  // max(a + b, c) per half
  static __device__ __forceinline__ Value add_max(Value a, Value b, Value c) { return dpx::add_max_s16x2(a, b, c); }
  static __device__ __forceinline__ Value add(Value a, Value b) { return __vadd2(a, b); }
  // max(a, b, c, 0) per half
  static __device__ __forceinline__ Value max3_relu(Value a, Value b, Value c) { return dpx::max3_relu_s16x2(a, b, c); }
  static __device__ __forceinline__ Value max(Value a, Value b) { return __vmaxs2(a, b); }
  static __device__ __forceinline__ Value score(std::uint32_t address) { return load_shared(address); }
};

// One subject per register, 32-bit.
template <>
struct Lanes<ScoreWidth::s32> {
  using Value = int;
  static __device__ __forceinline__ Value splat(int x) { return x; }
  static __device__ __forceinline__ Value add_max(Value a, Value b, Value c) { return dpx::add_max(a, b, c); }
  static __device__ __forceinline__ Value add(Value a, Value b) { return a + b; }
  static __device__ __forceinline__ Value max3_relu(Value a, Value b, Value c) { return dpx::max3_relu(a, b, c); }
  static __device__ __forceinline__ Value max(Value a, Value b) { return ::max(a, b); }
  static __device__ __forceinline__ Value score(std::uint32_t address) {
    return static_cast<short>(load_shared(address) & 0xFFFFu);
  }
};

// The maximum of v over each group of G lanes (the whole warp with G = 32), in every lane of the group.
template <typename L, int G = 32>
__device__ __forceinline__ typename L::Value group_max(typename L::Value v, unsigned mask) {
#pragma unroll
  for (int offset = G / 2; offset > 0; offset /= 2) v = L::max(v, __shfl_xor_sync(mask, v, offset, G));
  return v;
}

// One step of a lane: its kRows streamed rows against its R register columns (the cooperative bin:
// two query rows; the streamed kernel: two subject columns against query rows, sw_streamed.cuh; the
// recurrence is the same either way round, with E and F exchanged). Column j of the second row follows
// column j of the first, so the rows' chains (each through the lane's R columns) run side by side.
// h_in / e_in: the last column's H and E of the lane before (lane 0: the boundary); h_diag: H of the row
// above the step's first row at the column before the lane's first, updated for the next step.
template <typename L, int kRows, int R>
__device__ __forceinline__ void lane_step(const std::uint32_t (&row)[kRows], const std::uint32_t (&pair)[R],
                                          typename L::Value (&h)[R], typename L::Value (&f)[R],
                                          const typename L::Value (&h_in)[kRows],
                                          const typename L::Value (&e_in)[kRows], typename L::Value& h_diag,
                                          typename L::Value& tile_max, typename L::Value (&h_out)[kRows],
                                          typename L::Value (&e_out)[kRows], typename L::Value neg_first,
                                          typename L::Value neg_extend) {
  using Value = typename L::Value;
  Value e[kRows];
  Value d_next[kRows];  // the diagonal term of each row's next column
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    e[r] = e_in[r];
    d_next[r] = L::add(r == 0 ? h_diag : h_in[r - 1], L::score(row[r] + pair[0]));
  }
  h_diag = h_in[kRows - 1];
#pragma unroll
  for (int j = 0; j < R; ++j) {
    Value above = h[j];  // H of the row above at column j
    Value gap_down = f[j];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const Value d = d_next[r];
      if (j + 1 < R) d_next[r] = L::add(above, L::score(row[r] + pair[j + 1]));
      const Value cell = L::max3_relu(d, gap_down, e[r]);  // E last: see the top of the file
      tile_max = L::max(tile_max, cell);
      const Value x = L::add(cell, neg_first);
      e[r] = L::add_max(e[r], neg_extend, x);
      gap_down = L::add_max(gap_down, neg_extend, x);
      above = cell;
      if (j + 1 == R) h_out[r] = cell;
    }
    h[j] = above;
    f[j] = gap_down;
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) e_out[r] = e[r];
}

// Writes a job's score (pairs: both halves), flagging 16-bit scores at or above kSaturationLimit for the
// 32-bit rescoring.
template <bool kPair, typename Value>
__device__ __forceinline__ void report_scores(const KernelParams& p, Value max_h, int sa, int sb) {
  if constexpr (kPair) {
    const int lo = static_cast<short>(max_h & 0xFFFFu);
    const int hi = static_cast<short>(max_h >> 16);
    p.scores[sa] = lo;
    if (lo >= kSaturationLimit) p.overflow_list[atomicAdd(p.overflow_count, 1)] = sa;
    if (sb >= 0) {
      p.scores[sb] = hi;
      if (hi >= kSaturationLimit) p.overflow_list[atomicAdd(p.overflow_count, 1)] = sb;
    }
  } else {
    p.scores[sa] = max_h;
  }
}

// Tiled kernels: appends the tile [begin, begin + width) of subject `subject` (of `length` residues) to
// the hot tiles when its maximum reaches the threshold. The 16-bit values never exceed the exact ones (a
// sum that wraps falls below zero), so a tile recorded is hot; one missed by saturation is recorded by
// the 32-bit rescoring of its subject.
__device__ __forceinline__ void record_hot_tile(const KernelParams& p, int tile_max, int subject, std::uint32_t begin,
                                                std::uint32_t width, std::uint32_t length) {
  if (tile_max < p.hot_threshold || begin >= length) return;
  const unsigned long long at = atomicAdd(p.hot_count, 1ull);
  if (at < p.hot_capacity)
    p.hot_tiles[at] =
        HotTile{static_cast<std::uint32_t>(subject), begin, begin + width < length ? begin + width : length};
}

// The same for a job's tile: both subjects of a pair (their 16-bit halves) or the one 32-bit subject.
template <bool kPair, typename Value>
__device__ __forceinline__ void record_hot_tiles(const KernelParams& p, Value tile_max, int sa, int sb,
                                                 std::uint32_t begin, std::uint32_t width, std::uint32_t la,
                                                 std::uint32_t lb) {
  if constexpr (kPair) {
    record_hot_tile(p, static_cast<short>(tile_max & 0xFFFFu), sa, begin, width, la);
    if (sb >= 0) record_hot_tile(p, static_cast<short>(tile_max >> 16), sb, begin, width, lb);
  } else {
    record_hot_tile(p, tile_max, sa, begin, width, la);
  }
}

// Synchronises the k warps of a cooperative team (team `team` of its block): named barrier team + 1
// (barrier 0 is __syncthreads').
__device__ __forceinline__ void team_sync(int team, int k) {
  if (k == 1) {
    __syncwarp();
    return;
  }
  asm volatile("bar.sync %0, %1;" ::"r"(team + 1), "r"(k * 32) : "memory");
}

// Waits until `progress` (volatile shared) reaches `target`; the loads that follow see the writes that
// were fenced before the producer published it.
__device__ __forceinline__ void wait_for(const volatile long long* progress, long long target) {
  while (*progress < target) {
  }
  __threadfence_block();
}

// Blocks of up to copies_block_threads(Bin) threads (any multiple of 32; the cooperative bin's are
// kBlockThreads, its pipeline depth).
// The kernel stays one function (about 260 lines) on purpose: the single-pass, tiled and cooperative paths are one
// template whose `if constexpr` branches the compiler keeps apart per bin, and the hot loop's registers
// (the query profile slice, H, E and the running maximum) live across all of it; the paths are marked by
// comments.
template <int Bin>
__global__ void __launch_bounds__(copies_block_threads(Bin), min_blocks_per_sm(Bin))
    sw_bin_kernel(const KernelParams p) {
  constexpr LengthBin kBin = kLengthBins[Bin];
  constexpr int G = kBin.group;
  constexpr int R = kBin.regs;
  constexpr bool kTiled = kBin.mode != TileMode::single;
  constexpr bool kCoop = kBin.mode == TileMode::cooperative;
  constexpr bool kPair = kBin.width == ScoreWidth::s16x2;
  constexpr int kWarps = kBlockThreads / 32;                  // cooperative: the block's warps, kWarps / team teams
  constexpr int kRows = kCoop ? kCooperativeRowsPerStep : 1;  // query rows a lane computes per step
  static_assert(kQueryPadding >= kRows * (G + 1), "padding rows cover every lane's rows and the prefetch");
  static_assert(32 % G == 0 && kBlockThreads % 32 == 0, "groups must tile a warp");
  static_assert(!kTiled || G == 32, "tiled kernels prefetch tile edges one per lane of a whole warp");
  using L = Lanes<kBin.width>;
  using Value = typename L::Value;

  // Jobs (subject pairs, or single subjects when 32-bit) per block at a time.
  const int team = kCoop ? p.team_warps : 1;  // cooperative: warps per pair
  const int jobs_per_block = kCoop ? kWarps / team : static_cast<int>(blockDim.x) / G;
  const int jobs = p.device_job_count != nullptr ? *p.device_job_count : p.num_jobs;
  if (static_cast<long long>(blockIdx.x) * jobs_per_block >= jobs) return;  // whole block idle

  extern __shared__ std::uint32_t table[];
  // Cooperative kernels: rows of its current tile each warp has finished (tile * m + rows), and the
  // warps' maxima.
  __shared__ volatile long long progress[kWarps];
  __shared__ Value warp_max[kWarps];
  for (int k = threadIdx.x; k < p.table_words; k += blockDim.x) table[k] = p.table[k];
  __syncthreads();

  const int lane = threadIdx.x % G;
  const int warp = threadIdx.x / 32;
  const int team_warp = warp % team;  // cooperative: the warp's place in its team
  const int team_first = warp - team_warp;
  const unsigned mask = G == 32 ? 0xFFFFFFFFu : (((1u << G) - 1u) << ((threadIdx.x % 32) / G * G));
  const int slot =
      static_cast<int>(blockIdx.x) * jobs_per_block + (kCoop ? warp / team : static_cast<int>(threadIdx.x) / G);
  const int slots = gridDim.x * jobs_per_block;
  const int m = p.query_length;
  const int n = p.alphabet_n;
  const int pad = n - 1;
  const auto table_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(table));
  const auto copy_words = static_cast<std::uint32_t>(p.copy_words);
  const Value neg_extend = L::splat(-p.gap_extend);
  const Value neg_first = L::splat(-p.gap_first);

  // The tiled bins' jobs (a warp walks all tiles of a pair) differ in length up to fourfold; they run
  // longest first, and past the first round each warp takes the next job not yet taken, so that the
  // warps of a block, which holds its multiprocessor until the last of them ends, end together.
  // Measured on one H100 (35,104 subjects of 1,025-4,096 residues, the 20 classic queries): 3.64 TCUPS
  // against 3.44 with the static grid-stride order, which gave some warps a third job while the others idled.
  const auto next_job = [&](int job) {
    if constexpr (kTiled && !kCoop) {
      if (p.job_counter != nullptr) {
        int taken = 0;
        if (lane == 0) taken = atomicAdd(p.job_counter, 1);
        return slots + __shfl_sync(0xFFFFFFFFu, taken, 0);
      }
    }
    return job + slots;
  };
  for (int job = slot; job < jobs; job = next_job(job)) {
    const int sa = p.jobs[kPair ? 2 * job : job];
    const int sb = kPair ? p.jobs[2 * job + 1] : -1;
    const std::uint32_t la = p.lengths[sa];
    const std::uint32_t lb = sb >= 0 ? p.lengths[sb] : 0u;
    const std::uint8_t* ra = p.residues + p.offsets[sa];
    const std::uint8_t* rb = sb >= 0 ? p.residues + p.offsets[sb] : ra;
    const std::uint32_t longest = la > lb ? la : lb;
    const int tiles = kTiled ? static_cast<int>((longest + G * R - 1) / (G * R)) : 1;
    std::uint64_t* edges = kTiled ? p.edges + static_cast<std::size_t>(slot) * m : nullptr;
    const int producer = team_first + (team_warp + team - 1) % team;  // cooperative: on the previous tile
    if constexpr (kCoop) {
      if (lane == 0) progress[warp] = -1;
      team_sync(warp / team, team);
    }

    Value max_h = L::splat(0);
    for (int tile = kCoop ? team_warp : 0; tile < tiles; tile += team) {
      std::uint32_t pair[R];  // shared address of table entry (0, a, b)
      Value h[R];
      Value f[R];
      const std::uint32_t first_column = static_cast<std::uint32_t>(tile * G * R + lane * R);
      // Which table copy each column reads (table_copies.hpp): planned per block of 32 lanes and tile;
      // the groups of a warp always hold jobs of one block (job / (32 / G) is the same for them).
      const std::uint64_t plan =
          p.plan != nullptr ? p.plan[(static_cast<std::size_t>(p.plan_blocks[job]) + tile) * 32 + threadIdx.x % 32] : 0;
#pragma unroll
      for (int j = 0; j < R; ++j) {
        const std::uint32_t c = first_column + j;
        const int a = c < la ? ra[c] : pad;
        const int b = kPair ? (c < lb ? rb[c] : pad) : a;
        const auto entry = static_cast<std::uint32_t>(a * n + b);
        pair[j] = table_base + 4u * (p.lane_copies ? lane_table_word(entry, threadIdx.x % 32)
                                                   : table_word(planned_copy(plan, j), entry, copy_words));
        h[j] = L::splat(0);
        f[j] = neg_first;
      }
      const bool save_edge = kTiled && lane == G - 1 && tile + 1 < tiles;
      const long long tile_rows = static_cast<long long>(tile) * m;
      // Tile edges: lane k holds the edge of row chunk + k; the next 32 rows are loaded one chunk ahead
      // (cooperative: once the warp on the previous tile has written them).
      auto load_edge = [&](int r) -> std::uint64_t {
        if (r >= m) return 0;
        if constexpr (kCoop) return __ldcg(reinterpret_cast<const unsigned long long*>(edges) + r);
        return edges[r];
      };
      std::uint64_t edge_chunk = 0;
      std::uint64_t edge_next = 0;
      if constexpr (kTiled) {
        if (tile > 0) {
          if constexpr (kCoop) wait_for(&progress[producer], tile_rows - m + (m < 32 ? m : 32));
          edge_next = load_edge(lane);
        }
      }
      Value tile_max = L::splat(0);  // of this tile's cells (the hot tiles), folded into max_h at its end
      Value h_out[kRows];            // the last column's H and E of each of the step's rows
      Value e_out[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        h_out[r] = L::splat(0);
        e_out[r] = L::splat(0);
      }
      Value h_diag = L::splat(0);  // H(i - 1, first_column - 1), i the step's first row
      // query_rows[kRows * step + r] is the row this lane computes at that step (the padding row before
      // and after the query), loaded one step ahead.
      const std::uint32_t* query_rows = p.query + kQueryPadding - kRows * lane;
      std::uint32_t row[kRows];
#pragma unroll
      for (int r = 0; r < kRows; ++r) row[r] = __ldg(query_rows + r);
      const int steps = (m + kRows - 1) / kRows + G - 1;
#pragma unroll(kRows == 1 && R <= kUnroll2MaxRegs ? 2 : 1)
      for (int step = 0; step < steps; ++step) {
        const int i = kRows * (step - lane);  // the step's first row
        std::uint32_t next_row[kRows];
#pragma unroll
        for (int r = 0; r < kRows; ++r) next_row[r] = __ldg(query_rows + kRows * (step + 1) + r);
        Value h_in[kRows];
        Value e_in[kRows];
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          h_in[r] = __shfl_up_sync(mask, h_out[r], 1, G);
          e_in[r] = __shfl_up_sync(mask, e_out[r], 1, G);
        }
        if constexpr (kTiled) {
          if (tile > 0) {
            if (((kRows * step) & 31) == 0) {
              // In place: row r of this tile's output is written at step r / kRows + 31, after its
              // input row r was read; rows still to be read are never among those written.
              edge_chunk = edge_next;
              if constexpr (kCoop) {
                const int needed = kRows * step + 64 < m ? kRows * step + 64 : m;
                wait_for(&progress[producer], tile_rows - m + needed);
              }
              edge_next = load_edge(kRows * step + 32 + lane);
            }
#pragma unroll
            for (int r = 0; r < kRows; ++r) {
              const std::uint64_t edge = __shfl_sync(mask, edge_chunk, (kRows * step + r) & 31);
              if (lane == 0) {
                h_in[r] = static_cast<Value>(static_cast<std::uint32_t>(edge));
                e_in[r] = static_cast<Value>(static_cast<std::uint32_t>(edge >> 32));
              }
            }
          }
        }
        if (lane == 0 && (!kTiled || tile == 0)) {  // the boundary column: H = 0, E = -g
#pragma unroll
          for (int r = 0; r < kRows; ++r) {
            h_in[r] = L::splat(0);
            e_in[r] = neg_first;
          }
        }
        // Every lane computes every step, also before its first row and after its last one (with the
        // padding row, see the top of the file): no branch around the column loop, so the compiler
        // can rotate the per-column registers of the unrolled steps without moves.
        lane_step<L, kRows, R>(row, pair, h, f, h_in, e_in, h_diag, tile_max, h_out, e_out, neg_first, neg_extend);
        if constexpr (kTiled) {
#pragma unroll
          for (int r = 0; r < kRows; ++r) {
            const int at = i + r;
            if (save_edge && at >= 0 && at < m) {
              edges[at] = static_cast<std::uint64_t>(static_cast<std::uint32_t>(h_out[r])) |
                          (static_cast<std::uint64_t>(static_cast<std::uint32_t>(e_out[r])) << 32);
              if constexpr (kCoop) {
                if ((at & 31) == 31 || at == m - 1) {
                  // The team is one block: a fence for the block's threads is enough (the memory model's
                  // fence-flag-fence synchronisation at block scope, whatever cache the loads use). The
                  // device-wide fence waited for the stores to reach L2: on the genome benchmark's 10 kb
                  // query the kernel took 499 ms against 528 (Nsight Compute, its memory-barrier and
                  // long-scoreboard stalls gone), the scan 1.08-1.19 s against 1.13-1.21 s.
                  __threadfence_block();
                  progress[warp] = tile_rows + at + 1;
                }
              }
            }
          }
        }
#pragma unroll
        for (int r = 0; r < kRows; ++r) row[r] = next_row[r];
      }
      if constexpr (kTiled) {
        if (p.hot_tiles != nullptr) {
          const Value warp_tile_max = group_max<L>(tile_max, mask);
          if (lane == 0)
            record_hot_tiles<kPair>(p, warp_tile_max, sa, sb, static_cast<std::uint32_t>(tile * G * R), G * R, la, lb);
        }
        __syncwarp(mask);
      }
      max_h = L::max(max_h, tile_max);
    }

    max_h = group_max<L, G>(max_h, mask);
    bool report = lane == 0;
    if constexpr (kCoop) {
      if (lane == 0) warp_max[warp] = max_h;
      team_sync(warp / team, team);
      report = lane == 0 && team_warp == 0;
      if (report)
        for (int w = 1; w < team; ++w) max_h = L::max(max_h, warp_max[team_first + w]);
    }
    if (report) report_scores<kPair>(p, max_h, sa, sb);
    if constexpr (kCoop) team_sync(warp / team, team);  // warp_max and progress are reused by the next job
  }
}

// The host side of a scan kernel (this one and the streamed kernel, sw_streamed.cuh): its shared-memory
// limit, its occupancy and its launch.
template <auto Kernel>
void prepare_kernel(int max_shared_bytes) {
  WARPSEARCH_CUDA_CHECK(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, max_shared_bytes));
}

template <auto Kernel>
int kernel_occupancy(int threads, int shared_bytes) {
  int blocks = 0;
  WARPSEARCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, Kernel, threads, shared_bytes));
  return blocks;
}

template <auto Kernel>
void launch_kernel(const KernelParams& params, int grid, int threads, int shared_bytes, cudaStream_t stream) {
  Kernel<<<grid, threads, shared_bytes, stream>>>(params);
  WARPSEARCH_CUDA_CHECK_LAUNCH();
}

template <int Bin>
void prepare_bin(int max_shared_bytes) {
  prepare_kernel<sw_bin_kernel<Bin>>(max_shared_bytes);
}

template <int Bin>
int bin_occupancy(int threads, int shared_bytes) {
  return kernel_occupancy<sw_bin_kernel<Bin>>(threads, shared_bytes);
}

template <int Bin>
void launch_bin(const KernelParams& params, int grid, int threads, int shared_bytes, cudaStream_t stream) {
  launch_kernel<sw_bin_kernel<Bin>>(params, grid, threads, shared_bytes, stream);
}

}  // namespace warpsearch::gpu::detail

// Explicit instantiation of one bin's entry points (used by sw_onepass_*.cu and sw_tiled_cooperative_rescore.cu).
#define WARPSEARCH_INSTANTIATE_BIN(bin)                                                                               \
  template void warpsearch::gpu::detail::prepare_bin<bin>(int);                                                       \
  template int warpsearch::gpu::detail::bin_occupancy<bin>(int, int);                                                 \
  template void warpsearch::gpu::detail::launch_bin<bin>(const warpsearch::gpu::detail::KernelParams&, int, int, int, \
                                                         cudaStream_t)
