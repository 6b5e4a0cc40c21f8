// Striped pair kernels for SSE4.1 (compiled with -msse4.1; called only after dispatch checked the CPU).
// 8 lanes of 16 bits (saturating), 4 lanes of 32 bits.
#include <immintrin.h>

#include "kernels/cpu/striped_kernel.hpp"

namespace warpsearch::cpu::detail {
namespace {

struct Sse41Common {
  using V = __m128i;
  static V load(const V* p) { return _mm_load_si128(p); }
  static void store(V* p, V v) { _mm_store_si128(p, v); }
};

struct Sse41I16 : Sse41Common {
  using Elem = std::int16_t;
  static constexpr int lanes = 8;
  static constexpr bool saturating = true;
  static constexpr Elem kMinusInfinity = -32768;
  static constexpr Elem kMax = 32767;
  static constexpr int mask_bits = 2;  // _mm_movemask_epi8 gives two bits per 16-bit lane
  static V splat(Elem x) { return _mm_set1_epi16(x); }
  static V adds(V a, V b) { return _mm_adds_epi16(a, b); }
  static V subs(V a, V b) { return _mm_subs_epi16(a, b); }
  static V max(V a, V b) { return _mm_max_epi16(a, b); }
  static V min(V a, V b) { return _mm_min_epi16(a, b); }
  static V load_profile(const std::int16_t* p) { return _mm_load_si128(reinterpret_cast<const __m128i*>(p)); }
  // Lanes moved up by D; the low D lanes from fill.
  template <int D>
  static V shift_up(V v, V fill) {
    return _mm_alignr_epi8(v, fill, 16 - 2 * D);
  }
  static bool any_greater(V a, V b) { return _mm_movemask_epi8(_mm_cmpgt_epi16(a, b)) != 0; }
  static std::uint64_t equal_mask(V a, V b) {
    return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi16(a, b)));
  }
};

struct Sse41I32 : Sse41Common {
  using Elem = std::int32_t;
  static constexpr int lanes = 4;
  static constexpr bool saturating = false;
  static constexpr Elem kMinusInfinity = -(1 << 30);
  static constexpr Elem kMax = 1 << 30;
  static constexpr int mask_bits = 1;
  static V splat(Elem x) { return _mm_set1_epi32(x); }
  static V adds(V a, V b) { return _mm_add_epi32(a, b); }
  static V subs(V a, V b) { return _mm_sub_epi32(a, b); }
  static V max(V a, V b) { return _mm_max_epi32(a, b); }
  static V min(V a, V b) { return _mm_min_epi32(a, b); }
  // The profile's 4 int16 scores of a vector, sign-extended.
  static V load_profile(const std::int16_t* p) {
    return _mm_cvtepi16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  template <int D>
  static V shift_up(V v, V fill) {
    return _mm_alignr_epi8(v, fill, 16 - 4 * D);
  }
  static bool any_greater(V a, V b) { return _mm_movemask_epi8(_mm_cmpgt_epi32(a, b)) != 0; }
  static std::uint64_t equal_mask(V a, V b) {
    return static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a, b))));
  }
};

}  // namespace

const StripedTable kStripedSse41 = make_striped_table<Sse41I16, Sse41I32>();

}  // namespace warpsearch::cpu::detail
