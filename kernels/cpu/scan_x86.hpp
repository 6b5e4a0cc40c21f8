// Private to kernels/cpu: the score lookups that the x86 scan traits (scan_sse41.cpp, scan_avx2.cpp,
// scan_avx512bw.cpp) share. Include it only from those files: like the kernel (scan_kernel.hpp, which
// it includes), everything here has internal linkage and is compiled with the including file's -m
// flags.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/scan_kernel.hpp"

namespace warpsearch::cpu::detail {
namespace {

// Residue code -> biased score, for 32 codes, with two 16-entry byte shuffles of the row's halves:
// code bit 4 picks the half (shifting each byte left by 3 moves bit 4 to bit 7, the blend's selector
// bit). One code per byte of a 128-bit register: 16 lanes (SSE4.1).
struct ByteLookup128 {
  struct Codes {
    __m128i index, upper_half;
  };
  struct Row {
    __m128i low, high;
  };
  static Codes codes(const std::uint8_t* lane_codes) {
    const __m128i index = _mm_loadu_si128(reinterpret_cast<const __m128i*>(lane_codes));
    return {index, _mm_slli_epi16(index, 3)};
  }
  static Row row(const std::uint8_t* biased_row) {
    return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row)),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row + 16))};
  }
  static __m128i bytes(const Row& row, const Codes& codes) {
    return _mm_blendv_epi8(_mm_shuffle_epi8(row.low, codes.index), _mm_shuffle_epi8(row.high, codes.index),
                           codes.upper_half);
  }
};

#if defined(__AVX2__)
// The same for 32 lanes (AVX2): the shuffles work within 128-bit halves, so each half of the row is
// broadcast to both.
struct ByteLookup256 {
  struct Codes {
    __m256i index, upper_half;
  };
  struct Row {
    __m256i low, high;
  };
  static Codes codes(const std::uint8_t* lane_codes) {
    const __m256i index = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lane_codes));
    return {index, _mm256_slli_epi16(index, 3)};
  }
  static Row row(const std::uint8_t* biased_row) {
    return {_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row))),
            _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row + 16)))};
  }
  static __m256i bytes(const Row& row, const Codes& codes) {
    return _mm256_blendv_epi8(_mm256_shuffle_epi8(row.low, codes.index), _mm256_shuffle_epi8(row.high, codes.index),
                              codes.upper_half);
  }
};
#endif

}  // namespace
}  // namespace warpsearch::cpu::detail
