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
// The lanes of an AVX2 vector of the rows' values: 8 of 32 bits or 16 of 16 bits. No sum leaves the
// type: the 16-bit rows serve only rectangles where MI(k) + k * e fits (fits_narrow_rows).
#define WARPSEARCH_AVX2 __attribute__((target("avx2"))) static
template <typename Value>
struct Avx2Lanes;
template <>
struct Avx2Lanes<std::int32_t> {
  static constexpr int kCount = 8;
  WARPSEARCH_AVX2 __m256i splat(std::int32_t x) { return _mm256_set1_epi32(x); }
  WARPSEARCH_AVX2 __m256i add(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
  WARPSEARCH_AVX2 __m256i sub(__m256i a, __m256i b) { return _mm256_sub_epi32(a, b); }
  WARPSEARCH_AVX2 __m256i max(__m256i a, __m256i b) { return _mm256_max_epi32(a, b); }
  WARPSEARCH_AVX2 __m256i indices() { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
  WARPSEARCH_AVX2 __m256i mul(__m256i a, __m256i b) { return _mm256_mullo_epi32(a, b); }
  // Within each 128-bit half, each lane's maximum with the lanes below it (alignr against minus infinity).
  WARPSEARCH_AVX2 __m256i prefix_in_halves(__m256i x, __m256i minus) {
    x = max(x, _mm256_alignr_epi8(x, minus, 12));
    return max(x, _mm256_alignr_epi8(x, minus, 8));
  }
  // The top lane of each half in all of its lanes; the top lane of the vector in all of them.
  WARPSEARCH_AVX2 __m256i half_tops(__m256i x) { return _mm256_shuffle_epi32(x, 0xFF); }
  WARPSEARCH_AVX2 __m256i top(__m256i x) { return _mm256_permutevar8x32_epi32(x, _mm256_set1_epi32(7)); }
  WARPSEARCH_AVX2 std::int32_t first(__m256i x) { return _mm256_extract_epi32(x, 0); }
};
template <>
struct Avx2Lanes<std::int16_t> {
  static constexpr int kCount = 16;
  WARPSEARCH_AVX2 __m256i splat(std::int32_t x) { return _mm256_set1_epi16(static_cast<std::int16_t>(x)); }
  WARPSEARCH_AVX2 __m256i add(__m256i a, __m256i b) { return _mm256_add_epi16(a, b); }
  WARPSEARCH_AVX2 __m256i sub(__m256i a, __m256i b) { return _mm256_sub_epi16(a, b); }
  WARPSEARCH_AVX2 __m256i max(__m256i a, __m256i b) { return _mm256_max_epi16(a, b); }
  WARPSEARCH_AVX2 __m256i indices() { return _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
  WARPSEARCH_AVX2 __m256i mul(__m256i a, __m256i b) { return _mm256_mullo_epi16(a, b); }
  WARPSEARCH_AVX2 __m256i prefix_in_halves(__m256i x, __m256i minus) {
    x = max(x, _mm256_alignr_epi8(x, minus, 14));
    x = max(x, _mm256_alignr_epi8(x, minus, 12));
    return max(x, _mm256_alignr_epi8(x, minus, 8));
  }
  // Word 7 of a half into its words 4-7 (a word shuffle), then dword 3 (words 6 and 7) everywhere; word
  // 15 into words 12-15, then dword 7 everywhere.
  WARPSEARCH_AVX2 __m256i half_tops(__m256i x) { return _mm256_shuffle_epi32(_mm256_shufflehi_epi16(x, 0xFF), 0xFF); }
  WARPSEARCH_AVX2 __m256i top(__m256i x) {
    return _mm256_permutevar8x32_epi32(_mm256_shufflehi_epi16(x, 0xFF), _mm256_set1_epi32(7));
  }
  WARPSEARCH_AVX2 std::int32_t first(__m256i x) { return static_cast<std::int16_t>(_mm256_extract_epi16(x, 0)); }
};
#undef WARPSEARCH_AVX2

// The same, a vector of columns at a time. Inside a vector, a log-step scan: within each 128-bit half
// each lane takes the max with the lane 1 below it, then 2 below (and 4, in 16 bits), then the high
// half takes the max with the low half's top lane. Then the max with the previous vectors' maximum,
// which is updated from this vector's top lane off the scan's path: the only chain from vector to
// vector is one max, so the loop runs at the shuffles' throughput rather than at a latency per cell.
template <typename Value>
__attribute__((target("avx2"))) void horizontal_gaps_avx2(RowJobOf<Value> job) {
  using L = Avx2Lanes<Value>;
  const __m256i minus_infinity = L::splat(kMinusInfinityOf<Value>);
  const __m256i open_extend = L::splat(job.open + job.extend);
  const __m256i vector_extends = L::splat(L::kCount * job.extend);
  __m256i column_extends = L::mul(L::indices(), L::splat(job.extend));  // per lane, its column's k * e
  // Broadcast: the maximum of the vectors so far.
  __m256i running = minus_infinity;
  std::size_t k = 0;
  for (; k + L::kCount < job.columns; k += L::kCount) {
    const __m256i m_or_i = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(job.m_or_i + k));
    __m256i x = L::prefix_in_halves(L::add(m_or_i, column_extends), minus_infinity);
    x = L::max(x, _mm256_permute2x128_si256(L::half_tops(x), minus_infinity, 0x02));
    const __m256i before = running;
    running = L::max(running, L::top(x));
    x = L::max(x, before);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(job.del + k + 1), L::sub(L::sub(x, open_extend), column_extends));
    column_extends = L::add(column_extends, vector_extends);
  }
  horizontal_gaps_from(job, k, L::first(running));
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
  global_row<kTraceback, Value, horizontal_gaps_avx2<Value>>(job);
}

// And for AVX-512 on 8-column vectors: its narrowing moves and mask registers pack the compares into
// traceback bytes in fewer instructions (about 20% faster than AVX2 on a Zen 5 EPYC; 16-column vectors
// measured no faster there).
template <bool kTraceback, typename Value>
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) void global_row_avx512(RowJobOf<Value> job) {
  global_row<kTraceback, Value, horizontal_gaps_avx2<Value>>(job);
}
#endif

}  // namespace

RowFunctions row_functions([[maybe_unused]] Isa isa) {
#if defined(WARPSEARCH_ALIGNMENT_AVX2)
  if (isa == Isa::avx512bw && __builtin_cpu_supports("avx512vl"))
    return {global_row_avx512<false, std::int32_t>, global_row_avx512<true, std::int32_t>,
            global_row_avx512<true, std::int16_t>};
  if (isa == Isa::avx2 || isa == Isa::avx512bw)
    return {global_row_avx2<false, std::int32_t>, global_row_avx2<true, std::int32_t>,
            global_row_avx2<true, std::int16_t>};
#endif
  return {global_row_portable<false, std::int32_t>, global_row_portable<true, std::int32_t>,
          global_row_portable<true, std::int16_t>};
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
