// The GPU Smith-Waterman kernel template (inter-task: a group of lanes per subject pair), included by
// the sw_bins_*.cu files that instantiate it per length bin. Private to kernels/gpu.
//
// Layout. A group of G lanes scores two subjects at once (16-bit halves of 32-bit registers) or one
// subject (32-bit). Lane t holds subject columns [t * R, t * R + R) of the current tile: per column the
// H and F values of the previous query row and the substitution-table index of its residue pair. The
// query streams through the group as a wavefront: at step s lane t computes query row s - t over its R
// columns and hands its last column's H and E to lane t + 1 by a warp shuffle. Tiled kernels repeat this
// per tile of G * R columns; the last lane writes its column's H and E for each row to global memory
// (the tile edge), which lane 0 reads back in the next tile.
//
// Recurrence (gap of length k costs open + k * extend; o = open + extend, e = extend), with E and F kept
// shifted by +o so that each update is one add-max instruction:
//   E'(i,j) = max(E'(i,j-1) - e, H(i,j-1))         E' = E + o
//   F'(i,j) = max(F'(i-1,j) - e, H(i-1,j))         F' = F + o
//   U(i,j)  = max(H(i-1,j-1) + s(i,j) + o, E'(i,j), F'(i,j))
//   H(i,j)  = max(U(i,j) - o, 0)
// The table holds s + o. The score is max(0, max U - o). Per cell: 3 add-max and 1 add-relu (Hopper DPX
// VIADDMNMX) and 2 plain maxima (U and the running maximum).
//
// Saturation (16-bit): values never exceed the true maximum H plus 2 * 127 before any lane has reached a
// true H above 32513, and the first cell that does is computed exactly; so a final max U below
// kSaturationLimit proves the score exact, and anything at or above it is flagged for 32-bit rescoring.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gpu/cuda_support.cuh"
#include "kernels/gpu/sw_dispatch.hpp"

namespace warpsearch::gpu::detail {

inline constexpr int kSaturationLimit = 32000;

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
  static __device__ __forceinline__ Value add_max(Value a, Value b, Value c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return __viaddmax_s16x2(a, b, c);
#else
    return __vmaxs2(__vadd2(a, b), c);
#endif
  }
  // max(a + b, 0) per half
  static __device__ __forceinline__ Value add_relu(Value a, Value b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return __viaddmax_s16x2_relu(a, b, 0u);
#else
    return __vmaxs2(__vadd2(a, b), 0u);
#endif
  }
  static __device__ __forceinline__ Value max(Value a, Value b) { return __vmaxs2(a, b); }
  static __device__ __forceinline__ Value score(const std::uint32_t* table, int index) { return table[index]; }
};

// One subject per register, 32-bit.
template <>
struct Lanes<ScoreWidth::s32> {
  using Value = int;
  static __device__ __forceinline__ Value splat(int x) { return x; }
  static __device__ __forceinline__ Value add_max(Value a, Value b, Value c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return __viaddmax_s32(a, b, c);
#else
    return ::max(a + b, c);
#endif
  }
  static __device__ __forceinline__ Value add_relu(Value a, Value b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return __viaddmax_s32_relu(a, b, 0);
#else
    return ::max(a + b, 0);
#endif
  }
  static __device__ __forceinline__ Value max(Value a, Value b) { return ::max(a, b); }
  static __device__ __forceinline__ Value score(const std::uint32_t* table, int index) {
    return static_cast<short>(table[index] & 0xFFFFu);
  }
};

