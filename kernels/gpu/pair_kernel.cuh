// The GPU pair kernel template: one alignment pass (score and end cell) of many independent pairs, a
// group of G lanes per pair. Included by pair_bins_*.cu, which instantiate it per shape; private to
// kernels/gpu. The same kernel gives the start of an alignment: run on the reversed prefixes that end
// at the end cell (PairKernelParams::reverse), its end cell is the start (docs/gpu_pair_kernels.md).
//
// Layout. One sequence of a pair gives the columns, the other the rows. Lane t of a group holds columns
// [tile * G * R + t * R, ... + R) in registers (H and F' of the previous row) and the query-profile
// slice of those columns in shared memory; the row sequence streams through the group as a wavefront
// (lane t computes row s - t at step s) and each lane hands its last column's H and E' to lane t + 1
// by a shuffle. Sequences longer than a tile (G * R columns, G = 32 only) run tile after tile; lane 31
// writes the tile edge (H and E' per row) to global memory and lane 0 reads it back in the next tile,
// 32 rows at a time one chunk ahead, in place (a row is overwritten 31 steps after it was read).
//
// Profile slice (the SequentialProfile layout of profile/query_profile.hpp, restricted to a tile):
// element (a * G * R + c) of a group's slice, for row code a in 0..A-1 and tile column c, holds
// s(a, column residue c) + o, as int8 (Element = std::int8_t, four per 32-bit word, little-endian) or
// int16 (when a score + o does not fit 8 bits). Columns past the end hold the padding code's score.
// Each lane builds and reads only its own R columns, so no synchronisation is needed.
//
// Recurrence (a gap of length k costs open + k * extend; o = open + extend, e = extend), E and F kept
// shifted by +o so that every update is one add-max (Hopper DPX VIADDMNMX):
//   E'(r,c) = max(E'(r,c-1) - e, H(r,c-1))        F'(r,c) = max(F'(r-1,c) - e, H(r-1,c))
//   T(r,c)  = max(H(r-1,c-1) + s + o, F'(r,c))    H(r,c)  = max(max(T, E') - o, floor)
// floor = 0 (local) or minus infinity. Boundaries (1-based r, c): H(0,c) = 0 unless global, then
// -(open + c * e); H(r,0) = 0 for local, else -(open + r * e); E'(r,0) = F'(0,c) = minus infinity.
//
// Ends and tie-break (kernels/reference.hpp). Local: rows are the target; each lane keeps its best
// (H, row, column), replacing it when a row's maximum is larger, or equal at a smaller row (a later
// tile); the column is the lane's first one holding the maximum. The group reduces by (score desc,
// row asc, column asc): the smallest target end, then the smallest query end. Semiglobal: rows are the
// query; after the last row each lane takes its first maximal column, the group the smallest column,
// column 0 (the whole query against gaps) included. Global: the value of the last cell.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/pair_dispatch.hpp"

namespace warpsearch::gpu::detail {

__device__ __forceinline__ int add_max(int a, int b, int c) {  // max(a + b, c)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return __viaddmax_s32(a, b, c);
#else
  return ::max(a + b, c);
#endif
}

__device__ __forceinline__ int max3(int a, int b, int c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return __vimax3_s32(a, b, c);
#else
  return ::max(::max(a, b), c);
#endif
}

// Element k of a word of packed profile scores, sign-extended: one PRMT in its sign-replicating mode
// (a selector nibble with bit 3 set copies the sign of the selected byte).
template <typename Element>
__device__ __forceinline__ int unpack(std::uint32_t word, int k) {
  std::uint32_t selector;
  if constexpr (sizeof(Element) == 1) {
    const std::uint32_t sign = 8u | static_cast<std::uint32_t>(k);
    selector = static_cast<std::uint32_t>(k) | (sign << 4) | (sign << 8) | (sign << 12);
  } else {
    const std::uint32_t low = 2u * static_cast<std::uint32_t>(k);
    const std::uint32_t sign = 8u | (low + 1u);
    selector = low | ((low + 1u) << 4) | (sign << 8) | (sign << 12);
  }
  std::uint32_t value;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(value) : "r"(word), "r"(0u), "r"(selector));
  return static_cast<int>(value);
}

