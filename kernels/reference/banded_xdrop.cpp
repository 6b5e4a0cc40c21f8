#include "kernels/reference/banded_xdrop.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>

namespace warpsearch {
namespace {

// Traceback byte: bits 0-1 where H came from; bit 2: F here extends the F above (query residue against a
// gap, 'I'); bit 3: E here extends the E to the left (target residue against a gap, 'D').
constexpr std::uint8_t kFromM = 0, kFromI = 1, kFromD = 2, kSourceMask = 3, kIExtends = 4, kDExtends = 8;

// The recurrence over one band of an anti-diagonal, cell k at row low + k: E and H of the cell to the left
// (i, j - 1), F and H of the cell above (i - 1, j), H of the diagonal neighbour (i - 1, j - 1), all on the
// two anti-diagonals before. No branches and no aliasing between what is read and what is written, so
// that the compiler vectorises it.
template <typename Score, bool kTraceback>
void band_recurrence(std::size_t count, const Score* __restrict__ e_left, const Score* __restrict__ h_left,
                     const Score* __restrict__ f_up, const Score* __restrict__ h_up,
                     const Score* __restrict__ h_diagonal, const std::int32_t* __restrict__ scores,
                     Score* __restrict__ h, Score* __restrict__ e, Score* __restrict__ f, std::uint8_t* __restrict__ tb,
                     Score extend, Score open_extend, Score threshold) {
  constexpr Score kMinusInfinity = std::numeric_limits<Score>::min() / 4;
  for (std::size_t k = 0; k < count; ++k) {
    const Score e_extend = e_left[k] - extend, e_open = h_left[k] - open_extend;
    const Score f_extend = f_up[k] - extend, f_open = h_up[k] - open_extend;
    const Score e_here = std::max(e_extend, e_open);
    const Score f_here = std::max(f_extend, f_open);
    const Score match = h_diagonal[k] + static_cast<Score>(scores[k]);
    const Score gap = std::max(e_here, f_here);
    const Score h_here = std::max(match, gap);
    const bool dead = h_here < threshold;
    h[k] = dead ? kMinusInfinity : h_here;
    e[k] = dead ? kMinusInfinity : e_here;
    f[k] = dead ? kMinusInfinity : f_here;
    if constexpr (kTraceback) {
      // Where H came from: an aligned pair first, then F ('I'), then E ('D').
      const std::uint8_t source = match >= gap ? kFromM : (f_here >= e_here ? kFromI : kFromD);
      tb[k] =
          static_cast<std::uint8_t>(source | (f_extend > f_open ? kIExtends : 0) | (e_extend > e_open ? kDExtends : 0));
    }
  }
}

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// Rows of one anti-diagonal, first to last (none: low == kNone).
struct Rows {
  std::size_t low = kNone, high = 0;
  bool empty() const { return low == kNone || low > high; }
};

// One anti-diagonal's arrays of H, E and F (row i at index i + 1).
template <typename Score>
struct Slot {
  Score *h, *e, *f;
};

// What one anti-diagonal's band yields: its best cell (the first maximum, the smallest row) and its live
// rows (none when every cell fell below the threshold).
template <typename Score>
struct BandOutcome {
  Score best = std::numeric_limits<Score>::min() / 4;
  std::size_t best_row = 0;
  Rows live;
};

// The substitution scores of every pair of codes, row a * kMaxCodes + b.
std::array<std::int8_t, kMaxCodes * kMaxCodes> substitution_table(const ScoringScheme& scoring) {
  std::array<std::int8_t, kMaxCodes * kMaxCodes> substitution{};
  for (int a = 0; a < kMaxCodes; ++a)
    for (int b = 0; b < kMaxCodes; ++b)
      substitution[static_cast<std::size_t>(a * kMaxCodes + b)] =
          static_cast<std::int8_t>(scoring.score(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)));
  return substitution;
}

// The band of anti-diagonal d > 0 of an m x n matrix: cells with a live neighbour on d - 1 (rows
// live_1.low .. live_1.high + 1) or on d - 2 (rows live_2.low + 1 .. live_2.high + 1), inside the matrix.
Rows band_of(std::size_t d, std::size_t m, std::size_t n, const Rows& live_1, const Rows& live_2) {
  Rows band;
  if (live_1.low != kNone) {
    band.low = std::min(band.low, live_1.low);
    band.high = std::max(band.high, live_1.high + 1);
  }
  if (live_2.low != kNone) {
    band.low = std::min(band.low, live_2.low + 1);
    band.high = std::max(band.high, live_2.high + 1);
  }
  if (band.low != kNone) {
    band.low = std::max(band.low, d > n ? d - n : std::size_t{0});
    band.high = std::min(band.high, std::min(m, d));
  }
  return band;
}

// The recurrence over the band of anti-diagonal `current` (its substitution scores gathered in scores;
// tb: its traceback bytes, or null), then its best cell and live rows.
template <typename Score>
BandOutcome<Score> score_band(const Rows& band, const Slot<Score>& current, const Slot<Score>& previous,
                              const Score* h2, const std::int32_t* scores, std::uint8_t* tb, Score extend,
                              Score open_extend, Score threshold) {
  constexpr Score kMinusInfinity = std::numeric_limits<Score>::min() / 4;
  const std::size_t low = band.low, high = band.high, count = high - low + 1;
  Score* h = current.h;
  Score* e = current.e;
  Score* f = current.f;
  const Score* h1 = previous.h;
  const Score* e1 = previous.e;
  const Score* f1 = previous.f;
  Score* h_band = h + low + 1;
  h[low] = e[low] = f[low] = kMinusInfinity;  // the sentinels: rows low - 1 and high + 1
  h[high + 2] = e[high + 2] = f[high + 2] = kMinusInfinity;
  if (tb)
    band_recurrence<Score, true>(count, e1 + low + 1, h1 + low + 1, f1 + low, h1 + low, h2 + low, scores, h_band,
                                 e + low + 1, f + low + 1, tb, extend, open_extend, threshold);
  else
    band_recurrence<Score, false>(count, e1 + low + 1, h1 + low + 1, f1 + low, h1 + low, h2 + low, scores, h_band,
                                  e + low + 1, f + low + 1, nullptr, extend, open_extend, threshold);
  // The best cell (the first maximum, the smallest row) and the live rows.
  BandOutcome<Score> outcome;
  Score band_best = kMinusInfinity;
  for (std::size_t k = 0; k < count; ++k) band_best = std::max(band_best, h_band[k]);
  if (band_best > kMinusInfinity) {
    outcome.best = band_best;
    std::size_t first = 0, last = count - 1;
    while (h_band[first] == kMinusInfinity) ++first;
    while (h_band[last] == kMinusInfinity) --last;
    std::size_t at = first;
    while (h_band[at] != band_best) ++at;
    outcome.best_row = low + at;
    outcome.live = {low + first, low + last};
  }
  return outcome;
}

// The operations from the origin to cell (i, j), traced back through the traceback bytes of each
// anti-diagonal (offsets: where each starts in traceback; lows: its first row), through live cells only.
std::string trace_back(const std::vector<std::uint8_t>& traceback, const std::vector<std::uint64_t>& offsets,
                       const std::vector<std::uint32_t>& lows, std::size_t i, std::size_t j) {
  std::string reversed;
  std::uint8_t state = kSourceMask;  // kSourceMask: in H
  while (i + j > 0) {
    const std::size_t diagonal = i + j;
    const std::uint8_t byte = traceback[offsets[diagonal] + (i - lows[diagonal])];
    if (state == kSourceMask) state = byte & kSourceMask;
    if (state == kFromM) {
      reversed += 'M';
      --i;
      --j;
      state = kSourceMask;
    } else if (state == kFromI) {
      reversed += 'I';
      --i;
      if (!(byte & kIExtends)) state = kSourceMask;
    } else {
      reversed += 'D';
      --j;
      if (!(byte & kDExtends)) state = kSourceMask;
    }
  }
  return std::string(reversed.rbegin(), reversed.rend());
}

}  // namespace

