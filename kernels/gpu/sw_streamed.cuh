// The streamed kernel for long subjects (the cooperative bin's jobs) against queries of up to
// kStreamedMaxQuery rows: the query is held in the lanes' registers and the subjects stream through.
// Included by the sw_streamed_*.cu files that instantiate it per register count. Private to kernels/gpu.
//
// Why. The cooperative kernel holds 512 subject columns in a warp and streams the query through, tile
// after tile: each tile pays the wavefront's fill (31 steps, against m / 2 for the tile), its edge
// (a global store, load and shuffle per row) and the handoffs between the team's warps. For a query of a
// few hundred residues against a genome's frames (tblastn) that is a tenth of the time or more. Turned
// round, the fill is paid once per subject segment (tens of thousands of columns), and there are no
// edges: this is the one-pass kernel with the roles of query and subject exchanged (the recurrence is
// symmetric; E and F swap places).
//
// Layout. One warp per job (two subjects of the bin, 16-bit halves). Lane t holds query rows
// [t * R, t * R + R) - (32 R - m): the padding rows come first, so that they are all 0 (the padding
// code scores the matrix minimum against everything, and every cell above them is 0) and the first query
// row sees exactly the boundary. At step s lane t computes subject columns 2 (s - t) and 2 (s - t) + 1
// (lane_step, sw_kernel.cuh, with the two columns as its rows), and hands its last row's H and vertical
// gap to lane t + 1. The columns' table offsets (entry (a, b) of the two subjects, one 16-bit offset
// each, packed in a word) are loaded 64 columns at a time, one word per lane; lane 0 takes its word by a
// shuffle and each lane passes the word it used to the next lane by another.
//
// Hot tiles. Lane t's cells of step s are in column 2 (s - t), so a lane enters window w (columns
// [512 w, 512 w + 512)) at step 256 w + t. Each lane keeps the largest cell of its current window and of
// the previous one; at step 256 w + 31 every lane has left window w - 1, whose maximum is reduced over
// the warp and recorded when it reaches the threshold (record_hot_tiles, the tiled kernels' rule). The
// windows still open at the end are reduced after the loop. As in the tiled kernels, a window recorded
// holds a real cell at the threshold: the padding rows hold zeros, and a padding column past a subject's
// end reaches the threshold only through the real column before it.
//
// Measured (one H100, docs/long_sequences.md), outputs identical: tblastn of 100 proteins against 100 Mb
// of genome, scan 3.18-3.41 s against 3.80-3.89 s with the cooperative kernel; 100 DNA reads of
// 300-1,000 nt against it, both strands, 2.86 s against 3.30-3.38 s. Each column reads the table copy a
// per-subject plan chose (StreamPlanner, table_copies.hpp): with one copy the protein table's lookups
// (the lanes at 32 different columns, about 4 shared-memory wavefronts each) were the limit. A lone
// query's jobs leave the device idle in their last wave, so the scorer takes this kernel only where
// the call's queries give it several waves (GpuScorer::Impl::streamed_regs).
#pragma once

#include "kernels/gpu/sw_kernel.cuh"

namespace warpsearch::gpu::detail {

// Blocks of kStreamedBlockThreads, one per multiprocessor (at most 128 registers; the table with copies
// leaves room for one), one job per warp. The kernel
// stays one function (about 150 lines), as sw_bin_kernel does: the query's rows and the H and gap
// registers live across the whole job loop.
template <int R>
__global__ void __launch_bounds__(kStreamedBlockThreads, 1) sw_streamed_kernel(const KernelParams p) {
  constexpr int G = 32;
  constexpr int kCols = kStreamedColumnsPerStep;
  constexpr int kWords = kCols / 2;         // stream words a step: two columns' table offsets each
  constexpr int kChunkSteps = 32 / kWords;  // steps a chunk of 32 words (64 columns) lasts
  constexpr int kWindowSteps = kStreamedWindow / kCols;
  static_assert(kCols % 2 == 0 && 32 % kWords == 0, "a stream word packs two columns' table offsets");
  static_assert((kWindowSteps & (kWindowSteps - 1)) == 0 && kWindowSteps >= G, "windows: a power of two of steps");
  using L = Lanes<ScoreWidth::s16x2>;
  using Value = L::Value;
  constexpr unsigned kAll = 0xFFFFFFFFu;

  const int jobs_per_block = static_cast<int>(blockDim.x) / 32;
  const int jobs = p.num_jobs;
  if (static_cast<long long>(blockIdx.x) * jobs_per_block >= jobs) return;  // whole block idle
  extern __shared__ std::uint32_t table[];
  for (int k = threadIdx.x; k < p.table_words; k += blockDim.x) table[k] = p.table[k];
  __syncthreads();

  const int lane = threadIdx.x % 32;
  const int slot = static_cast<int>(blockIdx.x) * jobs_per_block + static_cast<int>(threadIdx.x) / 32;
  const int slots = gridDim.x * jobs_per_block;
  const int m = p.query_length;
  const int n = p.alphabet_n;
  const int pad = n - 1;
  const auto table_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(table));
  const auto copy_words = static_cast<std::uint32_t>(p.copy_words);
  const Value neg_extend = L::splat(-p.gap_extend);
  const Value neg_first = L::splat(-p.gap_first);