// A lane's profile words of one row: Bytes bytes, as 16- or 8-byte loads where the layout allows.
template <int Words>
__device__ __forceinline__ void load_words(const std::uint32_t* source, std::uint32_t (&words)[Words]) {
  if constexpr (Words % 4 == 0) {
#pragma unroll
    for (int k = 0; k < Words; k += 4) {
      const uint4 v = reinterpret_cast<const uint4*>(source)[k / 4];
      words[k] = v.x;
      words[k + 1] = v.y;
      words[k + 2] = v.z;
      words[k + 3] = v.w;
    }
  } else if constexpr (Words % 2 == 0) {
#pragma unroll
    for (int k = 0; k < Words; k += 2) {
      const uint2 v = reinterpret_cast<const uint2*>(source)[k / 2];
      words[k] = v.x;
      words[k + 1] = v.y;
    }
  } else {
#pragma unroll
    for (int k = 0; k < Words; ++k) words[k] = source[k];
  }
}

// (score desc, row asc, column asc): is a better than b?
__device__ __forceinline__ bool better_end(int score_a, int row_a, int col_a, int score_b, int row_b, int col_b) {
  if (score_a != score_b) return score_a > score_b;
  if (row_a != row_b) return row_a < row_b;
  return col_a < col_b;
}

template <int G, int R, typename Element>
__global__ void __launch_bounds__(kPairBlockThreads<Element>, 2) pair_kernel(const PairKernelParams p) {
  constexpr int kThreads = kPairBlockThreads<Element>;
  constexpr int W = G * R;  // columns per tile
  constexpr int kGroups = kThreads / G;
  constexpr int kPerWord = 4 / static_cast<int>(sizeof(Element));
  constexpr int kWords = R / kPerWord;
  static_assert(G == 4 || G == 8 || G == 16 || G == 32, "groups are 4 to 32 lanes of one warp");
  static_assert(R % kPerWord == 0 && R >= 4 && R <= 32, "a lane holds whole profile words");
  constexpr bool kTiled = G == 32;  // only whole warps prefetch tile edges (one row per lane)

  // The launch's jobs: given by the host, or (reverse jobs built on the device) a range read here.
  const PairJob* jobs = p.jobs;
  PairEnd* ends = p.ends;
  int num_jobs = p.num_jobs;
  if (p.job_range != nullptr) {
    jobs += p.job_range[0];
    ends += p.job_range[0];
    num_jobs = ::min(num_jobs, static_cast<int>(p.job_range[1]));
  }
  if (static_cast<long long>(blockIdx.x) * kGroups >= num_jobs) return;  // whole block idle

  const int A = p.alphabet_rows;
  extern __shared__ uint4 shared_words[];
  Element* slices = reinterpret_cast<Element*>(shared_words);
  Element* table = slices + static_cast<std::size_t>(kGroups) * A * W;
  for (int k = threadIdx.x; k < A * A; k += kThreads) table[k] = static_cast<const Element*>(p.table)[k];
  __syncthreads();

  const int lane = threadIdx.x % G;
  const int group = threadIdx.x / G;
  const unsigned mask = G == 32 ? 0xFFFFFFFFu : (((1u << G) - 1u) << ((threadIdx.x % 32) / G * G));
  Element* slice = slices + static_cast<std::size_t>(group) * A * W;
  const int slot = static_cast<int>(blockIdx.x) * kGroups + group;
  const int slots = static_cast<int>(gridDim.x) * kGroups;
  const bool local = p.mode == AlignmentMode::local;
  const bool global = p.mode == AlignmentMode::global;
  const int open = p.gap_open;
  const int extend = p.gap_extend;
  const int first = open + extend;
  const int floor_value = local ? 0 : kMinusInfinity;
  const int pad = A - 1;
  std::uint64_t* edges = kTiled ? p.edges + static_cast<std::size_t>(slot) * p.edge_stride : nullptr;

  for (int job = slot; job < num_jobs; job += slots) {
    const PairJob pj = jobs[job];
    const int rows = static_cast<int>(pj.rows);
    const int cols = static_cast<int>(pj.cols);
    // Element r of a pass sequence of length n: forward, or backwards from its end.
    const std::uint8_t* row_seq = p.residues + pj.row_offset + (p.reverse ? rows - 1 : 0);
    const std::uint8_t* col_seq = p.residues + pj.col_offset + (p.reverse ? cols - 1 : 0);
    const int step_sign = p.reverse ? -1 : 1;
    const int tiles = kTiled ? (cols + W - 1) / W : 1;

    // The lane's best end so far (row and column 1-based). Semiglobal: column 0 competes, scoring the
    // whole query against gaps; it wins ties, being the smallest column.
    int best = local ? 0 : kMinusInfinity;
    int best_row = -1;
    int best_col = INT_MAX;
    if (p.mode == AlignmentMode::semiglobal && lane == 0) {
      best = -(open + rows * extend);
      best_row = rows;
      best_col = 0;
    }

    for (int tile = 0; tile < tiles; ++tile) {
      const int col_base = tile * W + lane * R;  // 0-based column of h[0]
      // The profile slice of this lane's columns (the previous tile's is no longer read by anyone).
      {
        int codes[R];
#pragma unroll
        for (int j = 0; j < R; ++j) codes[j] = col_base + j < cols ? col_seq[step_sign * (col_base + j)] : pad;
        for (int a = 0; a < A; ++a) {
          std::uint32_t* out = reinterpret_cast<std::uint32_t*>(slice + static_cast<std::size_t>(a) * W + lane * R);
          const Element* scores = table + a * A;
#pragma unroll
          for (int k = 0; k < kWords; ++k) {
            std::uint32_t word = 0;
#pragma unroll
            for (int i = 0; i < kPerWord; ++i) {
              const auto bits = static_cast<std::uint32_t>(static_cast<int>(scores[codes[k * kPerWord + i]])) &
                                (sizeof(Element) == 1 ? 0xFFu : 0xFFFFu);
              word |= bits << (8 * sizeof(Element) * i);
            }
            out[k] = word;
          }
        }
      }
      const std::uint32_t* lane_slice = reinterpret_cast<const std::uint32_t*>(slice + lane * R);

      // Row 0: H(0, c) and F'(0, c) (c 1-based); the diagonal of the first row is H(0, col_base).
      int h[R];
      int f[R];
#pragma unroll
      for (int j = 0; j < R; ++j) {
        h[j] = global ? -(open + (col_base + j + 1) * extend) : 0;
        f[j] = kMinusInfinity;
      }
      int h_diag = global && col_base > 0 ? -(open + col_base * extend) : 0;
      const bool save_edge = kTiled && lane == G - 1 && tile + 1 < tiles;
      std::uint64_t edge_chunk = 0;
      std::uint64_t edge_next = 0;
      auto load_edge = [&](int r) -> std::uint64_t { return r < rows ? edges[r] : 0; };
      if (kTiled && tile > 0) edge_next = load_edge(lane);

      int h_out = 0;
      int e_out = kMinusInfinity;
      // The row code of each step is loaded one step ahead.
      int code = lane == 0 && rows > 0 ? row_seq[0] : 0;
      for (int step = 0; step < rows + G - 1; ++step) {
        const int r = step - lane;  // 0-based row of this step
        const int next_code = r + 1 >= 0 && r + 1 < rows ? row_seq[step_sign * (r + 1)] : 0;
        int h_in = __shfl_up_sync(mask, h_out, 1, G);
        int e_in = __shfl_up_sync(mask, e_out, 1, G);
        if (kTiled && tile > 0) {
          if ((step & 31) == 0) {
            edge_chunk = edge_next;
            edge_next = load_edge(step + 32 + lane);
          }
          const std::uint64_t edge = __shfl_sync(mask, edge_chunk, step & 31);
          if (lane == 0) {
            h_in = static_cast<int>(static_cast<std::uint32_t>(edge));
            e_in = static_cast<int>(static_cast<std::uint32_t>(edge >> 32));
          }
        } else if (lane == 0) {
          h_in = local ? 0 : -(open + (r + 1) * extend);
          e_in = kMinusInfinity;
        }
        if (r >= 0 && r < rows) {
          std::uint32_t words[kWords];
          load_words(lane_slice + static_cast<std::size_t>(code) * (W * sizeof(Element) / 4), words);
          int diag = h_diag;
          int h_left = h_in;
          int e = e_in;
          h_diag = h_in;
#pragma unroll
          for (int j = 0; j < R; ++j) {
            const int score = unpack<Element>(words[j / kPerWord], j % kPerWord);
            e = add_max(e, -extend, h_left);
            f[j] = add_max(f[j], -extend, h[j]);
            const int t = add_max(diag, score, f[j]);
            const int u = ::max(t, e);
            diag = h[j];
            h[j] = add_max(u, -first, floor_value);
            h_left = h[j];
          }
          h_out = h_left;
          e_out = e;
          if (save_edge)
            edges[r] = static_cast<std::uint64_t>(static_cast<std::uint32_t>(h_out)) |
                       (static_cast<std::uint64_t>(static_cast<std::uint32_t>(e_out)) << 32);
          if (local) {
            int row_max = h[0];
#pragma unroll
            for (int j = 1; j + 1 < R; j += 2) row_max = max3(row_max, h[j], h[j + 1]);
            if constexpr (R % 2 == 0) row_max = ::max(row_max, h[R - 1]);
            // Rare: the lane's best improves (or ties at a smaller row, from a later tile).
            if (row_max > best || (row_max == best && r + 1 < best_row)) {
              int column = R - 1;
#pragma unroll
              for (int j = R - 1; j >= 0; --j)
                if (h[j] == row_max) column = j;
              best = row_max;
              best_row = r + 1;
              best_col = col_base + column + 1;
            }
          } else if (r == rows - 1) {
            // The last row: semiglobal takes the lane's first maximal column, global the last cell.
#pragma unroll
            for (int j = 0; j < R; ++j) {
              const int c = col_base + j;
              const bool candidate = global ? c == cols - 1 : c < cols && h[j] > best;
              if (candidate) {
                best = h[j];
                best_row = rows;
                best_col = c + 1;
              }
            }
          }
        }
        code = next_code;
      }
      // The next tile's lane 0 reads what lane 31 wrote.
      if constexpr (kTiled) __syncwarp(mask);
    }

#pragma unroll
    for (int offset = G / 2; offset > 0; offset /= 2) {
      const int other = __shfl_xor_sync(mask, best, offset, G);
      const int other_row = __shfl_xor_sync(mask, best_row, offset, G);
      const int other_col = __shfl_xor_sync(mask, best_col, offset, G);
      if (better_end(other, other_row, other_col, best, best_row, best_col)) {
        best = other;
        best_row = other_row;
        best_col = other_col;
      }
    }
    if (lane == 0) {
      PairEnd end;
      end.score = best;
      end.row_end = best_row > 0 ? static_cast<std::uint32_t>(best_row) : 0u;
      end.col_end = best_row > 0 ? static_cast<std::uint32_t>(best_col) : 0u;
      ends[job] = end;
    }
  }
}

