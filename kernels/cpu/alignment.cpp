#include "kernels/cpu/alignment.hpp"

#include <algorithm>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/cpu/alignment_rows.hpp"
#include "kernels/cpu/global_aligner.hpp"
#include "kernels/cpu/striped.hpp"

namespace warpsearch::cpu {
namespace {

using detail::GlobalAligner;
using detail::kMinusInfinity;
using detail::PassRows;
using detail::row_functions;
using detail::RowFunctions;
using detail::RowJob;
using detail::SubjectProfile;

// Myers and Miller's linear-space global alignment (Hirschberg's divide and conquer with affine gaps).
// A rectangle a[r0, r1) x b[c0, c1) is split at its middle row mid: a forward pass over a[r0, mid)
// gives, for every column j of the middle row, the best score into (mid, j), H, and the best that ends
// with a vertical gap, I; the same pass over the reversed sequences from the bottom-right corner gives
// the best from (mid, j) to the end, and the best that begins with a vertical gap. The alignment
// crosses the middle row either at a cell, H + H', or inside a vertical gap, I + I' + open (the gap
// was charged its open on both sides). The two halves are then aligned the same way, a crossing gap
// continuing into them without a new open (their top_open / bottom_open), until a half fits the whole
// traceback table (a GlobalAligner leaf). With threads > 1 the two passes run at once, then the two
// halves, each with half the threads; the choices, hence the operations, are the same. With a band
// (DiagonalBand) every pass and leaf is computed inside it, and the crossing is sought among the middle
// row's columns in it: the operations are the same as without it. Each half's score is known from the
// crossing, so each half gets its own band (optimal_band), narrower than its share of the parent's.
class LinearAligner {
 public:
  LinearAligner(std::string_view a, std::string_view b, const ScoringScheme& scoring, Isa isa, std::uint64_t leaf_cells,
                GlobalRowSource* row_source, std::optional<DiagonalBand> band)
      : a_(a),
        b_(b),
        reversed_a_(a.rbegin(), a.rend()),
        reversed_b_(b.rbegin(), b.rend()),
        scoring_(scoring),
        isa_(isa),
        open_(scoring.gap_open()),
        extend_(scoring.gap_extend()),
        leaf_cells_(leaf_cells),
        row_source_(row_source),
        rows_(row_functions(isa)),
        band_(band) {}

  // The operations of an optimal global alignment, and its score.
  std::string align(unsigned threads, std::int32_t* score) {
    std::string operations;
    operations.reserve(a_.size() + b_.size());
    solve(0, a_.size(), 0, b_.size(), open_, open_, band_, std::max(threads, 1u), operations, score);
    return operations;
  }

  // Where an optimal alignment of a rectangle crosses its middle row, and the score of each half.
  struct Crossing {
    std::int64_t score = 0;  // the rectangle's
    std::size_t column = 0;  // in the rectangle's columns
    bool through_gap = false;
    std::int64_t upper_score = 0, lower_score = 0;  // each half's, with its own corner opens
  };

  // The whole pair's crossing, in the band the aligner was made with, which needs only to hold every
  // optimal alignment (the band of a lower bound of the score): its score is the pair's, and the crossing
  // is the one any band holding the optimal alignments gives (the cells off them score less in every such
  // band). The rest then runs in `band`, the band of that score: align_from() gives the operations align()
  // gives with that band.
  Crossing top_crossing(unsigned threads) {
    return cross(0, a_.size(), 0, b_.size(), open_, open_, band_, std::max(threads, 1u));
  }
  std::string align_from(const Crossing& top, const std::optional<DiagonalBand>& band, unsigned threads) {
    std::string operations;
    operations.reserve(a_.size() + b_.size());
    const std::size_t rows = a_.size(), cols = b_.size();
    if (leaf(band, rows, cols))
      solve(0, rows, 0, cols, open_, open_, band, std::max(threads, 1u), operations);
    else
      halves(0, rows, 0, cols, open_, open_, band, top, std::max(threads, 1u), operations);
    return operations;
  }

