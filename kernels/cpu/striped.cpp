#include "kernels/cpu/striped.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/cpu/striped_table.hpp"

namespace warpsearch::cpu {
namespace {

const detail::StripedTable& striped_table(Isa isa) {
  switch (isa) {
#if defined(WARPSEARCH_CPU_X86)
    case Isa::sse41:
      return detail::kStripedSse41;
    case Isa::avx2:
      return detail::kStripedAvx2;
    case Isa::avx512bw:
      return detail::kStripedAvx512bw;
#endif
    default:
      return detail::kStripedScalar;
  }
}

int width_index(Width width) {
  switch (width) {
    case Width::w16:
      return 0;
    case Width::w32:
      return 1;
    case Width::w8:
      break;
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
    case AlignmentMode::local:
      return true;
    case AlignmentMode::semiglobal:
      return -(open + static_cast<std::int64_t>(m) * extend) >= low;
    case AlignmentMode::global:
      return -(open + static_cast<std::int64_t>(std::max(m, n)) * extend) >= low;
  }
  return false;
}

// Whether every true value of any mode stays within +-2^29 (the 32-bit kernels' wrapping arithmetic
// with minus infinity at -2^30): |score| <= 127 per residue and per gap column, plus two opens.
bool fits_32_bits(std::size_t m, std::size_t n) {
  return (static_cast<std::uint64_t>(m) + n + 4) * 127 < (std::uint64_t{1} << 29);
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
                                                     const ColumnReport* report) const {
  const int w = width_index(width);
  const std::size_t m = query_.size();
  const std::size_t n = subject_codes.size();
  if (auto trivial = trivial_end(m, n, mode, scoring_)) return trivial;
  if (!fits_32_bits(m, n)) return std::nullopt;
  if (width == Width::w16 && !fits_16_bits(mode, m, n, scoring_)) return std::nullopt;

  const detail::StripedTable& table = striped_table(isa_);
  // The 32-bit kernels read a profile with their own (smaller) lane count, built here when it differs.
  std::optional<StripedProfile<std::int16_t>> wide;
  const StripedProfile<std::int16_t>* profile = &*profile16_;
  if (table.lanes[w] != profile16_->lanes()) profile = &wide.emplace(scoring_.matrix(), query_, table.lanes[w]);

  detail::StripedPass pass;
  pass.profile = profile->data();
  pass.segments = profile->segment_length();
  pass.query_length = m;
  pass.subject = reinterpret_cast<const std::uint8_t*>(subject_codes.data());
  pass.subject_length = n;
  pass.gap_open = scoring_.gap_open();
  pass.gap_extend = scoring_.gap_extend();
  if (report) {
    pass.first_column = report->first_column;
    pass.hot_threshold = report->hot_threshold;
    pass.hot_columns = report->hot;
    report->hot->clear();
  }
  const detail::StripedOutcome outcome = table.kernel[w][static_cast<int>(mode)](pass);
  if (outcome.saturated) return std::nullopt;
  return PairEnd{outcome.score, outcome.query_end, outcome.subject_end};
}

PairEnd StripedScorer::end(std::string_view subject_codes, AlignmentMode mode) const {
  if (isa_ != Isa::scalar)
    if (auto narrow = end_at_width(subject_codes, mode, Width::w16)) return *narrow;
  if (auto wide = end_at_width(subject_codes, mode, Width::w32)) return *wide;
  throw std::overflow_error("StripedScorer: a query of " + std::to_string(query_.size()) + " and a subject of " +
                            std::to_string(subject_codes.size()) +
                            " residues exceed the 32-bit kernels' bound (query + subject below about 4.2 million)");
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
