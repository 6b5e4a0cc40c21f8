// Scan kernels for SSE4.1 (compiled with -msse4.1; called only after dispatch checked the CPU).
// 16 lanes of 8 bits, 8 lanes of 16 bits.
#include <immintrin.h>

#include "kernels/cpu/scan_kernel.hpp"

namespace warpsearch::cpu::detail {
namespace {

// Residue code -> biased score, for 32 codes, with two 16-entry byte shuffles: code bit 4 picks the
// half (shifting each byte left by 3 moves bit 4 to bit 7, the blend's selector bit).
struct Sse41Lookup {
  struct Codes {
    __m128i index, upper_half;
  };
  struct Row {
    __m128i low, high;
  };
  static Codes codes_from(__m128i index) { return {index, _mm_slli_epi16(index, 3)}; }
  static Row row(const std::uint8_t* biased_row) {
    return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row)),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row + 16))};
  }
  static __m128i bytes(const Row& row, const Codes& codes) {
    return _mm_blendv_epi8(_mm_shuffle_epi8(row.low, codes.index), _mm_shuffle_epi8(row.high, codes.index),
                           codes.upper_half);
  }
};

struct Sse41Common {
  using V = __m128i;
  static V zero() { return _mm_setzero_si128(); }
  static V and_(V a, V b) { return _mm_and_si128(a, b); }
  static V load(const V* p) { return _mm_load_si128(p); }
  static void store(V* p, V v) { _mm_store_si128(p, v); }
  using Codes = Sse41Lookup::Codes;
  using Row = Sse41Lookup::Row;
  static Row row(const std::uint8_t* biased_row) { return Sse41Lookup::row(biased_row); }
};

struct Sse41U8 : Sse41Common {
  using Elem = std::uint8_t;
  static constexpr int lanes = 16;
  static constexpr std::int64_t cap = kCap8;
  static V splat(int x) { return _mm_set1_epi8(static_cast<char>(x)); }
  static V adds(V a, V b) { return _mm_adds_epu8(a, b); }
  static V subs(V a, V b) { return _mm_subs_epu8(a, b); }
  static V max(V a, V b) { return _mm_max_epu8(a, b); }
  static V load_lanes(const Elem* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
  static void store_lanes(Elem* p, V v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
  static Codes codes(const std::uint8_t* lane_codes) {
    return Sse41Lookup::codes_from(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lane_codes)));
  }
  static V lookup(const Row& row, const Codes& codes) { return Sse41Lookup::bytes(row, codes); }
};

struct Sse41U16 : Sse41Common {
  using Elem = std::uint16_t;
  static constexpr int lanes = 8;
  static constexpr std::int64_t cap = kCap16;
  static V splat(int x) { return _mm_set1_epi16(static_cast<short>(x)); }
  static V adds(V a, V b) { return _mm_adds_epu16(a, b); }
  static V subs(V a, V b) { return _mm_subs_epu16(a, b); }
  static V max(V a, V b) { return _mm_max_epu16(a, b); }
  static V load_lanes(const Elem* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
  static void store_lanes(Elem* p, V v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
  static Codes codes(const std::uint8_t* lane_codes) {
    return Sse41Lookup::codes_from(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(lane_codes)));
  }
  static V lookup(const Row& row, const Codes& codes) { return _mm_cvtepu8_epi16(Sse41Lookup::bytes(row, codes)); }
};

}  // namespace

const ScanTable kScanSse41 = {{
    &scan_subjects<Sse41U8>,
    &scan_subjects<Sse41U16>,
    &scan_subjects<ScalarTraits<std::uint32_t, kCap32>>,
}};

}  // namespace warpsearch::cpu::detail