 private:
  // What a pass reads: the forward pass a_ and b_, the backward pass the reversed ones (and the profile
  // of the same direction, profile()).
  struct Direction {
    bool reversed;
    std::string_view a, b;
  };
  Direction forward() const { return {false, a_, b_}; }
  Direction backward() const { return {true, reversed_a_, reversed_b_}; }

  // A direction's subject profile, built when a pass on the CPU first needs one: with a row source, the
  // passes of the largest rectangles never do, and at 1 Mb x 1 Mb the two profiles (4 MB each) and the
  // top split's rows (48 MB) would delay its first pass by 35-40 ms.
  const SubjectProfile& profile(const Direction& direction) const {
    std::call_once(profiles_built_, [&] {
      profile_.emplace(a_, b_, scoring_);
      reversed_profile_.emplace(reversed_a_, reversed_b_, scoring_);
    });
    return direction.reversed ? *reversed_profile_ : *profile_;
  }

  // The band of a half of rows x cols residues that scores `score` (its own opens at the corners), within
  // `outer` (the parent's band in the half's coordinates) when there is one.
  std::optional<DiagonalBand> half_band(std::size_t rows, std::size_t cols, std::int64_t score, std::int32_t top_open,
                                        std::int32_t bottom_open, const std::optional<DiagonalBand>& outer) const {
    const std::optional<DiagonalBand> own =
        optimal_band(rows, cols, score, scoring_, std::min({open_, top_open, bottom_open}));
    if (!own) return outer;
    if (!outer) return own;
    return DiagonalBand{std::max(own->low, outer->low), std::min(own->high, outer->high)};
  }

  // Whether a rectangle is aligned whole (a GlobalAligner leaf) rather than split.
  bool leaf(const std::optional<DiagonalBand>& band, std::size_t rows, std::size_t cols) const {
    return rows <= 1 || cols == 0 || pass_cells(band, rows, cols + 1) <= leaf_cells_;
  }

  // Appends the operations of an optimal alignment of a[r0, r1) x b[c0, c1) to operations. band: the
  // rectangle's, in its own coordinates (row r0, column c0 at (0, 0)). score (the top call's only): the
  // score of the rectangle's alignment.
  void solve(std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::int32_t top_open,
             std::int32_t bottom_open, const std::optional<DiagonalBand>& band, unsigned threads,
             std::string& operations, std::int32_t* score = nullptr) {
    const std::size_t rows = r1 - r0, cols = c1 - c0;
    if (leaf(band, rows, cols)) {
      std::int32_t leaf_score = 0;
      AlignmentLimits whole;
      whole.full_traceback_cells = std::numeric_limits<std::uint64_t>::max();
      operations += GlobalAligner(a_.substr(r0, rows), b_.substr(c0, cols), scoring_, isa_, band ? &*band : nullptr)
                        .align(whole, &leaf_score, top_open, bottom_open);
      if (score) *score = leaf_score;
      return;
    }
    const Crossing crossing = cross(r0, r1, c0, c1, top_open, bottom_open, band, threads);
    if (score) *score = static_cast<std::int32_t>(crossing.score);
    halves(r0, r1, c0, c1, top_open, bottom_open, band, crossing, threads, operations);
  }

