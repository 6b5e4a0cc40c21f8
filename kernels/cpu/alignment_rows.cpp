#include "kernels/cpu/alignment_rows.hpp"

#include "kernels/cpu/striped.hpp"

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
template <typename Value>
void horizontal_gaps_from(RowJobOf<Value> job, std::size_t first, std::int32_t running) {
  const std::int32_t open_extend = job.open + job.extend;
  std::int32_t column_extends = static_cast<std::int32_t>(first) * job.extend;  // k * e
  for (std::size_t k = first; k + 1 < job.columns; ++k) {
    running = std::max(running, job.m_or_i[k] + column_extends);
    job.del[k + 1] = static_cast<Value>(running - open_extend - column_extends);
    column_extends += job.extend;
  }
}

// D of every column.
template <typename Value>
void horizontal_gaps_scalar(RowJobOf<Value> job) {
  horizontal_gaps_from(job, 0, kMinusInfinityOf<Value>);
}

#if defined(WARPSEARCH_ALIGNMENT_AVX2)
// The same, 8 columns at a time. Inside a vector, a log-step scan: within each 128-bit half each lane
// takes the max with the lane 1 below it, then 2 below (alignr against minus infinity), then the high
// half takes the max with the low half's top lane. Then the max with the previous vectors' maximum,
// which is updated from this vector's top lane off the scan's path: the only chain from vector to
// vector is one max, so the loop runs at the shuffles' throughput rather than at a latency per cell.
__attribute__((target("avx2"))) void horizontal_gaps_avx2(RowJobOf<std::int32_t> job) {
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

// The 16-bit rows' scan, 16 columns at a time: the same steps with one more shift (1, 2, 4 lanes), and
// the top lane of a half broadcast by a word shuffle, then a dword one. No sum leaves 16 bits: the
// rectangle fits the narrow rows only when MI(k) + k * e does (fits_narrow_rows).
__attribute__((target("avx2"))) void horizontal_gaps_avx2(RowJobOf<std::int16_t> job) {
  const __m256i minus_infinity = _mm256_set1_epi16(kMinusInfinityOf<std::int16_t>);
  const __m256i open_extend = _mm256_set1_epi16(static_cast<std::int16_t>(job.open + job.extend));
  const __m256i last_lane = _mm256_set1_epi32(7);
  const __m256i sixteen_extends = _mm256_set1_epi16(static_cast<std::int16_t>(16 * job.extend));
  __m256i column_extends = _mm256_mullo_epi16(_mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                              _mm256_set1_epi16(job.extend));
  __m256i running = minus_infinity;
  std::size_t k = 0;
  for (; k + 16 < job.columns; k += 16) {
    const __m256i m_or_i = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(job.m_or_i + k));
    __m256i x = _mm256_add_epi16(m_or_i, column_extends);
    x = _mm256_max_epi16(x, _mm256_alignr_epi8(x, minus_infinity, 14));
    x = _mm256_max_epi16(x, _mm256_alignr_epi8(x, minus_infinity, 12));
    x = _mm256_max_epi16(x, _mm256_alignr_epi8(x, minus_infinity, 8));
    const __m256i half_tops = _mm256_shuffle_epi32(_mm256_shufflehi_epi16(x, 0xFF), 0xFF);  // word 7 of a half
    x = _mm256_max_epi16(x, _mm256_permute2x128_si256(half_tops, minus_infinity, 0x02));
    const __m256i before = running;
    // Word 15 into every word: into words 12-15, then dword 7 (words 14 and 15) everywhere.
    running = _mm256_max_epi16(running, _mm256_permutevar8x32_epi32(_mm256_shufflehi_epi16(x, 0xFF), last_lane));
    x = _mm256_max_epi16(x, before);
    const __m256i del = _mm256_sub_epi16(_mm256_sub_epi16(x, open_extend), column_extends);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(job.del + k + 1), del);
    column_extends = _mm256_add_epi16(column_extends, sixteen_extends);
  }
  horizontal_gaps_from(job, k, static_cast<std::int16_t>(_mm256_extract_epi16(running, 0)));
}
#endif

