#include "kernels/cpu/striped.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "kernels/cpu/striped_table.hpp"

namespace warpsearch::cpu {
namespace {

const detail::StripedTable& striped_table(Isa isa) {
  switch (isa) {
#if defined(WARPSEARCH_CPU_X86)
    case Isa::sse41: return detail::kStripedSse41;
    case Isa::avx2: return detail::kStripedAvx2;
    case Isa::avx512bw: return detail::kStripedAvx512bw;
#endif
    default: return detail::kStripedScalar;
  }
}

int width_index(Width width) {
  switch (width) {
    case Width::w16: return 0;
    case Width::w32: return 1;
    case Width::w8: break;
  }
  throw std::invalid_argument("StripedScorer: the striped kernels have 16-bit and 32-bit widths, not 8-bit");
}

// Whether the 16-bit kernels can be exact for these lengths (striped_kernel.hpp, "Exactness"): the
// boundary gaps of global and semi-global alignment must stay 2 oe + 128 above -32768. Local needs no
// static bound (its H never goes below 0; the kernel checks the top of the range).
bool fits_16_bits(AlignmentMode mode, std::size_t m, std::size_t n, const ScoringScheme& scoring) {
  const std::int64_t open = scoring.gap_open();
  const std::int64_t extend = scoring.gap_extend();
  const std::int64_t low = -32768 + 2 * (open + extend) + 128;
  switch (mode) {
    case AlignmentMode::local: return true;
    case AlignmentMode::semiglobal: return -(open + static_cast<std::int64_t>(m) * extend) >= low;
    case AlignmentMode::global: return -(open + static_cast<std::int64_t>(std::max(m, n)) * extend) >= low;
    case AlignmentMode::xdrop: break;  // rejected before
  }
  return false;
}

// Every computed value other than minus infinity stays this far inside +-2^29 beyond the range of H:
// E, F and X are within one open + extend of an H, a diagonal sum within one substitution score, the
// scan's carries within one more open + extend (striped_kernel.hpp).
std::int64_t margin_32_bits(const ScoringScheme& scoring) {
  return 2 * (std::int64_t{scoring.gap_open()} + scoring.gap_extend()) + 128;
}

// Whether the 32-bit kernels are exact: every true value within +-2^29 (striped_kernel.hpp), for the
// query padded to whole stripes of the 32-bit kernels' lanes.
bool fits_32_bits(AlignmentMode mode, std::size_t m, std::size_t n, const ScoringScheme& scoring, int lanes) {
  const std::size_t segments = (m + static_cast<std::size_t>(lanes) - 1) / static_cast<std::size_t>(lanes);
  const ScoreRange range = striped_score_range(mode, segments * static_cast<std::size_t>(lanes), n, scoring);
  const std::int64_t limit = (std::int64_t{1} << 29) - margin_32_bits(scoring);
  return range.low >= -limit && range.high <= limit;
}

// What a kernel reads: the query's profile with the kernel's lane count, and the subject.
detail::StripedPass pass(std::string_view query, const ScoringScheme& scoring,
                         const StripedProfile<std::int16_t>& profile, std::string_view subject_codes) {
  detail::StripedPass pass;
  pass.profile = profile.data();
  pass.segments = profile.segment_length();
  pass.query_length = query.size();
  pass.subject = reinterpret_cast<const std::uint8_t*>(subject_codes.data());
  pass.subject_length = subject_codes.size();
  pass.gap_open = scoring.gap_open();
  pass.gap_extend = scoring.gap_extend();
  return pass;
}

// Pairs with an empty side: no kernel needed.
std::optional<PairEnd> trivial_end(std::size_t m, std::size_t n, AlignmentMode mode, const ScoringScheme& scoring) {
  if (m > 0 && n > 0) return std::nullopt;
  PairEnd end;
  if (mode == AlignmentMode::local || (mode == AlignmentMode::semiglobal && m == 0)) return end;
  // Global, or a semi-global query against an empty subject: the non-empty side is one gap.
  const std::size_t gap = m + n;
  end.score = gap == 0 ? 0 : -scoring.gap_cost(static_cast<long long>(gap));
  end.query_end = static_cast<std::uint32_t>(m);
  end.subject_end = static_cast<std::uint32_t>(n);
  return end;
}

}  // namespace

ScoreRange striped_score_range(AlignmentMode mode, std::size_t query_length, std::size_t subject_length,
                               const ScoringScheme& scoring) {
  require_table_mode(mode, "striped_score_range");
  const std::int64_t open = scoring.gap_open();
  const std::int64_t extend = scoring.gap_extend();
  const auto m = static_cast<std::int64_t>(query_length);
  const auto n = static_cast<std::int64_t>(subject_length);
  ScoreRange range;
  // Above: no alignment of i x j residues beats min(i, j) best substitutions (its gaps cost, and H(0, 0)
  // or the local floor is 0).
  range.high = std::min(m, n) * std::max(scoring.matrix().max_score(), 0);
  // Below: H(i, j) is at least the score of one path into the cell, whatever the substitutions:
  // local 0; semi-global from (0, j) down column j, one gap of i; global down column 0 and along row i,
  // two gaps (one where i or j is 0). E and F lie within one open + extend below an H.
  std::int64_t lowest_h = 0;
  switch (mode) {
    case AlignmentMode::local: break;
    case AlignmentMode::semiglobal: lowest_h = m == 0 ? 0 : -(open + m * extend); break;
    case AlignmentMode::global: lowest_h = -((m > 0) + (n > 0)) * open - (m + n) * extend; break;
    case AlignmentMode::xdrop: break;  // rejected above
  }
  range.low = lowest_h - (open + extend);
  return range;
}

StripedScorer::StripedScorer(std::string_view query_codes, const ScoringScheme& scoring, Isa isa)
    : query_(query_codes), scoring_(scoring), isa_(isa) {
  if (!isa_supported(isa))
    throw std::invalid_argument(std::string("StripedScorer: this CPU or build cannot run the ") + isa_name(isa) +
                                " kernels");
  for (std::size_t i = 0; i < query_.size(); ++i)
    if (static_cast<unsigned char>(query_[i]) >= kMaxCodes)
      throw std::invalid_argument("StripedScorer: query residue " + std::to_string(i) + " has code " +
                                  std::to_string(static_cast<unsigned char>(query_[i])) + ", not a residue code");
  if (!query_.empty()) profile16_.emplace(scoring_.matrix(), query_, striped_table(isa_).lanes[0]);
}

int StripedScorer::lanes(Width width) const { return striped_table(isa_).lanes[width_index(width)]; }

std::optional<PairEnd> StripedScorer::end_at_width(std::string_view subject_codes, AlignmentMode mode,
                                                   Width width) const {
  return pass_at_width(subject_codes, mode, width, nullptr);
}

std::optional<PairEnd> StripedScorer::pass_at_width(std::string_view subject_codes, AlignmentMode mode, Width width,
                                                    const ColumnReport* report, std::int64_t stop_score) const {
  const int w = width_index(width);
  require_table_mode(mode, "striped kernel");  // the tables have one kernel per table mode
  check_lengths(subject_codes.size());
  const std::size_t m = query_.size();
  const std::size_t n = subject_codes.size();
  if (auto trivial = trivial_end(m, n, mode, scoring_)) return trivial;
  const detail::StripedTable& table = striped_table(isa_);
  if (width == Width::w16 && !fits_16_bits(mode, m, n, scoring_)) return std::nullopt;
  if (width == Width::w32 && !fits_32_bits(mode, m, n, scoring_, table.lanes[w])) return std::nullopt;

  // The 32-bit kernels read a profile with their own (smaller) lane count, built here when it differs.
  std::optional<StripedProfile<std::int16_t>> wide;
  const StripedProfile<std::int16_t>* profile = &*profile16_;
  if (table.lanes[w] != profile16_->lanes()) profile = &wide.emplace(scoring_.matrix(), query_, table.lanes[w]);
  detail::StripedPass kernel_pass = pass(query_, scoring_, *profile, subject_codes);
  kernel_pass.stop_score = stop_score;
  if (report) {
    kernel_pass.first_column = report->first_column;
    kernel_pass.hot_threshold = report->hot_threshold;
    kernel_pass.hot_columns = report->hot;
    report->hot->clear();
  }
  const detail::StripedOutcome outcome = table.kernel[w][static_cast<int>(mode)](kernel_pass);
  if (outcome.saturated) return std::nullopt;
  return PairEnd{outcome.score, outcome.query_end, outcome.subject_end};
}

PairEnd StripedScorer::end_64_bits(std::string_view subject_codes, AlignmentMode mode) const {
  return pass_64_bits(subject_codes, mode, std::numeric_limits<std::int64_t>::max());
}

PairEnd StripedScorer::pass_64_bits(std::string_view subject_codes, AlignmentMode mode, std::int64_t stop_score) const {
  require_table_mode(mode, "striped kernel");
  check_lengths(subject_codes.size());
  if (auto trivial = trivial_end(query_.size(), subject_codes.size(), mode, scoring_)) return *trivial;
  const StripedProfile<std::int16_t> profile(scoring_.matrix(), query_, 1);
  detail::StripedPass kernel_pass = pass(query_, scoring_, profile, subject_codes);
  kernel_pass.stop_score = stop_score;
  const detail::StripedOutcome outcome = detail::kStriped64.kernel[static_cast<int>(mode)](kernel_pass);
  return PairEnd{outcome.score, outcome.query_end, outcome.subject_end};
}

PairEnd StripedScorer::end(std::string_view subject_codes, AlignmentMode mode, Width first,
                           std::int64_t stop_score) const {
  check_lengths(subject_codes.size());
  if (isa_ != Isa::scalar && first != Width::w32)
    if (auto narrow = pass_at_width(subject_codes, mode, Width::w16, nullptr, stop_score)) return *narrow;
  if (auto wide = pass_at_width(subject_codes, mode, Width::w32, nullptr, stop_score)) return *wide;
  return pass_64_bits(subject_codes, mode, stop_score);
}

void StripedScorer::check_lengths(std::size_t subject_length) const {
  constexpr std::size_t kLimit = std::numeric_limits<std::uint32_t>::max();
  if (query_.size() > kLimit || subject_length > kLimit)
    throw std::length_error("StripedScorer: a query of " + std::to_string(query_.size()) + " and a subject of " +
                            std::to_string(subject_length) + " residues: each must be below 2^32 residues");
}

ColumnScan StripedScorer::scan_columns(std::string_view subject_codes, std::size_t first_column,
                                       std::int64_t hot_threshold) const {
  ColumnScan scan;
  if (query_.empty() || subject_codes.size() <= first_column) return scan;
  const ColumnReport report{first_column, hot_threshold, &scan.hot};
  if (isa_ != Isa::scalar)
    if (auto narrow = pass_at_width(subject_codes, AlignmentMode::local, Width::w16, &report)) {
      scan.best = *narrow;
      return scan;
    }
  if (auto wide = pass_at_width(subject_codes, AlignmentMode::local, Width::w32, &report)) {
    scan.best = *wide;
    return scan;
  }
  throw std::overflow_error("StripedScorer: a query of " + std::to_string(query_.size()) + " and a subject of " +
                            std::to_string(subject_codes.size()) + " residues exceed the 32-bit kernels' bound");
}

PairEnd striped_end(std::string_view query_codes, std::string_view subject_codes, const ScoringScheme& scoring,
                    AlignmentMode mode, Isa isa) {
  return StripedScorer(query_codes, scoring, isa).end(subject_codes, mode);
}

}  // namespace warpsearch::cpu