  // The crossing of a[r0, r1) x b[c0, c1) at its middle row: the forward pass into it and the backward
  // pass out of it, at once with threads > 1; the leftmost best column, at one column a cell before a gap.
  Crossing cross(std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::int32_t top_open,
                 std::int32_t bottom_open, const std::optional<DiagonalBand>& band, unsigned threads) const {
    const std::size_t rows = r1 - r0, cols = c1 - c0;
    const std::size_t mid = r0 + rows / 2;
    // The rows live only through the passes, not through the recursion; last_row sizes them.
    PassRows into(0), out_of(0);
    const std::size_t m = a_.size(), n = b_.size();
    // Into the middle row, and (reversed) out of it.
    const std::optional<DiagonalBand> reversed_band =
        band ? std::optional(band->reversed(rows, cols + 1)) : std::nullopt;
    const auto backward_pass = [&] {
      last_row(backward(), m - r1, m - mid, n - c1, n - c0, bottom_open, reversed_band, out_of);
    };
    if (threads > 1) {
      std::future<void> pending = std::async(std::launch::async, backward_pass);
      last_row(forward(), r0, mid, c0, c1, top_open, band, into);
      pending.get();
    } else {
      last_row(forward(), r0, mid, c0, c1, top_open, band, into);
      backward_pass();
    }
    // Only the band's columns hold values.
    std::size_t first = 0, last = cols;
    if (band) {
      first = static_cast<std::size_t>(band->first_column(mid - r0));
      last = static_cast<std::size_t>(band->last_column(mid - r0, cols + 1));
    }
    Crossing crossing;
    crossing.score = std::numeric_limits<std::int64_t>::min();
    for (std::size_t j = first; j <= last; ++j) {
      const std::int64_t at_cell = std::int64_t{into.h_above[j]} + out_of.h_above[cols - j];
      const std::int64_t in_gap = std::int64_t{into.ins_above[j]} + out_of.ins_above[cols - j] + open_;
      if (at_cell > crossing.score) crossing.score = at_cell, crossing.column = j, crossing.through_gap = false;
      if (in_gap > crossing.score) crossing.score = in_gap, crossing.column = j, crossing.through_gap = true;
    }
    // Through a cell the halves score H and H'. Through a gap, each half ends (begins) at the gap with
    // no open there: I = (the upper half's score) - open - extend, and the same for I'.
    const std::size_t j = crossing.column;
    crossing.upper_score = crossing.through_gap ? std::int64_t{into.ins_above[j]} + open_ + extend_ : into.h_above[j];
    crossing.lower_score =
        crossing.through_gap ? std::int64_t{out_of.ins_above[cols - j]} + open_ + extend_ : out_of.h_above[cols - j];
    return crossing;
  }

  // Appends the operations of the two halves of a[r0, r1) x b[c0, c1) on either side of `crossing` (at
  // once on two thread shares when there are threads to share); a crossing gap covers a[mid - 1] and
  // a[mid] in column c, and goes on into both halves for free.
  void halves(std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1, std::int32_t top_open,
              std::int32_t bottom_open, const std::optional<DiagonalBand>& band, const Crossing& crossing,
              unsigned threads, std::string& operations) {
    const std::size_t mid = r0 + (r1 - r0) / 2;
    const bool through_gap = crossing.through_gap;
    const std::size_t c = c0 + crossing.column;
    const std::size_t upper_end = through_gap ? mid - 1 : mid, lower_begin = through_gap ? mid + 1 : mid;
    const std::int32_t inner_open = through_gap ? 0 : open_;
    const std::optional<DiagonalBand> upper_band =
        half_band(upper_end - r0, c - c0, crossing.upper_score, top_open, inner_open, band);
    const std::optional<DiagonalBand> lower_band =
        half_band(r1 - lower_begin, c1 - c, crossing.lower_score, inner_open, bottom_open,
                  band ? std::optional(band->within(lower_begin - r0, c - c0)) : std::nullopt);
    const auto upper = [&](unsigned share, std::string& out) {
      solve(r0, upper_end, c0, c, top_open, inner_open, upper_band, share, out);
      if (through_gap) out += "II";
    };
    const auto lower = [&](unsigned share, std::string& out) {
      solve(lower_begin, r1, c, c1, inner_open, bottom_open, lower_band, share, out);
    };
    if (threads > 1) {
      std::string lower_operations;
      std::future<void> pending =
          std::async(std::launch::async, [&] { lower(threads - threads / 2, lower_operations); });
      upper(threads / 2, operations);
      pending.get();
      operations += lower_operations;
    } else {
      upper(1, operations);
      lower(1, operations);
    }
  }