  std::uint32_t query_row[R];  // shared address of the row's table entries (plus the lane's copy)
  const int first_row = lane * R - (G * R - m);
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const int i = first_row + j;
    query_row[j] = table_base + (p.lane_copies ? 4u * lane : 0u) + (i >= 0 ? p.query[kQueryPadding + i] : p.query[0]);
  }

  for (int job = slot; job < jobs; job += slots) {
    const int sa = p.jobs[2 * job];
    const int sb = p.jobs[2 * job + 1];
    const std::uint32_t la = p.lengths[sa];
    const std::uint32_t lb = sb >= 0 ? p.lengths[sb] : 0u;
    const std::uint8_t* ra = p.residues + p.offsets[sa];
    const std::uint8_t* rb = sb >= 0 ? p.residues + p.offsets[sb] : ra;
    const std::uint32_t longest = la > lb ? la : lb;
    const int steps = static_cast<int>((longest + kCols - 1) / kCols) + G - 1;
    const std::uint8_t* plan = p.stream_plan != nullptr ? p.stream_plan + p.stream_plan_offsets[job] : nullptr;
    // Lane k's word of the 64 columns from `first`: columns first + 2k and first + 2k + 1, each the byte
    // offset of its entry (a, b) in a table row, in the copy its plan says (lane copies: lane 0's).
    auto stream_word = [&](std::uint32_t first) {
      std::uint32_t word = 0;
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const std::uint32_t column = first + 2 * lane + c;
        const int a = column < la ? ra[column] : pad;
        const int b = column < lb ? rb[column] : pad;
        const auto entry = static_cast<std::uint32_t>(a * n + b);
        const int copy = plan != nullptr && column < longest ? (plan[column >> 2] >> (2 * (column & 3))) & 3 : 0;
        const std::uint32_t at = p.lane_copies ? lane_table_word(entry, 0) : table_word(copy, entry, copy_words);
        word |= 4u * at << (16 * c);
      }
      return word;
    };

    Value h[R];
    Value f[R];
#pragma unroll
    for (int j = 0; j < R; ++j) {
      h[j] = L::splat(0);
      f[j] = neg_first;
    }
    Value h_out[kCols];
    Value e_out[kCols];
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      h_out[c] = L::splat(0);
      e_out[c] = L::splat(0);
    }
    Value h_diag = L::splat(0);
    Value tile_max = L::splat(0);  // of the lane's current window (without hot tiles: of everything)
    Value done_max = L::splat(0);  // of the lane's previous window
    Value max_h = L::splat(0);     // of the windows before those
    std::uint32_t chunk = stream_word(0);
    std::uint32_t chunk_next = stream_word(2 * G);
    // The words this lane used at the last step: before its first column, the padding code's (those
    // cells are all 0, as are the padding rows').
    std::uint32_t stream[kWords];