// 32-bit scores are used when every live score and every threshold stays far from the 32-bit "minus
// infinity": |score| <= (m + n + 2) * (largest substitution or gap step) must stay below 2^27.
bool xdrop_fits_int32(std::size_t m, std::size_t n, const ScoringScheme& scoring) {
  const std::uint64_t step = static_cast<std::uint64_t>(
      std::max({std::abs(scoring.matrix().min_score()), std::abs(scoring.matrix().max_score()),
                scoring.gap_open() + scoring.gap_extend()}));
  return (static_cast<std::uint64_t>(m) + n + 2) * step < (std::uint64_t{1} << 27);
}

XdropAligner::XdropAligner(const ScoringScheme& scoring, XDrop x, ScoreWidth width)
    : scoring_(scoring), x_(x), width_(width) {
  if (x.value < 0) throw std::invalid_argument("the X-drop must be at least 0, not " + std::to_string(x.value));
}

Extension XdropAligner::extend(std::string_view query, std::string_view target, std::string* operations) {
  const bool narrow = width_ == ScoreWidth::automatic && xdrop_fits_int32(query.size(), target.size(), scoring_);
  return narrow ? extend_with<std::int32_t>(query, target, operations)
                : extend_with<std::int64_t>(query, target, operations);
}

template <typename Score>
Extension XdropAligner::extend_with(std::string_view query, std::string_view target, std::string* operations) {
  constexpr Score kMinusInfinity = std::numeric_limits<Score>::min() / 4;
  // Scores derived from minus infinity stay below kMinusInfinity / 2; live scores stay above it.
  constexpr Score kDeadBelow = kMinusInfinity / 2;
  const std::size_t m = query.size(), n = target.size();
  const Score open_extend = static_cast<Score>(scoring_.gap_open() + scoring_.gap_extend());
  const Score extend = static_cast<Score>(scoring_.gap_extend());

  // Row i of an anti-diagonal lives at index i + 1; index 0 (row -1) stays minus infinity. The query is
  // padded the same way (query_padded_[i] = query[i - 1]); the target is padded so that the target
  // residue of cell (i, d - i), target[d - i - 1], is target_padded_[n - d + i] (increasing with i).
  const std::uint8_t pad = scoring_.matrix().alphabet().pad_code();
  query_padded_.assign(1, static_cast<char>(pad));
  query_padded_.append(query);
  target_padded_.assign(target.rbegin(), target.rend());
  target_padded_.push_back(static_cast<char>(pad));
  const std::array<std::int8_t, kMaxCodes* kMaxCodes> substitution = substitution_table(scoring_);

  // Three anti-diagonals of H, E and F, rotated: row i at index i + 1, rows -1 .. m + 1.
  const std::size_t width = m + 3;
  std::vector<Score>& buffer = [&]() -> std::vector<Score>& {
    if constexpr (sizeof(Score) == 4)
      return buffer32_;
    else
      return buffer64_;
  }();
  buffer.assign(9 * width, kMinusInfinity);
  // One anti-diagonal's arrays. Rows outside the band computed last in them hold stale values, but the
  // next two anti-diagonals read at most one row beyond that band on either side (their bands start no
  // lower and end at most one row higher), where a minus-infinity sentinel is written.
  Slot<Score> current{buffer.data(), buffer.data() + 3 * width, buffer.data() + 6 * width};
  Slot<Score> previous{buffer.data() + width, buffer.data() + 4 * width, buffer.data() + 7 * width};  // d - 1
  Slot<Score> before_previous{buffer.data() + 2 * width, buffer.data() + 5 * width,
                              buffer.data() + 8 * width};  // d - 2
  // The live rows of d - 1 and d - 2.
  Rows live_1, live_2;

  const bool with_traceback = operations != nullptr;
  if (with_traceback) {
    traceback_.clear();
    traceback_offsets_.clear();
    traceback_low_.clear();
  }

  Extension result;
  Score best = 0;
  bool previous_all_dead = false;
  std::size_t d = 0;
  for (; d <= m + n; ++d) {
    if (d > 0) {
      std::swap(before_previous, current);  // the oldest arrays (d - 3) become d's
      std::swap(before_previous, previous);
    }
    const Rows band = d == 0 ? Rows{0, 0} : band_of(d, m, n, live_1, live_2);
    const bool empty = band.empty();
    if (with_traceback) {
      traceback_offsets_.push_back(traceback_.size());
      traceback_low_.push_back(static_cast<std::uint32_t>(empty ? 0 : band.low));
    }

    const Score threshold = static_cast<Score>(std::max<std::int64_t>(std::int64_t{best} - x_.value, kDeadBelow + 1));
    BandOutcome<Score> outcome;
    if (d == 0) {
      current.h[1] = 0;  // the origin
      outcome.live = {0, 0};
      outcome.best = 0;
      cells_ += 1;
      if (with_traceback) traceback_.push_back(kFromM);
    } else if (!empty) {
      const std::size_t count = band.high - band.low + 1;
      cells_ += count;
      std::uint8_t* tb = nullptr;
      if (with_traceback) {
        traceback_.resize(traceback_.size() + count);
        tb = traceback_.data() + traceback_.size() - count;
      }
      // The substitution scores of the band (a gather), then the recurrence over it in a loop without
      // branches that the compiler vectorises.
      substitution_scores_.resize(count);
      std::int32_t* scores = substitution_scores_.data();
      const std::uint8_t* query_codes = reinterpret_cast<const std::uint8_t*>(query_padded_.data()) + band.low;
      const std::uint8_t* target_codes =
          reinterpret_cast<const std::uint8_t*>(target_padded_.data()) + (n + band.low - d);
      for (std::size_t k = 0; k < count; ++k)
        scores[k] = substitution[static_cast<std::size_t>(query_codes[k]) * kMaxCodes + target_codes[k]];
      outcome = score_band(band, current, previous, before_previous.h, scores, tb, extend, open_extend, threshold);
    }
    const bool all_dead = outcome.live.low == kNone;
    if (!all_dead) {
      if (outcome.best > result.score) {
        result.score = outcome.best;
        result.query_length = static_cast<std::uint32_t>(outcome.best_row);
        result.target_length = static_cast<std::uint32_t>(d - outcome.best_row);
      }
      best = std::max(best, outcome.best);
    }
    live_2 = live_1;
    live_1 = outcome.live;
    if (all_dead && previous_all_dead) break;
    previous_all_dead = all_dead;
  }

  // From the best cell back to the origin, through live cells only.
  if (with_traceback)
    *operations = trace_back(traceback_, traceback_offsets_, traceback_low_, result.query_length, result.target_length);
  return result;
}

