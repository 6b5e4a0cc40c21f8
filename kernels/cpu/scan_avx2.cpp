// Scan kernels for AVX2 (compiled with -mavx2; called only after dispatch checked the CPU).
// 32 lanes of 8 bits, 16 lanes of 16 bits.
#include <type_traits>

#include "kernels/cpu/scan_x86.hpp"

namespace warpsearch::cpu::detail {
namespace {

// E = std::uint8_t or std::uint16_t. The lanes' codes are looked up in one 256-bit register (8 bits)
// or in a 128-bit one and widened (16 bits).
template <class E>
struct Avx2 {
  static constexpr bool kBytes = sizeof(E) == 1;
  using V = __m256i;
  using Elem = E;
  using Lookup = std::conditional_t<kBytes, ByteLookup256, ByteLookup128>;
  using Codes = typename Lookup::Codes;
  using Row = typename Lookup::Row;
  static constexpr int lanes = 32 / sizeof(E);
  static constexpr std::int64_t cap = kBytes ? kCap8 : kCap16;
  static V zero() { return _mm256_setzero_si256(); }
  static V splat(int x) {
    return kBytes ? _mm256_set1_epi8(static_cast<char>(x)) : _mm256_set1_epi16(static_cast<short>(x));
  }
  static V adds(V a, V b) { return kBytes ? _mm256_adds_epu8(a, b) : _mm256_adds_epu16(a, b); }
  static V subs(V a, V b) { return kBytes ? _mm256_subs_epu8(a, b) : _mm256_subs_epu16(a, b); }
  static V max(V a, V b) { return kBytes ? _mm256_max_epu8(a, b) : _mm256_max_epu16(a, b); }
  static V and_(V a, V b) { return _mm256_and_si256(a, b); }
  static V load(const V* p) { return _mm256_load_si256(p); }
  static void store(V* p, V v) { _mm256_store_si256(p, v); }
  static V load_lanes(const Elem* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store_lanes(Elem* p, V v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static Codes codes(const std::uint8_t* lane_codes) { return Lookup::codes(lane_codes); }
  static Row row(const std::uint8_t* biased_row) { return Lookup::row(biased_row); }
  static V lookup(const Row& row, const Codes& codes) {
    if constexpr (kBytes)
      return Lookup::bytes(row, codes);
    else
      return _mm256_cvtepu8_epi16(Lookup::bytes(row, codes));
  }
};

}  // namespace

const ScanTable kScanAvx2 = make_scan_table<Avx2<std::uint8_t>, Avx2<std::uint16_t>>();

}  // namespace warpsearch::cpu::detail