  // H and I of the last row of the global alignment of direction.a[r0, r1) x direction.b[c0, c1), left
  // in rows.h_above and rows.ins_above; a vertical gap from (0, 0) costs top_open instead of open; band:
  // in the pass's coordinates. From the row source when there is one for this rectangle and it does not
  // decline.
  void last_row(const Direction& direction, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1,
                std::int32_t top_open, const std::optional<DiagonalBand>& band, PassRows& rows) const {
    const std::size_t columns = c1 - c0 + 1;
    rows.h.clear();
    rows.ins.clear();
    if (row_source_ && r1 > r0 && pass_cells(band, r1 - r0, columns) >= row_source_->min_cells() &&
        row_source_->rows(direction.a.substr(r0, r1 - r0), direction.b.substr(c0, c1 - c0), top_open, r1 - r0, rows.h,
                          rows.ins, band ? &*band : nullptr)) {
      if (rows.h.size() != columns || rows.ins.size() != columns)
        throw std::logic_error("GlobalRowSource::rows gave " + std::to_string(rows.h.size()) + " H and " +
                               std::to_string(rows.ins.size()) + " I values for the last row of " +
                               std::to_string(r1 - r0) + " x " + std::to_string(columns - 1) + " residues, not " +
                               std::to_string(columns));
      std::swap(rows.h, rows.h_above);
      std::swap(rows.ins, rows.ins_above);
      return;
    }
    rows.resize(columns);
    rows.start(columns, open_, extend_);
    const SubjectProfile& scores = profile(direction);
    for (std::size_t i = 1; i <= r1 - r0; ++i) {
      const std::int8_t* substitution = scores.row(direction.a[r0 + i - 1]) + c0;
      if (band)
        rows.advance_in_band(rows_, *band, columns, open_, extend_, top_open, i, substitution, nullptr);
      else
        rows.advance(rows_, columns, open_, extend_, top_open, i, substitution, nullptr);
    }
  }

