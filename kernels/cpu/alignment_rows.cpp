#include "kernels/cpu/alignment_rows.hpp"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
// The row loops also have AVX2 and AVX-512 variants (compiled by target attribute: this file is built
// for the baseline instruction set), chosen at run time.
#define WARPSEARCH_ALIGNMENT_AVX2 1
#endif

namespace warpsearch::cpu::detail {
namespace {

// D(k + 1) for the columns k >= first from MI: the running maximum of MI(k) + k * e, one max per cell,
// continuing from running (the maximum over the columns before first).
void horizontal_gaps_from(RowJob job, std::size_t first, std::int32_t running) {
  const std::int32_t open_extend = job.open + job.extend;
  std::int32_t column_extends = static_cast<std::int32_t>(first) * job.extend;  // k * e
  for (std::size_t k = first; k + 1 < job.columns; ++k) {
    running = std::max(running, job.m_or_i[k] + column_extends);
    job.del[k + 1] = running - open_extend - column_extends;
    column_extends += job.extend;
  }
}

// D of every column.
void horizontal_gaps_scalar(RowJob job) { horizontal_gaps_from(job, 0, kMinusInfinity); }

#if defined(WARPSEARCH_ALIGNMENT_AVX2)
// The same, 8 columns at a time. Inside a vector, a log-step scan: within each 128-bit half each lane
// takes the max with the lane 1 below it, then 2 below (alignr against minus infinity), then the high
// half takes the max with the low half's top lane. Then the max with the previous vectors' maximum,
// which is updated from this vector's top lane off the scan's path: the only chain from vector to
// vector is one max, so the loop runs at the shuffles' throughput rather than at a latency per cell.
__attribute__((target("avx2"))) void horizontal_gaps_avx2(RowJob job) {
  const __m256i minus_infinity = _mm256_set1_epi32(kMinusInfinity);
  const __m256i open_extend = _mm256_set1_epi32(job.open + job.extend);
  const __m256i last_lane = _mm256_set1_epi32(7);
  const __m256i eight_extends = _mm256_set1_epi32(8 * job.extend);
  __m256i column_extends =  // per lane, its column's k * e
      _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(job.extend));
  __m256i running = minus_infinity;  // broadcast: the maximum of the vectors so far
  std::size_t k = 0;
  for (; k + 8 < job.columns; k += 8) {
    const __m256i m_or_i = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(job.m_or_i + k));
    __m256i x = _mm256_add_epi32(m_or_i, column_extends);
    x = _mm256_max_epi32(x, _mm256_alignr_epi8(x, minus_infinity, 12));
    x = _mm256_max_epi32(x, _mm256_alignr_epi8(x, minus_infinity, 8));
    x = _mm256_max_epi32(x, _mm256_permute2x128_si256(_mm256_shuffle_epi32(x, 0xFF), minus_infinity, 0x02));
    const __m256i before = running;
    running = _mm256_max_epi32(running, _mm256_permutevar8x32_epi32(x, last_lane));
    x = _mm256_max_epi32(x, before);
    const __m256i del = _mm256_sub_epi32(_mm256_sub_epi32(x, open_extend), column_extends);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(job.del + k + 1), del);
    column_extends = _mm256_add_epi32(column_extends, eight_extends);
  }
  horizontal_gaps_from(job, k, _mm256_extract_epi32(running, 0));
}
#endif

// The row's three loops. Always inlined, so that each instruction set's wrapper below compiles (and
// vectorises) them for its own target.
template <bool kTraceback, void (*HorizontalGaps)(RowJob)>
[[gnu::always_inline]] inline void global_row(RowJob job) {
  const std::int32_t extend = job.extend, open_extend = job.open + job.extend;
  job.m_or_i[0] = job.h[0];
  for (std::size_t j = 1; j < job.columns; ++j) {
    const std::int32_t ins_extend = job.ins_above[j] - extend, ins_open = job.h_above[j] - open_extend;
    const std::int32_t ins = std::max(ins_extend, ins_open);
    const std::int32_t diagonal = job.h_above[j - 1] + job.substitution[j];
    job.ins[j] = ins;
    job.m_or_i[j] = std::max(ins, diagonal);
    if constexpr (kTraceback)  // M or I, the source unless D wins below
      job.tb[j] =
          static_cast<std::uint8_t>((ins > diagonal ? kFromI : kFromM) | (ins_extend > ins_open ? kIExtends : 0));
  }
  HorizontalGaps(job);
  const std::uint8_t d_extends_bit = job.open > 0 ? kDExtends : 0;
  for (std::size_t j = 1; j < job.columns; ++j) {
    const std::int32_t del = job.del[j];
    job.h[j] = std::max(job.m_or_i[j], del);
    if constexpr (kTraceback) {
      const std::uint8_t m_or_i_byte = job.tb[j];
      const std::uint8_t source_byte = del > job.m_or_i[j] ? (m_or_i_byte & kIExtends) | kFromD : m_or_i_byte;
      job.tb[j] = source_byte | (del > job.m_or_i[j - 1] - open_extend ? d_extends_bit : 0);
    }
  }
}

template <bool kTraceback>
void global_row_portable(RowJob job) {
  global_row<kTraceback, horizontal_gaps_scalar>(job);
}

#if defined(WARPSEARCH_ALIGNMENT_AVX2)
// The same loops compiled for AVX2: 8 columns per vector instead of SSE2's 4.
template <bool kTraceback>
__attribute__((target("avx2"))) void global_row_avx2(RowJob job) {
  global_row<kTraceback, horizontal_gaps_avx2>(job);
}

// And for AVX-512 on 8-column vectors: its narrowing moves and mask registers pack the compares into
// traceback bytes in fewer instructions (about 20% faster than AVX2 on a Zen 5 EPYC; 16-column vectors
// measured no faster there).
template <bool kTraceback>
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) void global_row_avx512(RowJob job) {
  global_row<kTraceback, horizontal_gaps_avx2>(job);
}
#endif

}  // namespace

RowFunctions row_functions([[maybe_unused]] Isa isa) {
#if defined(WARPSEARCH_ALIGNMENT_AVX2)
  if (isa == Isa::avx512bw && __builtin_cpu_supports("avx512vl"))
    return {global_row_avx512<false>, global_row_avx512<true>};
  if (isa == Isa::avx2 || isa == Isa::avx512bw) return {global_row_avx2<false>, global_row_avx2<true>};
#endif
  return {global_row_portable<false>, global_row_portable<true>};
}

}  // namespace warpsearch::cpu::detail
