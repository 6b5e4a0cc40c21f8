// Device primitives of the GPU pair kernel (kernels/gpu/pair_kernel.cuh): the DPX max-plus steps
// (kernels/gpu/dpx.cuh), profile-score unpacking (PRMT), vector loads of a
// lane's profile words, the group's minimum and the end-cell order. Private to kernels/gpu.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "kernels/gpu/dpx.cuh"

namespace warpsearch::gpu::detail {

using dpx::add_max;
using dpx::add_max_s16x2;
using dpx::max3;
using dpx::max3_s16x2;

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

// Two 16-bit lanes per register (s16x2, packed shapes): the adds wrap (pair_pack_limit keeps every cell
// that matters within int16).
__device__ __forceinline__ unsigned pair_of(int value) {  // both halves = value (int16 range)
  return (static_cast<unsigned>(value) & 0xFFFFu) * 0x10001u;
}
__device__ __forceinline__ int low_half(unsigned v) { return static_cast<int>(static_cast<short>(v & 0xFFFFu)); }
__device__ __forceinline__ int high_half(unsigned v) { return static_cast<int>(v) >> 16; }

// Byte k of two words of int8 profile scores, sign-extended, as s16x2: low half from `low`, high half
// from `high`; one PRMT (selector nibbles 8..15 copy the sign of byte 0..7 of the pair of words).
__device__ __forceinline__ unsigned unpack_pair(std::uint32_t low, std::uint32_t high, int k) {
  const auto b = static_cast<std::uint32_t>(k);
  const std::uint32_t selector = b | ((8u | b) << 4) | ((4u + b) << 8) | ((12u + b) << 12);
  std::uint32_t value;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(value) : "r"(low), "r"(high), "r"(selector));
  return value;
}

// "Minus infinity" of the 16-bit recurrence (E' of column 0, F' of row 0): an extend below it stays in
// int16, and the next update raises it to an H >= 0 (packed passes are local).
inline constexpr int kMinusInfinity16 = -16384;

// The minimum of v over the group's lanes (mask), every lane receiving it.
template <int G>
__device__ __forceinline__ unsigned group_min(unsigned mask, unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_min_sync(mask, v);
#else
#pragma unroll
  for (int offset = G / 2; offset > 0; offset /= 2) v = ::min(v, __shfl_xor_sync(mask, v, offset, G));
  return v;
#endif
}

// (score desc, row asc, column asc): is a better than b?
__device__ __forceinline__ bool better_end(int score_a, int row_a, int col_a, int score_b, int row_b, int col_b) {
  if (score_a != score_b) return score_a > score_b;
  if (row_a != row_b) return row_a < row_b;
  return col_a < col_b;
}

}  // namespace warpsearch::gpu::detail
