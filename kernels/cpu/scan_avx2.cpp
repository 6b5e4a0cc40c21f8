// Scan kernels for AVX2 (compiled with -mavx2; called only after dispatch checked the CPU).
// 32 lanes of 8 bits, 16 lanes of 16 bits.
#include <immintrin.h>

#include "kernels/cpu/scan_kernel.hpp"

namespace warpsearch::cpu::detail {
namespace {

// Residue code -> biased score for 32 codes: two in-lane byte shuffles of the row's halves, blended
// on code bit 4 (a left shift by 3 moves it to bit 7, the blend's selector bit).
struct Avx2U8 {
  using V = __m256i;
  using Elem = std::uint8_t;
  static constexpr int lanes = 32;
  static constexpr std::int64_t cap = kCap8;
  struct Codes {
    __m256i index, upper_half;
  };
  struct Row {
    __m256i low, high;
  };
  static V zero() { return _mm256_setzero_si256(); }
  static V splat(int x) { return _mm256_set1_epi8(static_cast<char>(x)); }
  static V adds(V a, V b) { return _mm256_adds_epu8(a, b); }
  static V subs(V a, V b) { return _mm256_subs_epu8(a, b); }
  static V max(V a, V b) { return _mm256_max_epu8(a, b); }
  static V and_(V a, V b) { return _mm256_and_si256(a, b); }
  static V load(const V* p) { return _mm256_load_si256(p); }
  static void store(V* p, V v) { _mm256_store_si256(p, v); }
  static V load_lanes(const Elem* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store_lanes(Elem* p, V v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static Codes codes(const std::uint8_t* lane_codes) {
    const __m256i index = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lane_codes));
    return {index, _mm256_slli_epi16(index, 3)};
  }
  static Row row(const std::uint8_t* biased_row) {
    return {_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row))),
            _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row + 16)))};
  }
  static V lookup(const Row& row, const Codes& codes) {
    return _mm256_blendv_epi8(_mm256_shuffle_epi8(row.low, codes.index),
                              _mm256_shuffle_epi8(row.high, codes.index), codes.upper_half);
  }
};

struct Avx2U16 {
  using V = __m256i;
  using Elem = std::uint16_t;
  static constexpr int lanes = 16;
  static constexpr std::int64_t cap = kCap16;
  struct Codes {
    __m128i index, upper_half;
  };
  struct Row {
    __m128i low, high;
  };
  static V zero() { return _mm256_setzero_si256(); }
  static V splat(int x) { return _mm256_set1_epi16(static_cast<short>(x)); }
  static V adds(V a, V b) { return _mm256_adds_epu16(a, b); }
  static V subs(V a, V b) { return _mm256_subs_epu16(a, b); }
  static V max(V a, V b) { return _mm256_max_epu16(a, b); }
  static V and_(V a, V b) { return _mm256_and_si256(a, b); }
  static V load(const V* p) { return _mm256_load_si256(p); }
  static void store(V* p, V v) { _mm256_store_si256(p, v); }
  static V load_lanes(const Elem* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store_lanes(Elem* p, V v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static Codes codes(const std::uint8_t* lane_codes) {
    const __m128i index = _mm_loadu_si128(reinterpret_cast<const __m128i*>(lane_codes));
    return {index, _mm_slli_epi16(index, 3)};
  }
  static Row row(const std::uint8_t* biased_row) {
    return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row)),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row + 16))};
  }
  static V lookup(const Row& row, const Codes& codes) {
    return _mm256_cvtepu8_epi16(_mm_blendv_epi8(_mm_shuffle_epi8(row.low, codes.index),
                                                 _mm_shuffle_epi8(row.high, codes.index), codes.upper_half));
  }
};

}  // namespace

const ScanTable kScanAvx2 = {{
    &scan_subjects<Avx2U8>,
    &scan_subjects<Avx2U16>,
    &scan_subjects<ScalarTraits<std::uint32_t, kCap32>>,
}};

}  // namespace warpsearch::cpu::detail
