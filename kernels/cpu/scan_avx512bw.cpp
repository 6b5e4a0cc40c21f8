// Scan kernels for AVX-512BW (compiled with -mavx512bw; called only after dispatch checked the CPU).
// 64 lanes of 8 bits, 32 lanes of 16 bits.
#include <type_traits>

#include "kernels/cpu/scan_x86.hpp"

namespace warpsearch::cpu::detail {
namespace {

// The 64 lanes' codes at once: two in-lane byte shuffles of the row's halves, merged under a mask of
// the codes with bit 4 set.
struct ByteLookup512 {
  struct Codes {
    __m512i index;
    __mmask64 upper_half;
  };
  struct Row {
    __m512i low, high;
  };
  static Codes codes(const std::uint8_t* lane_codes) {
    const __m512i index = _mm512_loadu_si512(lane_codes);
    return {index, _mm512_test_epi8_mask(index, _mm512_set1_epi8(16))};
  }
  static Row row(const std::uint8_t* biased_row) {
    return {_mm512_maskz_broadcast_i32x4(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row))),
            _mm512_maskz_broadcast_i32x4(0xFFFF, _mm_loadu_si128(reinterpret_cast<const __m128i*>(biased_row + 16)))};
  }
  static __m512i bytes(const Row& row, const Codes& codes) {
    return _mm512_mask_blend_epi8(codes.upper_half, _mm512_shuffle_epi8(row.low, codes.index),
                                  _mm512_shuffle_epi8(row.high, codes.index));
  }
};

// E = std::uint8_t or std::uint16_t. The lanes' codes are looked up in one 512-bit register (8 bits)
// or in a 256-bit one and widened (16 bits).
template <class E>
struct Avx512 {
  static constexpr bool kBytes = sizeof(E) == 1;
  using V = __m512i;
  using Elem = E;
  using Lookup = std::conditional_t<kBytes, ByteLookup512, ByteLookup256>;
  using Codes = typename Lookup::Codes;
  using Row = typename Lookup::Row;
  static constexpr int lanes = 64 / sizeof(E);
  static constexpr std::int64_t cap = kBytes ? kCap8 : kCap16;
  static V zero() { return _mm512_setzero_si512(); }
  static V splat(int x) {
    return kBytes ? _mm512_set1_epi8(static_cast<char>(x)) : _mm512_set1_epi16(static_cast<short>(x));
  }
  static V adds(V a, V b) { return kBytes ? _mm512_adds_epu8(a, b) : _mm512_adds_epu16(a, b); }
  static V subs(V a, V b) { return kBytes ? _mm512_subs_epu8(a, b) : _mm512_subs_epu16(a, b); }
  static V max(V a, V b) { return kBytes ? _mm512_max_epu8(a, b) : _mm512_max_epu16(a, b); }
  static V and_(V a, V b) { return _mm512_and_si512(a, b); }
  static V load(const V* p) { return _mm512_load_si512(p); }
  static void store(V* p, V v) { _mm512_store_si512(p, v); }
  static V load_lanes(const Elem* p) { return _mm512_loadu_si512(p); }
  static void store_lanes(Elem* p, V v) { _mm512_storeu_si512(p, v); }
  static Codes codes(const std::uint8_t* lane_codes) { return Lookup::codes(lane_codes); }
  static Row row(const std::uint8_t* biased_row) { return Lookup::row(biased_row); }
  static V lookup(const Row& row, const Codes& codes) {
    if constexpr (kBytes)
      return Lookup::bytes(row, codes);
    else
      return _mm512_cvtepu8_epi16(Lookup::bytes(row, codes));
  }
};

}  // namespace

const ScanTable kScanAvx512bw = make_scan_table<Avx512<std::uint8_t>, Avx512<std::uint16_t>>();

}  // namespace warpsearch::cpu::detail