#pragma unroll
    for (int w = 0; w < kWords; ++w) {
      const auto pad_entry = static_cast<std::uint32_t>(pad * n + pad);
      stream[w] = 4u * (p.lane_copies ? lane_table_word(pad_entry, 0) : pad_entry) * 0x10001u;
    }
    const bool hot = p.hot_tiles != nullptr;

    for (int step = 0; step < steps; ++step) {
      if (step % kChunkSteps == 0 && step > 0) {
        chunk = chunk_next;
        chunk_next = stream_word(static_cast<std::uint32_t>(step + kChunkSteps) * kCols);
      }
      std::uint32_t column_entry[kCols];
#pragma unroll
      for (int w = 0; w < kWords; ++w) {
        const std::uint32_t from_chunk = __shfl_sync(kAll, chunk, (step % kChunkSteps) * kWords + w);
        const std::uint32_t from_left = __shfl_up_sync(kAll, stream[w], 1);
        stream[w] = lane == 0 ? from_chunk : from_left;
        column_entry[2 * w] = stream[w] & 0xFFFFu;
        column_entry[2 * w + 1] = stream[w] >> 16;
      }
      Value h_in[kCols];
      Value e_in[kCols];
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        h_in[c] = __shfl_up_sync(kAll, h_out[c], 1);
        e_in[c] = __shfl_up_sync(kAll, e_out[c], 1);
        if (lane == 0) {
          h_in[c] = L::splat(0);
          e_in[c] = neg_first;
        }
      }
      if (hot) {
        if (((step - lane) & (kWindowSteps - 1)) == 0) {  // the lane enters a window
          max_h = L::max(max_h, done_max);
          done_max = tile_max;
          tile_max = L::splat(0);
        }
        if (step >= kWindowSteps + 31 && ((step - 31) & (kWindowSteps - 1)) == 0) {  // all have left w - 1
          const Value window_max = group_max<L>(done_max, kAll);
          const auto window = static_cast<std::uint32_t>((step - 31) / kWindowSteps - 1);
          if (lane == 0)
            record_hot_tiles<true>(p, window_max, sa, sb, window * kStreamedWindow, kStreamedWindow, la, lb);
        }
      }
      lane_step<L, kCols, R>(column_entry, query_row, h, f, h_in, e_in, h_diag, tile_max, h_out, e_out, neg_first,
                             neg_extend);
    }
    if (hot) {
      // The windows still open: lane 0's last one, and the one before it unless it was recorded above.
      // Every lane is in one of them (it is at most 31 steps behind lane 0).
      const int last = steps - 1;
      const int lane_window = (last - lane) / kWindowSteps;
      const int last_window = last / kWindowSteps;
      for (int window = last_window - 1; window <= last_window; ++window) {
        if (window < 0 || (window < last_window && last >= last_window * kWindowSteps + 31)) continue;
        const Value window_max =
            group_max<L>(lane_window == window ? tile_max : (lane_window == window + 1 ? done_max : L::splat(0)), kAll);
        if (lane == 0)
          record_hot_tiles<true>(p, window_max, sa, sb, static_cast<std::uint32_t>(window) * kStreamedWindow,
                                 kStreamedWindow, la, lb);
      }
    }
    max_h = group_max<L>(L::max(max_h, L::max(done_max, tile_max)), kAll);
    if (lane == 0) report_scores<true>(p, max_h, sa, sb);
  }
}

template <int R>
void prepare_streamed(int max_shared_bytes) {
  prepare_kernel<sw_streamed_kernel<R>>(max_shared_bytes);
}

template <int R>
int streamed_occupancy(int threads, int shared_bytes) {
  return kernel_occupancy<sw_streamed_kernel<R>>(threads, shared_bytes);
}

template <int R>
void launch_streamed(const KernelParams& params, int grid, int threads, int shared_bytes, cudaStream_t stream) {
  launch_kernel<sw_streamed_kernel<R>>(params, grid, threads, shared_bytes, stream);
}

}  // namespace warpsearch::gpu::detail

// Explicit instantiation of the streamed kernel for R query rows a lane (used by sw_streamed_*.cu).
#define WARPSEARCH_INSTANTIATE_STREAMED(regs)                                                                          \
  template void warpsearch::gpu::detail::prepare_streamed<regs>(int);                                                  \
  template int warpsearch::gpu::detail::streamed_occupancy<regs>(int, int);                                            \
  template void warpsearch::gpu::detail::launch_streamed<regs>(const warpsearch::gpu::detail::KernelParams&, int, int, \
                                                               int, cudaStream_t)
