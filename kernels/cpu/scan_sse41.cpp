// Scan kernels for SSE4.1 (compiled with -msse4.1; called only after dispatch checked the CPU).
// 16 lanes of 8 bits, 8 lanes of 16 bits.
#include "kernels/cpu/scan_x86.hpp"

namespace warpsearch::cpu::detail {
namespace {

// E = std::uint8_t or std::uint16_t. The codes of 16 lanes are looked up at once; 16 bits uses the
// first 8, widened.
template <class E>
struct Sse41 {
  static constexpr bool kBytes = sizeof(E) == 1;
  using V = __m128i;
  using Elem = E;
  using Codes = ByteLookup128::Codes;
  using Row = ByteLookup128::Row;
  static constexpr int lanes = 16 / sizeof(E);
  static constexpr std::int64_t cap = kBytes ? kCap8 : kCap16;
  static V zero() { return _mm_setzero_si128(); }
  static V splat(int x) { return kBytes ? _mm_set1_epi8(static_cast<char>(x)) : _mm_set1_epi16(static_cast<short>(x)); }
  static V adds(V a, V b) { return kBytes ? _mm_adds_epu8(a, b) : _mm_adds_epu16(a, b); }
  static V subs(V a, V b) { return kBytes ? _mm_subs_epu8(a, b) : _mm_subs_epu16(a, b); }
  static V max(V a, V b) { return kBytes ? _mm_max_epu8(a, b) : _mm_max_epu16(a, b); }
  static V and_(V a, V b) { return _mm_and_si128(a, b); }
  static V load(const V* p) { return _mm_load_si128(p); }
  static void store(V* p, V v) { _mm_store_si128(p, v); }
  static V load_lanes(const Elem* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
  static void store_lanes(Elem* p, V v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
  static Codes codes(const std::uint8_t* lane_codes) { return ByteLookup128::codes(lane_codes); }
  static Row row(const std::uint8_t* biased_row) { return ByteLookup128::row(biased_row); }
  static V lookup(const Row& row, const Codes& codes) {
    if constexpr (kBytes)
      return ByteLookup128::bytes(row, codes);
    else
      return _mm_cvtepu8_epi16(ByteLookup128::bytes(row, codes));
  }
};

}  // namespace

const ScanTable kScanSse41 = make_scan_table<Sse41<std::uint8_t>, Sse41<std::uint16_t>>();

}  // namespace warpsearch::cpu::detail
