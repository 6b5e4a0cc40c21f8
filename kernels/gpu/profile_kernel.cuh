// The query-profile Smith-Waterman kernels for subjects of up to kProfileMaxSubject residues, included
// by sw_profile_*.cu, which instantiate them per shape (profile_shapes.hpp). Private to kernels/gpu.
//
// Why a second family. The length-bin kernels (sw_kernel.cuh) hold subject columns in registers and
// look up each cell pair's scores as one random word of a 70 KB table: 32 lanes hit the same banks
// 3.4 times per lookup on average, and the shared-memory pipe is what limits them (docs/gpu_kernels.md).
// Here the roles are swapped: the query is in registers and the scores come from its profile, laid out
// so that no two lanes of a quarter warp ever share a bank.
//
// Layout. A group of G lanes scores two subjects at once (16-bit halves). Lane t holds query columns
// [tile * G * R + t * R, + R) of the current tile: per column the H and F values of the previous subject
// row. The subjects' rows stream through the group as a wavefront: at step s lane t computes row s - t
// and hands its last column's H and E to lane t + 1 by a shuffle. Profile row a (one per compact code,
// `stride` bytes, 128-byte aligned) holds score(query j, a) as int8; per step a lane loads the R scores
// of its columns in subject A's row code and the R in subject B's (one LDS.128 each for R = 16, LDS.64
// for R = 8: the eight lanes of a quarter warp read eight distinct 16-byte bank groups whatever the
// codes, as a row is a multiple of 128 bytes long) and interleaves them into R 16-bit pairs with one
// sign-replicating PRMT per pair. Queries longer than a tile run tile after tile: lane G - 1 writes its
// last column's H and E per row to global memory (the tile edge), lane 0 of the next tile reads them
// back, G rows at a time one chunk ahead, in place.
//
// Every group of a warp runs as many rows as the warp's longest subject (shorter subjects read padding
// rows), so control flow is warp-uniform; jobs (subject pairs) come in ascending length order and run
// longest first, so the groups of a warp hold subjects of nearly equal length. The recurrence, the
// padding argument and the saturation rule are sw_kernel.cuh's: padding rows and columns score at most
// 0 against everything, so they never raise a maximum, and a maximum below kSaturationLimit is exact.
#pragma once

#include "kernels/gpu/sw_kernel.cuh"

namespace warpsearch::gpu::detail {

// R int8 scores of one profile row at a shared-window byte address, as R / 4 words.
template <int R>
__device__ __forceinline__ void load_profile(std::uint32_t address, std::uint32_t (&words)[R / 4]) {
  if constexpr (R == 16) {
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(words[0]), "=r"(words[1]), "=r"(words[2]), "=r"(words[3])
                 : "r"(address));
  } else {
    static_assert(R == 8, "profile kernels load 8 or 16 scores per lane");
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(words[0]), "=r"(words[1]) : "r"(address));
  }
}

// Byte k of `a` and byte k of `b`, each sign-extended to 16 bits, as the low and high halves of one word
// (a selector nibble with bit 3 set replicates the sign of the byte it names).
__device__ __forceinline__ std::uint32_t interleave_scores(std::uint32_t a, std::uint32_t b, int k) {
  const auto byte_a = static_cast<std::uint32_t>(k);
  const auto byte_b = static_cast<std::uint32_t>(4 + k);
  const std::uint32_t selector = byte_a | ((8u | byte_a) << 4) | (byte_b << 8) | ((8u | byte_b) << 12);
  std::uint32_t pair;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(pair) : "r"(a), "r"(b), "r"(selector));
  return pair;
}

