// Scan kernels for AVX-512BW (compiled with -mavx512bw; called only after dispatch checked the CPU).
// 64 lanes of 8 bits, 32 lanes of 16 bits.
#include <immintrin.h>

#include "kernels/cpu/scan_kernel.hpp"

namespace warpsearch::cpu::detail {
namespace {

// Residue code -> biased score for 32 codes: two in-lane byte shuffles of the row's halves, merged
// under a mask of the codes with bit 4 set.
struct Avx512U8 {
  using V = __m512i;
  using Elem = std::uint8_t;
  static constexpr int lanes = 64;
  static constexpr std::int64_t cap = kCap8;
  struct Codes {
    __m512i index;
    __mmask64 upper_half;
  };
  struct Row {
    __m512i low, high;
  };
  static V zero() { return _mm512_setzero_si512(); }
  static V splat(int x) { return _mm512_set1_epi8(static_cast<char>(x)); }
  static V adds(V a, V b) { return _mm512_adds_epu8(a, b); }
  static V subs(V a, V b) { return _mm512_subs_epu8(a, b); }
  static V max(V a, V b) { return _mm512_max_epu8(a, b); }
  static V and_(V a, V b) { return _mm512_and_si512(a, b); }
  static V load(const V* p) { return _mm512_load_si512(p); }
  static void store(V* p, V v) { _mm512_store_si512(p, v); }
  static V load_lanes(const Elem* p) { return _mm512_loadu_si512(p); }
  static void store_lanes(Elem* p, V v) { _mm512_storeu_si512(p, v); }
  static Codes codes(const std::uint8_t* lane_codes) {
    const __m512i index = _mm512_loadu_si512(lane_codes);
    return {index, _mm512_test_epi8_mask(index, _mm512_set1_epi8(16))};
  }
  static Row row(const std::uint8_t* biased_row) {
    return {_mm512_maskz_broadcast_i32x4(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row))),
            _mm512_maskz_broadcast_i32x4(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row + 16)))};
  }
  static V lookup(const Row& row, const Codes& codes) {
    return _mm512_mask_blend_epi8(codes.upper_half, _mm512_shuffle_epi8(row.low, codes.index),
                                  _mm512_shuffle_epi8(row.high, codes.index));
  }
};

struct Avx512U16 {
  using V = __m512i;
  using Elem = std::uint16_t;
  static constexpr int lanes = 32;
  static constexpr std::int64_t cap = kCap16;
  struct Codes {
    __m256i index, upper_half;
  };
  struct Row {
    __m256i low, high;
  };
  static V zero() { return _mm512_setzero_si512(); }
  static V splat(int x) { return _mm512_set1_epi16(static_cast<short>(x)); }
  static V adds(V a, V b) { return _mm512_adds_epu16(a, b); }
  static V subs(V a, V b) { return _mm512_subs_epu16(a, b); }
  static V max(V a, V b) { return _mm512_max_epu16(a, b); }
  static V and_(V a, V b) { return _mm512_and_si512(a, b); }
  static V load(const V* p) { return _mm512_load_si512(p); }
  static void store(V* p, V v) { _mm512_store_si512(p, v); }
  static V load_lanes(const Elem* p) { return _mm512_loadu_si512(p); }
  static void store_lanes(Elem* p, V v) { _mm512_storeu_si512(p, v); }
  static Codes codes(const std::uint8_t* lane_codes) {
    const __m256i index = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lane_codes));
    return {index, _mm256_slli_epi16(index, 3)};
  }
  static Row row(const std::uint8_t* biased_row) {
    return {_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row))),
            _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row + 16)))};
  }
  static V lookup(const Row& row, const Codes& codes) {
    return _mm512_cvtepu8_epi16(_mm256_blendv_epi8(_mm256_shuffle_epi8(row.low, codes.index),
                                                   _mm256_shuffle_epi8(row.high, codes.index),
                                                   codes.upper_half));
  }
};

}  // namespace

const ScanTable kScanAvx512bw = {{
    &scan_subjects<Avx512U8>,
    &scan_subjects<Avx512U16>,
    &scan_subjects<ScalarTraits<std::uint32_t, kCap32>>,
}};

}  // namespace warpsearch::cpu::detail