// The row's three loops. Always inlined, so that each instruction set's wrapper below compiles (and
// vectorises) them for its own target.
template <bool kTraceback, typename Value, void (*HorizontalGaps)(RowJobOf<Value>)>
[[gnu::always_inline]] inline void global_row(RowJobOf<Value> job) {
  const Value extend = job.extend, open_extend = static_cast<Value>(job.open + job.extend);
  job.m_or_i[0] = job.h[0];
  for (std::size_t j = 1; j < job.columns; ++j) {
    const Value ins_extend = static_cast<Value>(job.ins_above[j] - extend);
    const Value ins_open = static_cast<Value>(job.h_above[j] - open_extend);
    const Value ins = std::max(ins_extend, ins_open);
    const Value diagonal = static_cast<Value>(job.h_above[j - 1] + job.substitution[j]);
    job.ins[j] = ins;
    job.m_or_i[j] = std::max(ins, diagonal);
    if constexpr (kTraceback)  // M or I, the source unless D wins below
      job.tb[j] =
          static_cast<std::uint8_t>((ins > diagonal ? kFromI : kFromM) | (ins_extend > ins_open ? kIExtends : 0));
  }
  HorizontalGaps(job);
  const std::uint8_t d_extends_bit = job.open > 0 ? kDExtends : 0;
  for (std::size_t j = 1; j < job.columns; ++j) {
    const Value del = job.del[j];
    job.h[j] = std::max(job.m_or_i[j], del);
    if constexpr (kTraceback) {
      const std::uint8_t m_or_i_byte = job.tb[j];
      const std::uint8_t source_byte = del > job.m_or_i[j] ? (m_or_i_byte & kIExtends) | kFromD : m_or_i_byte;
      const Value d_opened = static_cast<Value>(job.m_or_i[j - 1] - open_extend);
      job.tb[j] = source_byte | (del > d_opened ? d_extends_bit : 0);
    }
  }
}

template <bool kTraceback, typename Value>
void global_row_portable(RowJobOf<Value> job) {
  global_row<kTraceback, Value, horizontal_gaps_scalar<Value>>(job);
}

#if defined(WARPSEARCH_ALIGNMENT_AVX2)
// The same loops compiled for AVX2: 8 columns per vector instead of SSE2's 4 (16 in 16 bits).
template <bool kTraceback, typename Value>
__attribute__((target("avx2"))) void global_row_avx2(RowJobOf<Value> job) {
  global_row<kTraceback, Value, horizontal_gaps_avx2>(job);
}

// And for AVX-512 on 8-column vectors: its narrowing moves and mask registers pack the compares into
// traceback bytes in fewer instructions (about 20% faster than AVX2 on a Zen 5 EPYC; 16-column vectors
// measured no faster there).
template <bool kTraceback, typename Value>
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) void global_row_avx512(RowJobOf<Value> job) {
  global_row<kTraceback, Value, horizontal_gaps_avx2>(job);
}
#endif

}  // namespace

RowFunctions row_functions([[maybe_unused]] Isa isa) {
#if defined(WARPSEARCH_ALIGNMENT_AVX2)
  if (isa == Isa::avx512bw && __builtin_cpu_supports("avx512vl"))
    return {global_row_avx512<false, std::int32_t>, global_row_avx512<true, std::int32_t>,
            global_row_avx512<false, std::int16_t>, global_row_avx512<true, std::int16_t>};
  if (isa == Isa::avx2 || isa == Isa::avx512bw)
    return {global_row_avx2<false, std::int32_t>, global_row_avx2<true, std::int32_t>,
            global_row_avx2<false, std::int16_t>, global_row_avx2<true, std::int16_t>};
#endif
  return {global_row_portable<false, std::int32_t>, global_row_portable<true, std::int32_t>,
          global_row_portable<false, std::int16_t>, global_row_portable<true, std::int16_t>};
}

bool fits_narrow_rows(std::size_t rows, std::size_t cols, const ScoringScheme& scoring, std::int32_t top_open) {
  const ScoreRange range = striped_score_range(AlignmentMode::global, rows, cols, scoring);
  const std::int64_t open_extend = std::int64_t{scoring.gap_open()} + scoring.gap_extend();
  const std::int64_t column_gap = std::int64_t{top_open} + static_cast<std::int64_t>(rows) * scoring.gap_extend();
  const std::int64_t low = std::min(range.low, -column_gap - open_extend);
  const std::int64_t minus_infinity = kMinusInfinityOf<std::int16_t>;
  constexpr std::int64_t kSpare = 256;  // a substitution (int8) and then some
  return open_extend <= -minus_infinity / 2 && low - open_extend - kSpare > minus_infinity &&
         range.high + static_cast<std::int64_t>(cols + 16) * scoring.gap_extend() + kSpare <
             std::numeric_limits<std::int16_t>::max();
}

}  // namespace warpsearch::cpu::detail