  std::string_view a_, b_;
  std::string reversed_a_, reversed_b_;
  const ScoringScheme& scoring_;
  Isa isa_;
  std::int32_t open_, extend_;
  std::uint64_t leaf_cells_;
  GlobalRowSource* row_source_;
  mutable std::once_flag profiles_built_;
  mutable std::optional<SubjectProfile> profile_, reversed_profile_;
  RowFunctions rows_;
  std::optional<DiagonalBand> band_;
};

// The score of the operations replayed over the two substrings; fills the counts of the alignment.
std::int64_t replay(std::string_view a, std::string_view b, const ScoringScheme& scoring, PairAlignment& alignment) {
  std::int64_t score = 0;
  std::size_t i = 0, j = 0;
  char previous = 'M';
  for (char op : alignment.operations) {
    if (op == 'M') {
      if (i >= a.size() || j >= b.size())
        throw std::logic_error("align_in_rectangle: the operations overrun the sequences");
      score += scoring.score(static_cast<std::uint8_t>(a[i]), static_cast<std::uint8_t>(b[j]));
      (a[i] == b[j] ? alignment.identities : alignment.mismatches) += 1;
      ++i;
      ++j;
    } else {
      if (op != previous) {
        score -= scoring.gap_open();
        ++alignment.gap_opens;
      }
      score -= scoring.gap_extend();
      ++alignment.gaps;
      (op == 'I' ? i : j) += 1;
    }
    previous = op;
  }
  if (i != a.size() || j != b.size())
    throw std::logic_error("align_in_rectangle: the operations do not span the rectangle");
  return score;
}

// Whether the traceback's int32 rows hold every value of a global alignment of rows x cols residues:
// above minus infinity (with one open + extend and a substitution to spare), and the horizontal-gap scan's
// MI(k) + k * extend below 2^31.
bool fits_traceback_rows(std::size_t rows, std::size_t cols, const ScoringScheme& scoring) {
  const ScoreRange range = striped_score_range(AlignmentMode::global, rows, cols, scoring);
  const std::int64_t spare = scoring.gap_open() + scoring.gap_extend() + 128;
  return range.low - spare > kMinusInfinity &&
         range.high + spare + static_cast<std::int64_t>(cols) * scoring.gap_extend() <
             std::numeric_limits<std::int32_t>::max();
}

// Global pairs of this many cells and more have their score computed in bands (banded_global_score).
constexpr std::uint64_t kBandedScoreCells = std::uint64_t{1} << 24;

// The global score of a against b from the traceback's rows restricted to bands (guess_band, then
// after_guess: profile/exact_band.hpp). None where the rows would take longer than the striped pass (a band over 40% of
// the columns: the rows run at about 2 G cells/s on a core, the striped 32-bit pass at about 5) or do not hold the
// pair's range. With `exact`: the guess band's score alone where after_guess does not prove it the optimum, a lower
// bound (*exact false), for a traceback that finds the score itself (align_global).
std::optional<std::int64_t> banded_global_score(std::string_view a, std::string_view b, const ScoringScheme& scoring,
                                                Isa isa, bool* exact = nullptr) {
  const std::size_t columns = b.size() + 1;
  const std::optional<DiagonalBand> guess = guess_band(a.size(), b.size());
  if (!guess || !fits_traceback_rows(a.size(), b.size(), scoring)) return std::nullopt;
  const std::int32_t open = scoring.gap_open(), extend = scoring.gap_extend();
  const RowFunctions functions = row_functions(isa);
  const SubjectProfile profile(a, b, scoring);
  PassRows rows(columns);
  const auto corner = [&](const DiagonalBand& band) {
    rows.start(columns, open, extend);
    for (std::size_t i = 1; i <= a.size(); ++i)
      rows.advance_in_band(functions, band, columns, open, extend, open, i, profile.row(a[i - 1]), nullptr);
    return std::int64_t{rows.h_above[b.size()]};
  };
  const std::int64_t lower = corner(*guess);
  const AfterGuess after = after_guess(a.size(), b.size(), lower, *guess, scoring);
  if (exact) *exact = after.proven;
  if (after.proven) return lower;
  if (!after.band || after.band->width() * 5 > columns * 2) return std::nullopt;
  if (exact) return lower;
  return corner(*after.band);
}

// The whole pair as a span of the given score.
Span whole_pair(std::string_view query_codes, std::string_view subject_codes, std::int64_t score) {
  Span span;
  span.score = score;
  span.query_end = static_cast<std::uint32_t>(query_codes.size());
  span.subject_end = static_cast<std::uint32_t>(subject_codes.size());
  return span;
}

std::string reversed_prefix(std::string_view codes, std::size_t length) {
  return std::string(codes.rend() - static_cast<std::ptrdiff_t>(length), codes.rend());
}

std::string rectangle_text(const Span& span) {
  return "query " + std::to_string(span.query_begin) + ".." + std::to_string(span.query_end) + ", subject " +
         std::to_string(span.subject_begin) + ".." + std::to_string(span.subject_end);
}

// align_in_rectangle with the traceback rows of the given instruction set. score_known false: span.score
// is only a lower bound of the rectangle's (global) score, which the traceback finds (align_global).
PairAlignment rectangle_alignment(std::string_view query_codes, std::string_view subject_codes,
                                  const ScoringScheme& scoring, const Span& span, const AlignmentLimits& limits,
                                  Isa isa, bool score_known = true) {
  if (span.query_begin > span.query_end || span.query_end > query_codes.size() ||
      span.subject_begin > span.subject_end || span.subject_end > subject_codes.size())
    throw std::invalid_argument("align_in_rectangle: the rectangle (" + rectangle_text(span) +
                                ") is not within a query of " + std::to_string(query_codes.size()) +
                                " and a subject of " + std::to_string(subject_codes.size()) + " residues");
  PairAlignment alignment;
  static_cast<Span&>(alignment) = span;

  const std::string_view a = query_codes.substr(span.query_begin, span.query_end - span.query_begin);
  const std::string_view b = subject_codes.substr(span.subject_begin, span.subject_end - span.subject_begin);
  if (!fits_traceback_rows(a.size(), b.size(), scoring))
    throw std::overflow_error("align_in_rectangle: the rectangle (" + rectangle_text(span) +
                              ") is too large for the traceback's 32-bit rows at this gap extend cost");
  // The exact band of a score, and whether a rectangle in that band takes the linear path: the score's
  // band decides (the band of a lower bound holds it).
  const auto band_of = [&](std::int64_t score) {
    return limits.exact_band ? optimal_band(a.size(), b.size(), score, scoring, scoring.gap_open()) : std::nullopt;
  };
  const auto linear = [&](const std::optional<DiagonalBand>& band) {
    const std::size_t tb_width = band ? std::min(band->width() + 1, b.size() + 1) : b.size() + 1;
    const std::uint64_t cells = static_cast<std::uint64_t>(a.size()) * tb_width;
    return cells > limits.full_traceback_cells &&
           GlobalAligner::checkpoint_bytes(a.size(), b.size() + 1, tb_width, limits.full_traceback_cells) >
               limits.checkpoint_bytes;
  };
  std::int32_t global_score = 0;
  std::optional<DiagonalBand> band = band_of(span.score);
  const auto whole_or_checkpointed = [&] {
    return GlobalAligner(a, b, scoring, isa, band ? &*band : nullptr)
        .align(limits, &global_score, scoring.gap_open(), scoring.gap_open());
  };
  if (!linear(band)) {
    // With a lower bound too: the score's band is no wider, so it takes this path as well, whose
    // operations do not depend on the band.
    alignment.operations = whole_or_checkpointed();
  } else {
    LinearAligner aligner(a, b, scoring, isa, std::min(limits.full_traceback_cells, limits.linear_leaf_cells),
                          limits.row_source, band);
    if (score_known) {
      alignment.operations = aligner.align(limits.threads, &global_score);
    } else {
      // The first split, in the bound's band, gives the score; the rest runs in the score's band, on the
      // path that band takes.
      const auto top = aligner.top_crossing(limits.threads);
      global_score = static_cast<std::int32_t>(top.score);
      band = band_of(top.score);
      alignment.operations = linear(band) ? aligner.align_from(top, band, limits.threads) : whole_or_checkpointed();
    }
  }
  if (!score_known) {
    if (global_score < span.score)
      throw std::logic_error("align_global: the traceback scores " + std::to_string(global_score) +
                             ", below the lower bound " + std::to_string(span.score) + " (" + rectangle_text(span) +
                             ")");
    alignment.score = global_score;
  }
  const std::int64_t replayed = replay(a, b, scoring, alignment);
  if (global_score != alignment.score || replayed != alignment.score)
    throw std::logic_error("align_in_rectangle: the traceback scores " + std::to_string(global_score) + " (replayed " +
                           std::to_string(replayed) + "), the span " + std::to_string(alignment.score) + " (" +
                           rectangle_text(span) + ")");
  return alignment;
}

// Whether step 1 tries the traceback's rows in bands (banded_global_score) before the striped pass.
bool scored_in_bands(std::string_view query_codes, std::string_view subject_codes, AlignmentMode mode) {
  return mode == AlignmentMode::global &&
         static_cast<std::uint64_t>(query_codes.size()) * subject_codes.size() >= kBandedScoreCells;
}

// Steps 1 and 2 by the striped passes alone.
Span striped_span(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                  AlignmentMode mode, Isa isa) {
  Span span;
  const PairEnd end = StripedScorer(query_codes, scoring, isa).end(subject_codes, mode);
  span.score = end.score;
  span.query_end = end.query_end;
  span.subject_end = end.subject_end;
  if (mode == AlignmentMode::global || (mode == AlignmentMode::local && end.score == 0) ||
      (mode == AlignmentMode::semiglobal && query_codes.empty()))
    return span;

  // The start: the same pass over the reversed prefixes that end at the end. Semi-global: every optimal
  // alignment within subject [0, end) ends at end (end is the smallest optimal end), so the reversed
  // pass's smallest optimal end is the largest optimal start.
  // It scores what the forward pass scored: beyond 16 bits, it starts at 32.
  const bool wide = end.score >= 32767 || end.score <= -32768;
  // Local: no cell of the reversed prefixes scores more than the end's score, so the pass stops at the
  // first column reaching it (the start's subject position).
  const PairEnd start = StripedScorer(reversed_prefix(query_codes, end.query_end), scoring, isa)
                            .end(reversed_prefix(subject_codes, end.subject_end), mode, wide ? Width::w32 : Width::w16,
                                 mode == AlignmentMode::local ? end.score : std::numeric_limits<std::int64_t>::max());
  if (start.score != end.score)
    throw std::logic_error("pair_span: the reverse pass scores " + std::to_string(start.score) + ", the forward pass " +
                           std::to_string(end.score));
  span.query_begin = end.query_end - start.query_end;
  span.subject_begin = end.subject_end - start.subject_end;
  return span;
}

}  // namespace

Span pair_span(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
               AlignmentMode mode, Isa isa) {
  if (scored_in_bands(query_codes, subject_codes, mode))
    if (const std::optional<std::int64_t> score = banded_global_score(query_codes, subject_codes, scoring, isa))
      return whole_pair(query_codes, subject_codes, *score);
  return striped_span(query_codes, subject_codes, scoring, mode, isa);
}

PairAlignment align_in_rectangle(std::string_view query_codes, std::string_view subject_codes,
                                 const ScoringScheme& scoring, const Span& span, const AlignmentLimits& limits) {
  return rectangle_alignment(query_codes, subject_codes, scoring, span, limits, best_isa());
}

PairAlignment align_global(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                           std::int64_t lower_bound, const AlignmentLimits& limits) {
  return rectangle_alignment(query_codes, subject_codes, scoring, whole_pair(query_codes, subject_codes, lower_bound),
                             limits, best_isa(), false);
}

PairAlignment align_pair(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                         AlignmentMode mode, const AlignmentLimits& limits, Isa isa) {
  // The traceback rows too run on isa: the benchmark and the tests reach every row variant this way.
  // Global pairs scored in bands: the guess band's score is enough, the traceback's first split finds
  // the score (its band holds every optimal alignment), one banded pass fewer.
  // Elsewhere pair_span's striped passes (not pair_span itself, which would try the guess band again).
  if (scored_in_bands(query_codes, subject_codes, mode)) {
    bool exact = true;
    if (const std::optional<std::int64_t> score = banded_global_score(query_codes, subject_codes, scoring, isa, &exact))
      return rectangle_alignment(query_codes, subject_codes, scoring, whole_pair(query_codes, subject_codes, *score),
                                 limits, isa, exact);
  }
  return rectangle_alignment(query_codes, subject_codes, scoring,
                             striped_span(query_codes, subject_codes, scoring, mode, isa), limits, isa);
}

PairAlignment align_local(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                          const AlignmentLimits& limits) {
  return align_pair(query_codes, subject_codes, scoring, AlignmentMode::local, limits);
}

std::string cigar(const std::string& operations) {
  std::string result;
  for (std::size_t i = 0; i < operations.size();) {
    const char op = operations[i];
    if (op != 'M' && op != 'I' && op != 'D')
      throw std::invalid_argument(std::string("cigar: operation '") + op + "' at column " + std::to_string(i) +
                                  " is not M, I or D");
    std::size_t run = 1;
    while (i + run < operations.size() && operations[i + run] == op) ++run;
    result += std::to_string(run);
    result += op;
    i += run;
  }
  return result;
}

}  // namespace warpsearch::cpu