template <int Bin>
__global__ void __launch_bounds__(kBlockThreads) sw_bin_kernel(const KernelParams p) {
  constexpr LengthBin kBin = kLengthBins[Bin];
  constexpr int G = kBin.group;
  constexpr int R = kBin.regs;
  constexpr bool kTiled = kBin.tiled;
  constexpr bool kPair = kBin.width == ScoreWidth::s16x2;
  static_assert(32 % G == 0 && kBlockThreads % 32 == 0, "groups must tile a warp");
  using L = Lanes<kBin.width>;
  using Value = typename L::Value;

  constexpr int kGroupsPerBlock = kBlockThreads / G;
  const int jobs = p.device_job_count != nullptr ? *p.device_job_count : p.num_jobs;
  if (static_cast<long long>(blockIdx.x) * kGroupsPerBlock >= jobs) return;  // whole block idle

  extern __shared__ std::uint32_t table[];
  for (int k = threadIdx.x; k < p.table_words; k += blockDim.x) table[k] = p.table[k];
  __syncthreads();

  const int lane = threadIdx.x % G;
  const unsigned mask = G == 32 ? 0xFFFFFFFFu : (((1u << G) - 1u) << ((threadIdx.x % 32) / G * G));
  const int slot = blockIdx.x * kGroupsPerBlock + threadIdx.x / G;
  const int slots = gridDim.x * kGroupsPerBlock;
  const int m = p.query_length;
  const int n = p.alphabet_n;
  const int pad = n - 1;
  const Value neg_extend = L::splat(-p.gap_extend);
  const Value neg_first = L::splat(-p.gap_first);

  for (int job = slot; job < jobs; job += slots) {
    const int sa = p.jobs[kPair ? 2 * job : job];
    const int sb = kPair ? p.jobs[2 * job + 1] : -1;
    const std::uint32_t la = p.lengths[sa];
    const std::uint32_t lb = sb >= 0 ? p.lengths[sb] : 0u;
    const std::uint8_t* ra = p.residues + p.offsets[sa];
    const std::uint8_t* rb = sb >= 0 ? p.residues + p.offsets[sb] : ra;
    const std::uint32_t longest = la > lb ? la : lb;
    const int tiles = kTiled ? static_cast<int>((longest + G * R - 1) / (G * R)) : 1;
    std::uint64_t* edges = kTiled ? p.edges + static_cast<std::size_t>(slot) * m : nullptr;

    Value max_u = L::splat(0);
    for (int tile = 0; tile < tiles; ++tile) {
      int pair[R];
      Value h[R];
      Value f[R];
      const std::uint32_t first_column = static_cast<std::uint32_t>(tile * G * R + lane * R);
#pragma unroll
      for (int j = 0; j < R; ++j) {
        const std::uint32_t c = first_column + j;
        const int a = c < la ? ra[c] : pad;
        const int b = kPair ? (c < lb ? rb[c] : pad) : a;
        pair[j] = a * n + b;
        h[j] = L::splat(0);
        f[j] = L::splat(0);
      }
      const bool save_edge = kTiled && lane == G - 1 && tile + 1 < tiles;
      Value h_out = L::splat(0);
      Value e_out = L::splat(0);
      Value h_diag = L::splat(0);  // H(i - 1, first_column - 1)
      for (int step = 0; step < m + G - 1; ++step) {
        Value h_in = __shfl_up_sync(mask, h_out, 1, G);
        Value e_in = __shfl_up_sync(mask, e_out, 1, G);
        const int i = step - lane;
        if (lane == 0) {
          h_in = L::splat(0);
          e_in = L::splat(0);
          if constexpr (kTiled) {
            if (tile > 0 && i < m) {
              const std::uint64_t edge = edges[i];
              h_in = static_cast<Value>(static_cast<std::uint32_t>(edge));
              e_in = static_cast<Value>(static_cast<std::uint32_t>(edge >> 32));
            }
          }
        }
        if (i >= 0 && i < m) {
          const int row = __ldg(p.query + i);
          Value diag = h_diag;
          Value h_left = h_in;
          Value e = e_in;
          h_diag = h_in;
#pragma unroll
          for (int j = 0; j < R; ++j) {
            e = L::add_max(e, neg_extend, h_left);
            f[j] = L::add_max(f[j], neg_extend, h[j]);
            const Value u = L::max(L::add_max(diag, L::score(table, row + pair[j]), e), f[j]);
            max_u = L::max(max_u, u);
            diag = h[j];
            h[j] = L::add_relu(u, neg_first);
            h_left = h[j];
          }
          h_out = h_left;
          e_out = e;
          if constexpr (kTiled) {
            if (save_edge)
              edges[i] = static_cast<std::uint64_t>(static_cast<std::uint32_t>(h_out)) |
                         (static_cast<std::uint64_t>(static_cast<std::uint32_t>(e_out)) << 32);
          }
        }
      }
      if constexpr (kTiled) __syncwarp(mask);
    }

#pragma unroll
    for (int offset = G / 2; offset > 0; offset /= 2)
      max_u = L::max(max_u, __shfl_xor_sync(mask, max_u, offset, G));
    if (lane == 0) {
      if constexpr (kPair) {
        const int lo = static_cast<short>(max_u & 0xFFFFu);
        const int hi = static_cast<short>(max_u >> 16);
        p.scores[sa] = ::max(0, lo - p.gap_first);
        if (lo >= kSaturationLimit) p.overflow_list[atomicAdd(p.overflow_count, 1)] = sa;
        if (sb >= 0) {
          p.scores[sb] = ::max(0, hi - p.gap_first);
          if (hi >= kSaturationLimit) p.overflow_list[atomicAdd(p.overflow_count, 1)] = sb;
        }
      } else {
        p.scores[sa] = ::max(0, max_u - p.gap_first);
      }
    }
  }
}

template <int Bin>
void prepare_bin(int shared_bytes, int* blocks_per_sm) {
  WARPSEARCH_CUDA_CHECK(
      cudaFuncSetAttribute(sw_bin_kernel<Bin>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  WARPSEARCH_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, sw_bin_kernel<Bin>, kBlockThreads, shared_bytes));
}

template <int Bin>
void launch_bin(const KernelParams& params, int grid, int shared_bytes, cudaStream_t stream) {
  sw_bin_kernel<Bin><<<grid, kBlockThreads, shared_bytes, stream>>>(params);
  WARPSEARCH_CUDA_CHECK_LAUNCH();
}

}  // namespace warpsearch::gpu::detail

// Explicit instantiation of one bin's entry points (used by sw_bins_*.cu).
#define WARPSEARCH_INSTANTIATE_BIN(bin)                                                        \
  template void warpsearch::gpu::detail::prepare_bin<bin>(int, int*);                          \
  template void warpsearch::gpu::detail::launch_bin<bin>(const warpsearch::gpu::detail::KernelParams&, \
                                                         int, int, cudaStream_t)