template <int Shape>
__global__ void __launch_bounds__(kProfileShapes[Shape].threads, 1) sw_profile_kernel(const ProfileParams p) {
  constexpr int G = kProfileShapes[Shape].group;
  constexpr int R = kProfileShapes[Shape].regs;
  constexpr int kGroupsPerWarp = 32 / G;
  constexpr int kWarps = kProfileShapes[Shape].threads / 32;
  static_assert(32 % G == 0 && R % 8 == 0, "groups must tile a warp; lanes load 8 or 16 scores");
  using L = Lanes<ScoreWidth::s16x2>;
  using Value = L::Value;

  extern __shared__ uint4 profile[];
  {
    const int words = p.alphabet_n * p.stride / 16;
    const auto* source = reinterpret_cast<const uint4*>(p.profile);
    for (int k = threadIdx.x; k < words; k += blockDim.x) profile[k] = source[k];
  }
  __syncthreads();

  const int lane = threadIdx.x % G;
  const int group = (threadIdx.x % 32) / G;
  const unsigned mask = G == 32 ? 0xFFFFFFFFu : (((1u << G) - 1u) << (group * G));
  const int warp = static_cast<int>(blockIdx.x) * kWarps + static_cast<int>(threadIdx.x) / 32;
  const int warps = static_cast<int>(gridDim.x) * kWarps;
  const int warp_jobs = (p.num_jobs + kGroupsPerWarp - 1) / kGroupsPerWarp;
  const int pad = p.alphabet_n - 1;
  const auto lane_profile =
      static_cast<std::uint32_t>(__cvta_generic_to_shared(profile)) + static_cast<std::uint32_t>(lane * R);
  std::uint64_t* edges = p.edges + static_cast<std::size_t>(warp * kGroupsPerWarp + group) * p.edge_rows;
  const Value neg_extend = L::splat(-p.gap_extend);
  const Value neg_first = L::splat(-p.gap_first);

  for (int warp_job = warp; warp_job < warp_jobs; warp_job += warps) {
    const int job = p.num_jobs - 1 - (warp_job * kGroupsPerWarp + group);  // longest first
    const int sa = job >= 0 ? p.jobs[2 * job] : -1;
    const int sb = job >= 0 ? p.jobs[2 * job + 1] : -1;
    const std::uint32_t la = sa >= 0 ? p.lengths[sa] : 0u;
    const std::uint32_t lb = sb >= 0 ? p.lengths[sb] : 0u;
    const std::uint8_t* ra = p.residues + (sa >= 0 ? p.offsets[sa] : 0);
    const std::uint8_t* rb = p.residues + (sb >= 0 ? p.offsets[sb] : 0);
    const int rows = static_cast<int>(__reduce_max_sync(0xFFFFFFFFu, la > lb ? la : lb));
    // The code of a subject row, the padding code outside the subject (rows before a lane's first one
    // and after the subject's end).
    const auto code = [pad](const std::uint8_t* residues, std::uint32_t length, int row) -> int {
      return static_cast<std::uint32_t>(row) < length ? __ldg(residues + row) : pad;
    };

    Value max_h = L::splat(0);
    for (int tile = 0; tile < p.tiles; ++tile) {
      Value h[R];
      Value f[R];
#pragma unroll
      for (int j = 0; j < R; ++j) {
        h[j] = L::splat(0);
        f[j] = neg_first;
      }
      const std::uint32_t tile_profile = lane_profile + static_cast<std::uint32_t>(tile * G * R);
      const bool save_edge = lane == G - 1 && tile + 1 < p.tiles;
      std::uint64_t edge_chunk = 0;
      std::uint64_t edge_next = tile > 0 && lane < rows ? edges[lane] : 0;
      Value h_out = L::splat(0);
      Value e_out = L::splat(0);
      Value h_diag = L::splat(0);
      int row = -lane;  // this lane's row at the current step
      int code_a = code(ra, la, row);
      int code_b = code(rb, lb, row);
      for (int step = 0; step < rows + G - 1; ++step, ++row) {
        const int next_a = code(ra, la, row + 1);
        const int next_b = code(rb, lb, row + 1);
        Value h_in = __shfl_up_sync(mask, h_out, 1, G);
        Value e_in = __shfl_up_sync(mask, e_out, 1, G);
        if (tile > 0) {
          if (step % G == 0) {
            // In place: row r of this tile's edge is written at step r + G - 1, after it was read.
            edge_chunk = edge_next;
            const int ahead = step + G + lane;
            edge_next = ahead < rows ? edges[ahead] : 0;
          }
          const std::uint64_t edge = __shfl_sync(mask, edge_chunk, step % G, G);
          if (lane == 0) {
            h_in = static_cast<Value>(static_cast<std::uint32_t>(edge));
            e_in = static_cast<Value>(static_cast<std::uint32_t>(edge >> 32));
          }
        } else if (lane == 0) {
          h_in = L::splat(0);
          e_in = neg_first;
        }
        std::uint32_t scores_a[R / 4];
        std::uint32_t scores_b[R / 4];
        load_profile<R>(tile_profile + static_cast<std::uint32_t>(code_a * p.stride), scores_a);
        load_profile<R>(tile_profile + static_cast<std::uint32_t>(code_b * p.stride), scores_b);
        {
          Value e = e_in;
          Value d_next = L::add(h_diag, interleave_scores(scores_a[0], scores_b[0], 0));
          h_diag = h_in;
#pragma unroll
          for (int j = 0; j < R; ++j) {
            const Value d = d_next;
            if (j + 1 < R)
              d_next = L::add(h[j], interleave_scores(scores_a[(j + 1) / 4], scores_b[(j + 1) / 4], (j + 1) % 4));
            h[j] = L::max3_relu(d, e, f[j]);
            max_h = L::max(max_h, h[j]);
            const Value x = L::add(h[j], neg_first);
            e = L::add_max(e, neg_extend, x);
            f[j] = L::add_max(f[j], neg_extend, x);
          }
          h_out = h[R - 1];
          e_out = e;
        }
        if (save_edge && row >= 0 && row < rows)
          edges[row] = static_cast<std::uint64_t>(static_cast<std::uint32_t>(h_out)) |
                       (static_cast<std::uint64_t>(static_cast<std::uint32_t>(e_out)) << 32);
        code_a = next_a;
        code_b = next_b;
      }
      __syncwarp();  // this tile's edge writes before the next tile's reads
    }

#pragma unroll
    for (int offset = G / 2; offset > 0; offset /= 2) max_h = L::max(max_h, __shfl_xor_sync(mask, max_h, offset, G));
    if (lane == 0) {
      const int lo = static_cast<short>(max_h & 0xFFFFu);
      const int hi = static_cast<short>(max_h >> 16);
      if (sa >= 0) {
        p.scores[sa] = lo;
        if (lo >= kSaturationLimit) p.overflow_list[atomicAdd(p.overflow_count, 1)] = sa;
      }
      if (sb >= 0) {
        p.scores[sb] = hi;
        if (hi >= kSaturationLimit) p.overflow_list[atomicAdd(p.overflow_count, 1)] = sb;
      }
    }
  }
}

template <int Shape>
void prepare_profile(int shared_bytes, int* blocks_per_sm) {
  WARPSEARCH_CUDA_CHECK(
      cudaFuncSetAttribute(sw_profile_kernel<Shape>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  WARPSEARCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, sw_profile_kernel<Shape>,
                                                                      kProfileShapes[Shape].threads, shared_bytes));
}

template <int Shape>
void launch_profile(const ProfileParams& params, int grid, int shared_bytes, cudaStream_t stream) {
  sw_profile_kernel<Shape><<<grid, kProfileShapes[Shape].threads, shared_bytes, stream>>>(params);
  WARPSEARCH_CUDA_CHECK_LAUNCH();
}

}  // namespace warpsearch::gpu::detail

#define WARPSEARCH_INSTANTIATE_PROFILE(shape)                                                         \
  template void warpsearch::gpu::detail::prepare_profile<shape>(int, int*);                           \
  template void warpsearch::gpu::detail::launch_profile<shape>(                                       \
      const warpsearch::gpu::detail::ProfileParams&, int, int, cudaStream_t)
