// Striped pair kernels for AVX-512BW (compiled with -mavx512bw; called only after dispatch checked the
// CPU). 32 lanes of 16 bits (saturating), 16 lanes of 32 bits.
//
// GCC 12's AVX-512F intrinsics for 32-bit lanes (max, min, alignr, sign extension) pass
// _mm512_undefined_epi32() as the unused merge source under an all-ones mask, which -Wuninitialized and
// -Wmaybe-uninitialized report after inlining; the value is never read, so both warnings are off for
// this file only.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "kernels/cpu/striped_kernel.hpp"

namespace warpsearch::cpu::detail {
namespace {

struct Avx512Common {
  using V = __m512i;
  static V load(const V* p) { return _mm512_load_si512(p); }
  static void store(V* p, V v) { _mm512_store_si512(p, v); }
};

alignas(64) constexpr std::uint16_t kWordIndices[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                                        16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

struct Avx512I16 : Avx512Common {
  using Elem = std::int16_t;
  static constexpr int lanes = 32;
  static constexpr bool saturating = true;
  static constexpr Elem kMinusInfinity = -32768;
  static constexpr Elem kMax = 32767;
  static constexpr int mask_bits = 1;
  static V splat(Elem x) { return _mm512_set1_epi16(x); }
  static V adds(V a, V b) { return _mm512_adds_epi16(a, b); }
  static V subs(V a, V b) { return _mm512_subs_epi16(a, b); }
  static V max(V a, V b) { return _mm512_max_epi16(a, b); }
  static V min(V a, V b) { return _mm512_min_epi16(a, b); }
  static V load_profile(const std::int16_t* p) { return _mm512_load_si512(p); }
  // Lanes moved up by D (lane k takes lane k - D); the low D lanes from fill.
  template <int D>
  static V shift_up(V v, V fill) {
    const V from = _mm512_sub_epi16(_mm512_load_si512(kWordIndices), _mm512_set1_epi16(D));
    return _mm512_mask_permutexvar_epi16(fill, static_cast<__mmask32>(~((1u << D) - 1)), from, v);
  }
  static bool any_greater(V a, V b) { return _mm512_cmpgt_epi16_mask(a, b) != 0; }
  static std::uint64_t equal_mask(V a, V b) { return _mm512_cmpeq_epi16_mask(a, b); }
};

struct Avx512I32 : Avx512Common {
  using Elem = std::int32_t;
  static constexpr int lanes = 16;
  static constexpr bool saturating = false;
  static constexpr Elem kMinusInfinity = -(1 << 30);
  static constexpr Elem kMax = 1 << 30;
  static constexpr int mask_bits = 1;
  static V splat(Elem x) { return _mm512_set1_epi32(x); }
  static V adds(V a, V b) { return _mm512_add_epi32(a, b); }
  static V subs(V a, V b) { return _mm512_sub_epi32(a, b); }
  static V max(V a, V b) { return _mm512_max_epi32(a, b); }
  static V min(V a, V b) { return _mm512_min_epi32(a, b); }
  // The profile's 16 int16 scores of a vector, sign-extended.
  static V load_profile(const std::int16_t* p) {
    return _mm512_cvtepi16_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(p)));
  }
  // alignr of [v : fill] by 16 - D lanes: lane k takes v's lane k - D, the low D lanes fill's top ones.
  template <int D>
  static V shift_up(V v, V fill) {
    return _mm512_alignr_epi32(v, fill, 16 - D);
  }
  static bool any_greater(V a, V b) { return _mm512_cmpgt_epi32_mask(a, b) != 0; }
  static std::uint64_t equal_mask(V a, V b) { return _mm512_cmpeq_epi32_mask(a, b); }
};

}  // namespace

const StripedTable kStripedAvx512bw = make_striped_table<Avx512I16, Avx512I32>();

}  // namespace warpsearch::cpu::detail
