// Striped pair kernels for AVX2 (compiled with -mavx2; called only after dispatch checked the CPU).
// 16 lanes of 16 bits (saturating), 8 lanes of 32 bits.
#include <immintrin.h>

#include "kernels/cpu/striped_kernel.hpp"

namespace warpsearch::cpu::detail {
namespace {

struct Avx2Common {
  using V = __m256i;
  static V load(const V* p) { return _mm256_load_si256(p); }
  static void store(V* p, V v) { _mm256_store_si256(p, v); }
  // The vector moved up by Bytes (at most 16) across the two 128-bit halves: per half, alignr against
  // [fill's low half, v's low half], so the low half's top bytes enter the high half and fill's bytes
  // enter at the bottom.
  template <int Bytes>
  static V shift_bytes_up(V v, V fill) {
    return _mm256_alignr_epi8(v, _mm256_permute2x128_si256(v, fill, 0x02), 16 - Bytes);
  }
};

struct Avx2I16 : Avx2Common {
  using Elem = std::int16_t;
  static constexpr int lanes = 16;
  static constexpr bool saturating = true;
  static constexpr Elem kMinusInfinity = -32768;
  static constexpr Elem kMax = 32767;
  static constexpr int mask_bits = 2;  // _mm256_movemask_epi8 gives two bits per 16-bit lane
  static V splat(Elem x) { return _mm256_set1_epi16(x); }
  static V adds(V a, V b) { return _mm256_adds_epi16(a, b); }
  static V subs(V a, V b) { return _mm256_subs_epi16(a, b); }
  static V max(V a, V b) { return _mm256_max_epi16(a, b); }
  static V min(V a, V b) { return _mm256_min_epi16(a, b); }
  static V load_profile(const std::int16_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  // Lanes moved up by D; the low D lanes from fill.
  template <int D>
  static V shift_up(V v, V fill) {
    return shift_bytes_up<2 * D>(v, fill);
  }
  static bool any_greater(V a, V b) { return _mm256_movemask_epi8(_mm256_cmpgt_epi16(a, b)) != 0; }
  static std::uint64_t equal_mask(V a, V b) {
    return static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi16(a, b)));
  }
};

struct Avx2I32 : Avx2Common {
  using Elem = std::int32_t;
  static constexpr int lanes = 8;
  static constexpr bool saturating = false;
  static constexpr Elem kMinusInfinity = -(1 << 30);
  static constexpr Elem kMax = 1 << 30;
  static constexpr int mask_bits = 1;
  static V splat(Elem x) { return _mm256_set1_epi32(x); }
  static V adds(V a, V b) { return _mm256_add_epi32(a, b); }
  static V subs(V a, V b) { return _mm256_sub_epi32(a, b); }
  static V max(V a, V b) { return _mm256_max_epi32(a, b); }
  static V min(V a, V b) { return _mm256_min_epi32(a, b); }
  // The profile's 8 int16 scores of a vector, sign-extended.
  static V load_profile(const std::int16_t* p) {
    return _mm256_cvtepi16_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(p)));
  }
  template <int D>
  static V shift_up(V v, V fill) {
    return shift_bytes_up<4 * D>(v, fill);
  }
  static bool any_greater(V a, V b) { return _mm256_movemask_epi8(_mm256_cmpgt_epi32(a, b)) != 0; }
  static std::uint64_t equal_mask(V a, V b) {
    return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))));
  }
};

}  // namespace

const StripedTable kStripedAvx2 = make_striped_table<Avx2I16, Avx2I32>();

}  // namespace warpsearch::cpu::detail