template <int G, int R, typename Element>
void prepare_pair_kernel(int alphabet_rows, int* blocks_per_sm) {
  const int bytes = static_cast<int>(pair_shared_bytes<Element>(G, R, alphabet_rows));
  WARPSEARCH_CUDA_CHECK(
      cudaFuncSetAttribute(pair_kernel<G, R, Element>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  WARPSEARCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, pair_kernel<G, R, Element>,
                                                                      kPairBlockThreads<Element>, bytes));
}

template <int G, int R, typename Element>
void launch_pair_kernel(const PairKernelParams& params, int grid, cudaStream_t stream) {
  const std::size_t bytes = pair_shared_bytes<Element>(G, R, params.alphabet_rows);
  pair_kernel<G, R, Element><<<grid, kPairBlockThreads<Element>, bytes, stream>>>(params);
  WARPSEARCH_CUDA_CHECK_LAUNCH();
}

}  // namespace warpsearch::gpu::detail

// Explicit instantiation of one shape's entry points (pair_bins_*.cu).
#define WARPSEARCH_INSTANTIATE_PAIR_SHAPE(G, R, Element)                                                      \
  template void warpsearch::gpu::detail::prepare_pair_kernel<G, R, Element>(int, int*);                       \
  template void warpsearch::gpu::detail::launch_pair_kernel<G, R, Element>(                                   \
      const warpsearch::gpu::detail::PairKernelParams&, int, cudaStream_t)