template Extension XdropAligner::extend_with<std::int32_t>(std::string_view, std::string_view, std::string*);
template Extension XdropAligner::extend_with<std::int64_t>(std::string_view, std::string_view, std::string*);

XdropAlignment XdropAligner::align(std::string_view query, std::string_view target, const Seed& seed,
                                   bool with_operations) {
  XdropAlignment alignment;
  XdropSpan& span = alignment.span;
  span.seed_score = seed_score(query, target, seed, scoring_);
  prefix_query_.assign(query.rend() - seed.query_begin, query.rend());
  prefix_target_.assign(target.rend() - seed.target_begin, target.rend());
  std::string left_operations, right_operations;
  span.left = extend(prefix_query_, prefix_target_, with_operations ? &left_operations : nullptr);
  span.right = extend(query.substr(seed.query_begin + seed.length), target.substr(seed.target_begin + seed.length),
                      with_operations ? &right_operations : nullptr);
  span.score = span.seed_score + span.left.score + span.right.score;
  span.query_begin = seed.query_begin - span.left.query_length;
  span.subject_begin = seed.target_begin - span.left.target_length;
  span.query_end = seed.query_begin + seed.length + span.right.query_length;
  span.subject_end = seed.target_begin + seed.length + span.right.target_length;
  if (with_operations) {
    // The left extension ran over the reversed prefixes: its operations, origin first, read right to left.
    alignment.operations.assign(left_operations.rbegin(), left_operations.rend());
    alignment.operations.append(seed.length, 'M');
    alignment.operations += right_operations;
  }
  return alignment;
}

}  // namespace warpsearch
